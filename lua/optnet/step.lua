-- optnet.step: the whole training step planned (optnet.trainStep).
-- Each parameter is updated by the optimizer as soon as its gradient is
-- complete in backward (the last accGradParameters into it done), so the
-- gradient lives only from its first accumulation to its update and is
-- planned in the activation arena like any other tensor (the trace records
-- it at its gradient steps: trace.lua, plan.lua with opts.planGrads).
-- Per-parameter updates call optim's own functions on each parameter with
-- a state table of its own: the optimizers here are elementwise, so each
-- element sees the arithmetic of the plain loop over the flat vector.
require 'optim'
local walk = require 'optnet.walk'

local step = {}

-- the net's step object (weak: the object holds the net)
local of = setmetatable({}, {__mode = 'k'})
step.of = of

local PER_PARAM = {'sgd', 'adam', 'adamax', 'adagrad', 'rmsprop', 'adadelta', 'nag'}
local WHOLE = {lbfgs = 'a line search over several evaluations', cg = 'a line search over several evaluations'}
-- state fields each update overwrites before reading: scratch, not state.
-- adam's denom takes the gradient's own memory (the gradient is read for
-- the last time before denom is written); the others share one scratch
-- per field, as large as the largest parameter
local SCRATCH = {adamax = {'max'}, rmsprop = {'tmp'}, adagrad = {'paramStd'}, adadelta = {'paramStd', 'delta'}}

local function fail(fmt, ...)
  error(string.format('optnet.trainStep: ' .. fmt, ...), require('optnet.view').callerLevel())
end

-- the optimizer's name from a function of optim or a name
local function methodName(method)
  for _, k in ipairs(PER_PARAM) do
    if method == k or method == optim[k] then return k end
  end
  for k, why in pairs(WHOLE) do
    if method == k or method == optim[k] then
      fail("optim.%s needs the whole gradient at once (%s): it cannot update each parameter as its gradient "
        .. "completes; optimize with optnet.optimizeMemory(net, input, {mode = 'training'}) and call "
        .. "optim.%s over net:getParameters() as before", k, why, k)
    end
  end
  fail("option 'method' must be one of optim.%s (or its name), got %s", table.concat(PER_PARAM, ', optim.'),
    tostring(method))
end

local function checkConfig(name, config)
  if type(config) ~= 'table' then fail("option 'config' must be a table, got %s", torch.type(config)) end
  for _, k in ipairs{'learningRates', 'weightDecays'} do
    if config[k] ~= nil then
      fail("config.%s (a tensor over the flat parameters) is not supported per parameter; use optim.%s "
        .. "over net:getParameters()", k, name)
    end
  end
  if name == 'nag' and (config.momentum or 0.9) <= 0 then
    fail('optim.nag: momentum must be positive for Nesterov accelerated gradient, got %g', config.momentum)
  end
  if name == 'sgd' and config.nesterov and ((config.momentum or 0) <= 0 or (config.dampening or config.momentum) ~= 0) then
    fail('optim.sgd: Nesterov momentum requires a momentum and zero dampening (momentum %g, dampening %g)',
      config.momentum or 0, config.dampening or config.momentum or 0)
  end
end

local function key(t) return t:_storageId() .. ':' .. t:storageOffset() .. ':' .. t:nElement() end

-- the parameter groups of a net: one per distinct parameter tensor, in the
-- order of net:parameters() (the order of getParameters' flat vector),
-- each with the (module, field) pairs holding it. A weight used by two
-- modules whose gradients are not shared gets them shared here, as
-- getParameters would do: the group's gradient is their sum.
-- modules: the modules to look in (default: the net's now); planned: the
-- gradients are planned already (attach), so a tie is refused, not made;
-- it maps each planned tensor to its entry of the plan.
-- blocked: module -> true for the Linears made in row blocks, whose
-- gradWeight is one block (step.block)
local function groups(net, modules, planned, blocked)
  local list, byKey = {}, {}
  local params = net:parameters() or {}
  for _, p in ipairs(params) do
    local k = key(p)
    if p:nElement() > 0 and not byKey[k] then
      byKey[k] = {param = p, members = {}, index = #list + 1}
      list[#list + 1] = byKey[k]
    end
  end
  local ties = {}
  for _, m in ipairs(modules or walk.modules(net)) do
    for _, f in ipairs{{'weight', 'gradWeight'}, {'bias', 'gradBias'}} do
      local pf, gf = f[1], f[2]
      local p, g = rawget(m, pf), rawget(m, gf)
      if torch.isTensor(p) and p:nElement() > 0 then
        local grp = byKey[key(p)]
        if not grp then fail('%s.%s is not among net:parameters()', torch.type(m), pf) end
        local whole = torch.isTensor(g) and (g:isSameSizeAs(p) or (blocked and blocked[m] and gf == 'gradWeight'))
        if not whole then
          fail('%s.%s must be a tensor of the size of its %s, got %s', torch.type(m), gf, pf,
            torch.isTensor(g) and table.concat(g:size():totable(), 'x') or torch.type(g))
        end
        local first = grp.members[1]
        if first then
          local g1 = first.module[first.gradField]
          local same = g:_storageId() == g1:_storageId() and g:storageOffset() == g1:storageOffset()
          -- planned: one storage in the trace is one entry of the plan (two
          -- entries may sit at one offset of the arena at different times)
          local e, e1 = planned and planned[g], planned and planned[g1]
          if e and e1 then same = same and e == e1 end
          if not same then
            if planned then
              -- the plan gave each gradient its own slot: sharing them now
              -- would accumulate into a slot planned for the other module
              fail('%s.%s is another module\'s %s but has a gradient of its own, and it was made after the step '
                .. 'object (in a forward): its gradient cannot be tied to the other one\'s now; share the gradients '
                .. 'too (clone(\'weight\', \'bias\', \'gradWeight\', \'gradBias\'))', torch.type(m), pf, pf)
            end
            ties[#ties + 1] = {t = g, size = g:size(), stride = g:stride()}
            g:set(g1)
          end
        end
        grp.members[#grp.members + 1] = {module = m, field = pf, gradField = gf}
      end
    end
  end
  for _, grp in ipairs(list) do
    if #grp.members == 0 then
      fail('parameter %d (%s) is not the weight or bias field of a module: not supported', grp.index,
        table.concat(grp.param:size():totable(), 'x'))
    end
    grp.grad = grp.members[1].module[grp.members[1].gradField]
  end
  return list, ties
end

local Step = {}
Step.__index = Step

-- the input narrowed to its first two samples when it is batched (every
-- tensor of it of one size in its first dimension, 2D or more), else whole
local function fewSamples(input)
  local n, ok = nil, true
  walk.tensors(input, function(t)
    if t:dim() < 2 or (n and t:size(1) ~= n) then ok = false end
    n = n or (t:dim() > 0 and t:size(1) or 0)
  end)
  if not ok or not n or n <= 2 then return input end
  local function narrow(v)
    if torch.isTensor(v) then return v:narrow(1, 1, 2) end
    local r = {}
    for k, x in pairs(v) do r[k] = narrow(x) end
    return r
  end
  return narrow(input)
end

-- trainStep's own options; the others go to optimizeMemory
local STEP_OPTS = {method = true, config = true, state = true, maxNorm = true, twoPass = true, onGradReady = true,
                   onBackwardDone = true, deferUpdates = true, blockBytes = true}


-- optnet: the optnet table (init.lua); the rest as optnet.trainStep
function step.new(optnet, net, criterion, input, opts)
  if type(net) ~= 'table' or not torch.isTypeOf(net, 'nn.Module') then
    fail('nn.Module expected as argument 1, got %s', torch.type(net))
  end
  if type(criterion) ~= 'table' or not torch.isTypeOf(criterion, 'nn.Criterion') then
    fail('nn.Criterion expected as argument 2, got %s', torch.type(criterion))
  end
  if opts ~= nil and type(opts) ~= 'table' then fail('options table expected as argument 4, got %s', type(opts)) end
  opts = opts or {}
  local name = methodName(opts.method or 'sgd')
  local config = opts.config or {}
  checkConfig(name, config)
  if opts.maxNorm ~= nil and (type(opts.maxNorm) ~= 'number' or not (opts.maxNorm > 0)) then
    fail("option 'maxNorm' must be a number > 0, got %s", tostring(opts.maxNorm))
  end
  for _, k in ipairs{'onGradReady', 'onBackwardDone'} do
    if opts[k] ~= nil and type(opts[k]) ~= 'function' then
      fail("option '%s' must be a function, got %s", k, torch.type(opts[k]))
    end
  end
  if opts.twoPass ~= nil and type(opts.twoPass) ~= 'boolean' then
    fail("option 'twoPass' must be a boolean, got %s", torch.type(opts.twoPass))
  end
  if opts.deferUpdates ~= nil and type(opts.deferUpdates) ~= 'boolean' then
    fail("option 'deferUpdates' must be a boolean, got %s", torch.type(opts.deferUpdates))
  end
  if opts.blockBytes ~= nil and opts.blockBytes ~= false
     and (math.type(opts.blockBytes) ~= 'integer' or opts.blockBytes < 1) then
    fail("option 'blockBytes' must be a positive integer or false, got %s", tostring(opts.blockBytes))
  end
  if opts.blockBytes and (opts.twoPass or opts.maxNorm ~= nil or opts.onGradReady or opts.deferUpdates) then
    fail("option 'blockBytes' updates a Linear's weight block by block in backward, its gradient never whole: "
      .. "not with 'twoPass', 'maxNorm', 'onGradReady' or 'deferUpdates', which need each gradient whole")
  end
  if opts.deferUpdates and (opts.twoPass or opts.maxNorm ~= nil or not opts.onGradReady) then
    fail("option 'deferUpdates' needs an 'onGradReady' (which takes each gradient away) and no 'twoPass' or 'maxNorm'")
  end
  local twoPass = opts.twoPass or opts.maxNorm ~= nil
  local planOpts = {}
  for k, v in pairs(opts) do
    if not STEP_OPTS[k] then
      if not optnet._isOption(k) or k == 'planGrads' or k == 'clipGrads' then fail("unknown option '%s'", tostring(k)) end
      planOpts[k] = v
    end
  end
  if planOpts.mode ~= nil and planOpts.mode ~= 'training' then
    fail("a training step plans mode = 'training', got mode = '%s'", tostring(planOpts.mode))
  end
  planOpts.mode, planOpts.planGrads, planOpts.clipGrads = 'training', true, twoPass
  if of[net] then
    step.unblock(of[net])
    of[net].dead = true
  end
  local self = setmetatable({net = net, criterion = criterion, method = name, config = config, planOpts = planOpts,
                             maxNorm = opts.maxNorm, onGradReady = opts.onGradReady, twoPass = twoPass,
                             onBackwardDone = opts.onBackwardDone, deferUpdates = opts.deferUpdates,
                             states = opts.state or {}, optnet = optnet}, Step)
  if type(self.states) ~= 'table' then fail("option 'state' must be a table, got %s", torch.type(self.states)) end
  self.groups, self.ties = groups(net)
  -- the whole gradient at once (onGradReady, two passes) or none (deferred): no blocks
  local limit = opts.blockBytes
  self.blocked = {}
  if limit then
    -- a module made in forward (a Recurrence's time-step clone) holds its
    -- step's weight too: such a weight stays whole, so the blocks are chosen
    -- after a trace at a sample or two has made those modules
    local modules = walk.modules(net)
    local restore = optnet._snapshotState(modules)
    -- (a net that cannot run two samples, a View of a fixed batch, is
    -- traced at its own; one that fails there too fails in the plan below,
    -- which says why)
    local few = fewSamples(input)
    local run = require('optnet.trace').run
    if not pcall(run, net, few, 'training', true) and few ~= input then pcall(run, net, input, 'training', true) end
    restore()
    if #walk.modules(net) ~= #modules then
      local list, ties = groups(net)
      self.groups = list
      for _, t in ipairs(ties) do self.ties[#self.ties + 1] = t end
    end
    step.block(self, limit)
  end
  of[net] = self
  local ok, err = pcall(optnet.optimizeMemory, net, input, planOpts)
  if not ok then
    of[net] = nil
    step.untie(self)
    error(err, 0)
  end
  return self
end

-- Row blocks: a Linear's gradWeight (out x in) is gradOutput^T x input, and
-- rows r0..r1 of it are gradOutput[:, r0..r1]^T x input: the same dot
-- products over the batch, element by element. So a big Linear's weight
-- gradient is made and applied a block of rows at a time: its gradWeight is
-- one block (rows x in) for as long as the step drives the net, planned in
-- the arena at that size; each block is accumulated into it, the rows of
-- the weight (and of the optimizer's state) updated, and the block reused.
-- The gradient never exists whole (VGG's first FC layer: 392 MiB).
-- gradBias is made whole, a slice per block, and updated as usual.
local C = torch._C.nn

-- the update of rows r0 .. r0 + n - 1 of grp's parameter from g (n rows):
-- optim's function on views of those rows of the parameter and of its
-- state. A state field the step began without is made by the first block
-- (the optimizer's own first-step arithmetic, e.g. sgd's momentum starting
-- at the gradient), kept whole, and every other block sees it absent too;
-- counters (t, evalCounter) advance once per step, with the last block.
local function updateRows(self, grp, r0, n, g, first, last)
  local st = self.states[grp.index]
  if not st then st = {}; self.states[grp.index] = st end
  local P = grp.param
  if first then
    grp.had = {}
    for k, v in pairs(st) do
      if torch.isTensor(v) and v:isSameSizeAs(P) then grp.had[k] = true end
    end
  end
  local sub, views = {}, {}
  for k, v in pairs(st) do
    if not torch.isTensor(v) then sub[k] = v
    elseif grp.had[k] then sub[k] = v:narrow(1, r0, n); views[k] = sub[k] end
  end
  step._update(self, grp, P:narrow(1, r0, n), g, nil, sub)
  for k, v in pairs(sub) do
    if torch.isTensor(v) then
      if v ~= views[k] then
        -- made by this block (or replaced by the optimizer): into the whole
        if not (torch.isTensor(st[k]) and st[k]:isSameSizeAs(P)) then st[k] = v.new(P:size()):zero() end
        st[k]:narrow(1, r0, n):copy(v)
        -- the block's own copy is garbage now: freed at once, not when the
        -- collector comes (VGG-A's first step left 470 MiB of them)
        if v:_storageId() ~= g:_storageId() and v:_storageId() ~= P:_storageId() then v:free() end
      end
    elseif last then
      st[k] = v
    end
  end
end

-- a hook that takes the place of a blocked Linear's accGradParameters (its
-- class's method is never called: nextf is not)
local function blockedAcc(self, b)
  local grp, rows = b.grp, b.rows
  return function(_, mod, input, gradOutput, scale)
    scale = scale or 1
    mod.addBuffer = mod.addBuffer or mod.weight.new()
    local gw, gb, out = mod.gradWeight, mod.gradBias, mod.weight:size(1)
    local d = input:dim() == 2 and 2 or 1
    if not torch.isTensor(gradOutput) or gradOutput:dim() ~= d or gradOutput:size(d) ~= out then
      error(string.format('nn.Linear:accGradParameters: gradOutput of %d columns expected, got %s', out,
        torch.isTensor(gradOutput) and table.concat(gradOutput:size():totable(), 'x') or torch.type(gradOutput)), 2)
    end
    -- a trace (optnet's planning: scale 0) sees one block
    local last = self.running and out or 1
    for r0 = 1, last, rows do
      local n = math.min(rows, out - r0 + 1)
      local g = gw:narrow(1, 1, n)
      g:zero()
      C.linear_accGradParameters(mod, input, gradOutput:narrow(d, r0, n), g, gb and gb:narrow(1, r0, n),
                                 mod.addBuffer, scale)
      if self.running then updateRows(self, grp, r0, n, g, r0 == 1, r0 + n > out) end
    end
  end
end

-- chooses the Linears to block (each weight held by that module alone) and
-- gives their gradWeight the size of one block
function step.block(self, limit)
  for _, grp in ipairs(self.groups) do
    local mb = grp.members[1]
    local m = mb.module
    if #grp.members == 1 and mb.field == 'weight' and torch.type(m) == 'nn.Linear' and grp.param:dim() == 2 then
      local g = m.gradWeight
      local rowBytes = g:_storageBytes() // math.max(1, g:storage():size()) * g:size(2)
      local rows = math.max(1, limit // rowBytes)
      if rows < g:size(1) then
        local b = {module = m, grp = grp, rows = rows}
        grp.rowBlocked = true
        g:_setLimit(0)
        g:set(g.new(rows, g:size(2)):zero())
        -- plain data that travels with the module (clone, save): its
        -- gradWeight is a block of this many rows, which torch.load's
        -- checks accept and every copy makes whole again (step.wholeGrads)
        rawset(m, '_optnetRows', rows)
        b.hook = m:hook('accGradParameters', blockedAcc(self, b))
        self.blocked[#self.blocked + 1] = b
      end
    end
  end
end

-- the blocked Linears as they were: gradWeight whole (zero), their own accGradParameters
function step.unblock(self)
  for _, b in ipairs(self.blocked or {}) do
    local m = b.module
    b.hook:remove()
    m.gradWeight:_setLimit(0)
    m.gradWeight:set(m.weight.new(m.weight:size()):zero())
    rawset(m, '_optnetRows', nil)
    b.grp.rowBlocked = nil
  end
  self.blocked = {}
end

-- a copy of a net the step drove (clone, type, load; optnet's attach and
-- strip): each Linear made in row blocks gets its whole gradWeight back
-- (zero), as a plain net holds it
function step.wholeGrads(modules)
  for _, m in ipairs(modules) do
    local w, gw = rawget(m, 'weight'), rawget(m, 'gradWeight')
    if rawget(m, '_optnetRows') ~= nil or (torch.type(m) == 'nn.Linear' and torch.isTensor(w)
        and torch.isTensor(gw) and gw:nElement() > 0 and not gw:isSameSizeAs(w)) then
      if torch.isTensor(w) and torch.isTensor(gw) then
        gw:_setLimit(0)
        gw:set(w.new(w:size()):zero())
      end
      rawset(m, '_optnetRows', nil)
    end
  end
end

-- the grads tied by groups() get private memory again (zeroed), the
-- blocked Linears their whole gradWeight
function step.untie(self)
  step.unblock(self)
  for _, t in ipairs(self.ties) do
    t.t:set(t.t.new(t.size):zero())
  end
  self.ties = {}
end

-- whether a live training step drives net (planGrads needs one)
function step.has(net)
  local self = of[net]
  return self ~= nil and not self.dead
end

-- the hooks of a planned state (init.lua's optimize, after rebind): each
-- module holding a parameter zeroes a gradient before its first
-- accumulation of the pass and updates the parameter after its last; the
-- net's backward is refused outside step(); getParameters is refused
function step.attach(net, state, rec)
  local self = of[net]
  if not self or self.dead then
    error('optnet: a net planned with planGrads needs its optnet.trainStep (make one with optnet.trainStep)', 0)
  end
  -- the groups again from the modules the plan covers: a module made
  -- during the trace (thrnn.Recurrence's clone for a longer sequence, made
  -- after the step object) holds a parameter too, and accumulates into its
  -- gradient; left out, the first module wrapped would zero what it added
  local blocked = {}
  for _, b in ipairs(self.blocked) do blocked[b.module] = b end
  local entryOf = {}
  for _, b in ipairs(state.bindings or {}) do entryOf[b.t] = b.entry end
  self.groups = groups(net, state.modules, entryOf, blocked)
  for _, b in ipairs(self.blocked) do self.groups[b.grp.index].rowBlocked = true end
  -- accumulations per group and pass, as the trace saw them
  local groupsOf = {}
  for _, grp in ipairs(self.groups) do
    grp.n = 0
    for _, mb in ipairs(grp.members) do
      groupsOf[mb.module] = groupsOf[mb.module] or {}
      table.insert(groupsOf[mb.module], grp)
    end
  end
  for _, st in ipairs(rec.steps) do
    if st.kind == 'gradient' then
      for _, grp in ipairs(groupsOf[st.module] or {}) do grp.n = grp.n + 1 end
    end
  end
  for _, grp in ipairs(self.groups) do
    if grp.rowBlocked and grp.n ~= 1 then
      error(string.format('optnet.trainStep: parameter %d (a Linear\'s weight made in row blocks) is accumulated '
        .. '%d times in a backward: pass blockBytes = false', grp.index, grp.n), 0)
    end
  end
  local hooks = {}
  for m, list in pairs(groupsOf) do
    hooks[#hooks + 1] = m:hook('accGradParameters', function(agp, mod, input, gradOutput, scale)
      if not self.running then return agp(mod, input, gradOutput, scale) end
      for _, grp in ipairs(list) do
        -- its slot held other tensors until now
        if grp.seen == 0 then grp.grad:zero() end
      end
      agp(mod, input, gradOutput, scale)
      -- the module's last parameter first (bias before weight): backward
      -- order, in which dataparallel.step's buckets fill
      for k = #list, 1, -1 do
        local grp = list[k]
        grp.seen = grp.seen + 1
        if grp.seen == grp.n then self:_ready(grp) end
      end
    end)
  end
  hooks[#hooks + 1] = net:hook('backward', function(bw, n, ...)
    -- a trace (optnet.report) runs backward with scale 0: it changes no
    -- gradient that is read (the next step zeroes each before use)
    if not self.running and require('optnet.trace').active == 0 then
      error(string.format("%s:backward: the net is optimized by optnet.trainStep: its gradients live only inside "
        .. "step:step(input, target); call that (or optnet.removeOptimization(net) first)", torch.type(n)), 2)
    end
    return bw(n, ...)
  end)
  hooks[#hooks + 1] = net:hook('getParameters', function(_, n)
    error(string.format('%s:getParameters: the net is optimized by optnet.trainStep (its gradients are planned '
      .. 'in the activation arena); call optnet.removeOptimization(net) first', torch.type(n)), 2)
  end)
  state.step = {hooks = hooks}
  self.state = state
end

-- undoes attach's hooks (first thing in optnet's remove) and zeroes the
-- gradients, which the arena shared with other tensors
function step.detach(net, state)
  local hooks = state.step.hooks
  for i = #hooks, 1, -1 do hooks[i]:remove() end
  state.step = nil
end

function step.zeroGrads(net)
  local self = of[net]
  if not self then return end
  for _, grp in ipairs(self.groups) do
    for _, mb in ipairs(grp.members) do
      local g = mb.module[mb.gradField]
      if g:nElement() > 0 then g:zero() end
    end
  end
end

-- removeOptimization: the ties undone, the net forgotten
function step.forget(net)
  local self = of[net]
  if not self then return end
  step.untie(self)
  self.dead = true
  of[net] = nil
end

-- one parameter's update (its gradient complete, clipped if asked); p and
-- g, when given, stand for the parameter and its gradient (a slice of the
-- parameter, a reduced copy of the gradient: dataparallel.step)
local function update(self, grp, p, g, key, st)
  key = key or grp.index
  st = st or self.states[key]
  if not st then st = {}; self.states[key] = st end
  local config = self.config
  p, g = p or grp.param, g or grp.grad
  local name = self.method
  if name == 'nag' then
    -- optim.nag's arithmetic after its look-ahead (made in step())
    local lr, lrd, wd, mom = config.learningRate or 1e-3, config.learningRateDecay or 0,
      config.weightDecay or 0, config.momentum or 0.9
    st.evalCounter = st.evalCounter or 0
    if wd ~= 0 then g:add(wd, p) end
    local clr = lr / (1 + st.evalCounter * lrd)
    if st.dfdx then st.dfdx:mul(mom) else st.dfdx = p.new():resizeAs(g):zero() end
    p:add(-clr, g)
    st.dfdx:add(-clr, g)
    st.evalCounter = st.evalCounter + 1
    return
  end
  if name == 'adam' then st.denom = g end
  local scratch = SCRATCH[name]
  if scratch then
    for _, f in ipairs(scratch) do
      local sizes = p:size():totable()
      if name == 'adamax' then table.insert(sizes, 1, 2) end
      local n = 1
      for _, d in ipairs(sizes) do n = n * d end
      local buf = self.scratch[f]
      if not buf or buf:nElement() < n then
        buf = p.new(n)
        self.scratch[f] = buf
      end
      st[f] = p.new():set(buf:storage(), buf:storageOffset(), torch.LongStorage(sizes))
    end
  end
  optim[name](function() return self.loss, g end, p, config, st)
  if name == 'adam' then st.denom = nil end
  if scratch then for _, f in ipairs(scratch) do st[f] = nil end end
end

step._update = update

function Step:_ready(grp)
  -- a Linear's weight in row blocks: updated block by block in its accGradParameters
  if grp.rowBlocked then
    grp.updated = true
    return
  end
  if self.onGradReady then self.onGradReady(grp.index, grp.grad, grp.param) end
  if self.twoPass then return end
  if self.deferUpdates then
    -- onGradReady took the gradient (its arena slot is free from here);
    -- the owner calls step:update later
    grp.updated = true
    return
  end
  update(self, grp)
  grp.updated = true
end

function Step:_check()
  if self.dead or of[self.net] ~= self then
    error('optnet.trainStep: this step object no longer drives its net (the net was optimized again, or its '
      .. 'optimization removed); make a new one with optnet.trainStep', 3)
  end
  local st = self.optnet._state(self.net)
  if not st or not st.opts.planGrads then
    error('optnet.trainStep: the net is no longer planned for a training step; make a new one with optnet.trainStep', 3)
  end
  for _, grp in ipairs(self.groups) do
    for _, mb in ipairs(grp.members) do
      local p, g = rawget(mb.module, mb.field), rawget(mb.module, mb.gradField)
      if not (torch.isTensor(p) and p:_storageId() == grp.param:_storageId() and torch.isTensor(g)
              and g:_storageId() == grp.grad:_storageId()) then
        error(string.format('optnet.trainStep: %s.%s is no longer the tensor this step updates (the net was '
          .. 'converted or its parameters replaced); make a new one with optnet.trainStep', torch.type(mb.module),
          mb.field), 3)
      end
    end
  end
end

-- whether the net's modules are no longer those its plan covers (a
-- Recurrence's clearState drops its time-step clones; its next forward
-- makes new ones, which no plan saw and no hook of the step is on)
local function modulesChanged(net, st)
  local now, planned = walk.modules(net), st.modules
  if #now ~= #planned then return true end
  for i, m in ipairs(now) do
    if m ~= planned[i] then return true end
  end
  return false
end

-- one training step: forward, loss, backward with each parameter updated
-- as its gradient completes (with maxNorm: all after backward, scaled by
-- min(1, maxNorm / global norm)). Returns the loss and the net's output.
function Step:step(input, target)
  self:_check()
  self.scratch = self.scratch or {}
  local net, crit = self.net, self.criterion
  if modulesChanged(net, self.optnet._state(net)) then
    -- planned again (the trace makes the modules again): the groups with them
    self.optnet.optimizeMemory(net, input, self.planOpts)
  end
  if self.method == 'nag' then
    -- optim.nag's look-ahead: the gradient is taken at x + momentum * dfdx
    local mom = self.config.momentum or 0.9
    for _, grp in ipairs(self.groups) do
      local st = self.states[grp.index]
      if st and st.dfdx then grp.param:add(mom, st.dfdx) end
    end
  end
  local out = net:forward(input)
  -- a forward at a new shape plans again (and attaches again): the groups' counts are the new plan's
  for _, grp in ipairs(self.groups) do grp.seen, grp.updated = 0, false end
  self.loss = crit:forward(out, target)
  local gradOut = crit:backward(out, target)
  self.running = true
  local ok, err = pcall(net.backward, net, input, gradOut)
  self.running = false
  if not ok then error(err, 0) end
  -- a parameter whose modules accumulate nothing in backward (the trace
  -- saw no accumulation) is updated as the plain loop updates it: with a
  -- zero gradient, after backward (its gradient is not planned)
  for _, grp in ipairs(self.groups) do
    if grp.n == 0 then
      grp.grad:zero()
      self:_ready(grp)
    end
  end
  if self.twoPass then
    -- every gradient is complete and alive (planned to the pass's end)
    if self.onBackwardDone then self.onBackwardDone() end
    local factor
    if self.maxNorm then
      local sum = 0
      for _, grp in ipairs(self.groups) do
        local n = grp.grad:norm()
        sum = sum + n * n
      end
      local norm = math.sqrt(sum)
      self.lastNorm = norm
      factor = norm > self.maxNorm and self.maxNorm / norm or nil
    end
    for _, grp in ipairs(self.groups) do
      if grp.seen == grp.n and not grp.updated then
        if factor then grp.grad:mul(factor) end
        update(self, grp)
        grp.updated = true
      end
    end
  end
  for _, grp in ipairs(self.groups) do
    if not grp.updated then
      error(string.format('optnet.trainStep: parameter %d got %d gradient accumulations in this backward, the '
        .. 'plan expected %d: not updated', grp.index, grp.seen, grp.n), 2)
    end
  end
  return self.loss, out
end

-- step:update(i, grad [, param [, key]]): with deferUpdates, parameter
-- group i's update by the optimizer with grad (its gradient, e.g. averaged
-- across ranks), on param (default the whole parameter; a view of it
-- updates that part only, with the optimizer state stored under key, one
-- per part). grad is overwritten (adam uses it as scratch). The nag
-- look-ahead is the caller's.
function Step:update(i, grad, param, key)
  local grp = self.groups[i]
  if not grp then
    error(string.format('step:update: parameter group 1..%d expected, got %s', #self.groups, tostring(i)), 2)
  end
  param = param or grp.param
  if not torch.isTensor(grad) or grad:nElement() ~= param:nElement() then
    error(string.format('step:update: a gradient of %d elements expected, got %s', param:nElement(),
      torch.isTensor(grad) and grad:nElement() .. ' elements' or torch.type(grad)), 2)
  end
  self.scratch = self.scratch or {}
  update(self, grp, param, grad:view(param:size()), key)
end

-- bytes of the optimizer's state tensors (each storage once) and of its scratch
function step.stateBytes(net)
  local self = of[net]
  if not self then return 0 end
  local seen, n = {}, 0
  local function add(t)
    local id = t:_storageId()
    if id and not seen[id] then
      seen[id] = true
      n = n + t:_storageBytes()
    end
  end
  for _, st in pairs(self.states) do walk.tensors(st, add) end
  for _, t in pairs(self.scratch or {}) do add(t) end
  return n
end

function Step:remove()
  return self.optnet.removeOptimization(self.net)
end

return step
