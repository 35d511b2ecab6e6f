-- nn.Module: the base class of every module, with Torch7's fields and methods.
--
-- Invariants every module keeps (the memory optimizer relies on them):
-- - 'output' and 'gradInput' are created once and afterwards only resized or
--   :set(); a module never replaces them by other tensor objects (containers
--   alias their children's tensors, which is the same rule seen from above);
-- - buffers live in named fields (finput, indices, ...) and memoryTraits()
--   says when each one is needed;
-- - a module is a plain table of fields with its class as metatable: no
--   closures, so torch.save/torch.load and clone() copy it field by field.
--   Behaviour attached to one module (optnet's tracing, a user's probe) is
--   a hook (Module:hook), kept outside the fields, never an assigned method.

require 'nn.utils'
local torch = torch
local nn = nn
local utils = nn.utils

local Module = torch.class('nn.Module')

function Module:__init()
  self.gradInput = torch.Tensor()
  self.output = torch.Tensor()
  self._type = self.output:type()
end

-- { weights }, { gradients } in a fixed order, or nothing
function Module:parameters()
  if self.weight and self.bias then
    return {self.weight, self.bias}, {self.gradWeight, self.gradBias}
  elseif self.weight then
    return {self.weight}, {self.gradWeight}
  elseif self.bias then
    return {self.bias}, {self.gradBias}
  end
end

function Module:updateOutput(input)
  return self.output
end

-- runs after the constructor and after torch.load: the module owns its tensors
function Module:__postinit()
  utils.own(self)
  -- a module loaded with a memory plan gets it back in force (utils.derived)
  utils.derived(self, 'load')
end

-- torch.load calls this on a module read from a file, before __postinit:
-- raises "<class>: field '<name>' ..." when a field is missing, of the
-- wrong type or of the wrong size (the rules are data, in nn/validate.lua)
function Module:__validate()
  return require('nn.validate').check(self)
end

-- errors are raised at the user's call, not at a line of the module's file (utils.rethrow)
local function backward(self, input, gradOutput, scale)
  self:updateGradInput(input, gradOutput)
  self:accGradParameters(input, gradOutput, scale)
  return self.gradInput
end

function Module:forward(input)
  local _ <close> = utils.ownGuard(self, 'forward')
  local ok, out = pcall(self.updateOutput, self, input)
  if not ok then utils.rethrow(out) end
  return out
end

function Module:backward(input, gradOutput, scale)
  local _ <close> = utils.ownGuard(self, 'backward')
  local ok, gi = pcall(backward, self, input, gradOutput, scale or 1)
  if not ok then utils.rethrow(gi) end
  return gi
end

function Module:backwardUpdate(input, gradOutput, lr)
  local _ <close> = utils.ownGuard(self, 'backward')
  self:updateGradInput(input, gradOutput)
  self:accUpdateGradParameters(input, gradOutput, lr)
  return self.gradInput
end

function Module:updateGradInput(input, gradOutput)
  return self.gradInput
end

function Module:accGradParameters(input, gradOutput, scale)
end

-- w -= lr * dE/dw. A module whose weights are shared (share(), clone(...))
-- goes through sharedAccUpdateGradParameters (a flag, not a function field:
-- modules stay plain data); others take the direct update.
-- 'inShared' holds the modules whose shared variant is running: a shared
-- variant that comes back here (Torch7's older idiom
-- 'Foo.sharedAccUpdateGradParameters = Foo.accUpdateGradParameters', which
-- otherwise calls itself forever) gets the direct update.
local inShared = setmetatable({}, {__mode = 'k'})
local leaveShared = {__close = function(g) inShared[g[1]] = nil end}

function Module:accUpdateGradParameters(input, gradOutput, lr)
  if self._sharedParameters and not inShared[self] then
    inShared[self] = true
    local _ <close> = setmetatable({self}, leaveShared)
    self:sharedAccUpdateGradParameters(input, gradOutput, lr)
    return
  end
  self:defaultAccUpdateGradParameters(input, gradOutput, lr)
end

-- the direct update (Torch7's name): accGradParameters with the weights in
-- place of the gradients and scale -lr; right for a module whose
-- accGradParameters only adds into gradWeight/gradBias, shared or not. The
-- gradient fields are put back also on error (left pointing at the weights,
-- a later zeroGradParameters would zero them).
local restoreGrads = {__close = function(g) g[1].gradWeight, g[1].gradBias = g[2], g[3] end}

function Module:defaultAccUpdateGradParameters(input, gradOutput, lr)
  local _ <close> = setmetatable({self, self.gradWeight, self.gradBias}, restoreGrads)
  self.gradWeight, self.gradBias = self.weight, self.bias
  self:accGradParameters(input, gradOutput, -lr)
end

-- the shared-weights variant: goes through the gradients, since the
-- weights may be shared with modules that have not used them yet
function Module:sharedAccUpdateGradParameters(input, gradOutput, lr)
  if self:parameters() then
    self:zeroGradParameters()
    self:accGradParameters(input, gradOutput, 1)
    self:updateParameters(lr)
  end
end

function Module:zeroGradParameters()
  local _, gradParams = self:parameters()
  if gradParams then
    for i = 1, #gradParams do gradParams[i]:zero() end
  end
end

function Module:updateParameters(learningRate)
  local params, gradParams = self:parameters()
  if params then
    for i = 1, #params do params[i]:add(-learningRate, gradParams[i]) end
  end
end

function Module:training()
  self.train = true
  return self
end

function Module:evaluate()
  self.train = false
  return self
end

-- self.<field> becomes a view of mlp.<field> for each field name given
function Module:share(mlp, ...)
  for _, v in ipairs({...}) do
    if self[v] ~= nil then
      if not torch.isTensor(mlp[v]) then
        error(string.format("%s:share: field '%s' of the module to share with is %s, not a tensor",
                            torch.type(self), v, torch.type(mlp[v])), 2)
      end
      self[v]:set(mlp[v])
      self._sharedParameters = true
      mlp._sharedParameters = true
    end
  end
  return self
end

-- whether an object of class metatable 'mt' saves itself through its own
-- write/read (or __write/__read), found on its class or an ancestor
local function customRW(mt)
  return mt.__write ~= nil or mt.write ~= nil or mt.__read ~= nil or mt.read ~= nil
end

-- whether anything reachable from 'root' (through tables: keys, values,
-- metatables of torch classes) is an object whose class has its own
-- write/read. Tensors, storages and other C objects are not tables.
local function reachesCustomRW(root)
  local seen, stack = {[root] = true}, {root}
  while #stack > 0 do
    local t = stack[#stack]
    stack[#stack] = nil
    local mt = getmetatable(t)
    if type(mt) == 'table' and rawget(mt, '__typename') ~= nil and customRW(mt) then return true end
    for k, v in next, t do
      if type(k) == 'table' and not seen[k] then seen[k] = true; stack[#stack + 1] = k end
      if type(v) == 'table' and not seen[v] then seen[v] = true; stack[#stack + 1] = v end
    end
  end
  return false
end

-- deep copy (internal sharing and cycles kept); with field names, the clone
-- shares those fields with the original. As Torch7's, a clone is what
-- writeObject then readObject give: when some object below defines its
-- own write/read (dpnn's nn.Serial, nn.WeightNorm), the copy goes through
-- a MemoryFile so that they run; otherwise a direct copy gives the same
-- result without the bytes.
function Module:clone(...)
  local c
  if reachesCustomRW(self) then
    local f = torch.MemoryFile('rw'):binary()
    f:writeObject(self)
    f:seek(1)
    c = f:readObject()
    f:close()
  else
    c = utils.deepCopy(self)
  end
  if select('#', ...) > 0 then c:share(self, ...) end
  utils.derived(c, 'clone', true)
  return utils.own(c)
end

function Module:type(tname, tensorCache)
  if not tname then return self._type end
  if not torch._tensortypes[tname] then
    error(string.format("%s:type: tensor type name expected (e.g. 'torch.FloatTensor'), got %s",
                        torch.type(self), tostring(tname)), 2)
  end
  tname = utils.canonicalType(tname)
  -- the outermost call (no cache yet) sees the whole net converted
  local outermost = tensorCache == nil
  tensorCache = tensorCache or {}
  for key, param in pairs(self) do
    self[key] = utils.recursiveType(param, tname, tensorCache)
  end
  self._type = tname
  if outermost then utils.derived(self, 'type', true) end
  return utils.own(self)
end

function Module:float(...) return self:type('torch.FloatTensor', ...) end
function Module:double(...) return self:type('torch.DoubleTensor', ...) end

-- Torch7's nn has Module:cuda for cunn. Without the CUDA stand-in it says
-- where to look; once cutorch's stand-in is required (docs/cuda.md) it is
-- self:type('torch.CudaTensor'), and cunn puts its own definition in place.
function Module:cuda(...)
  if not torch._tensortypes['torch.CudaTensor'] then
    error(string.format('%s: this engine is CPU-only; see docs/cuda.md (TH_CUDA_STANDIN=1 runs cunn scripts on the CPU)',
                        'nn.Module:cuda'), 2)
  end
  return self:type('torch.CudaTensor', ...)
end

function Module:reset()
end

-- Memory traits for the optimizer: buffers maps a field name to when it is
-- needed ('forward', 'backward' or 'both'); needsInput/needsOutput say
-- whether backward reads the module's input/output; inplace names the
-- constructor flag field when the module can run in place. The default is
-- the conservative answer. A buffer is sized by what it holds when the
-- method returns: a method that shrinks a buffer within a call (a chain of
-- reductions ping-ponging between two buffers) resizes it back to the most
-- it held before returning (nn.CMul), else the optimizer plans a slot too
-- small for it (then an error at the next call, never an overlap).
function Module:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = true}
end

-- Whether the optimizer may turn on the in-place flag that memoryTraits()
-- .inplace names: true, or false and the reason. The module answers from its
-- own invariants and current fields (Threshold: value <= threshold, so that
-- backward can still tell from the overwritten input which elements
-- passed); the optimizer checks only that nothing else reads what the
-- module would overwrite. In place, a module's backward writes its
-- gradInput over its gradOutput unless memoryTraits().writesGradOutput is
-- false (it hands the gradOutput storage on as gradInput: CAddTable). The
-- default is no: a module that does not answer is never switched.
function Module:inplaceAllowed()
  return false, torch.type(self) .. ' does not say it may run in place (it defines no inplaceAllowed)'
end

-- empties output, gradInput and the buffers memoryTraits() names
function Module:clearState()
  local fields = {'output', 'gradInput'}
  local ok, traits = pcall(self.memoryTraits, self)
  if ok and type(traits) == 'table' and type(traits.buffers) == 'table' then
    for name in pairs(traits.buffers) do fields[#fields + 1] = name end
  end
  return utils.clear(self, fields)
end

-- --- names ----------------------------------------------------------------

function Module:setName(name)
  if type(name) ~= 'string' or name == '' or name:find('.', 1, true) then
    error(string.format("%s:setName: non-empty name without '.' expected, got %s",
                        torch.type(self), type(name) == 'string' and ("'" .. name .. "'") or torch.type(name)), 2)
  end
  self.name = name
  return self
end

function Module:getName()
  return self.name
end

-- the key a child is known by in paths: its name, else its 1-based index
local function childKey(child, i)
  return type(child.name) == 'string' and child.name or tostring(i)
end

local function join(prefix, key)
  return prefix == '' and key or (prefix .. '.' .. key)
end

-- { ["3.weight"] = tensor, ... }, { ["3.weight"] = gradient, ... }: paths
-- through the containers, named children using their name for the index
function Module:namedParameters()
  local params, grads = {}, {}
  local function walk(m, prefix)
    if type(m.modules) == 'table' then
      for i, child in ipairs(m.modules) do walk(child, join(prefix, childKey(child, i))) end
      return
    end
    local p, g = m:parameters()
    if not p then return end
    for i, t in ipairs(p) do
      local field
      for k, v in pairs(m) do
        if rawequal(v, t) and type(k) == 'string' then
          if field == nil or k < field then field = k end
        end
      end
      local key = join(prefix, field or tostring(i))
      params[key] = t
      if g then grads[key] = g[i] end
    end
  end
  walk(self, '')
  return params, grads
end

-- { ["2"] = module, ["2.1"] = module, ... } for every module below self
function Module:namedModules()
  local mods = {}
  local function walk(m, prefix)
    if type(m.modules) ~= 'table' then return end
    for i, child in ipairs(m.modules) do
      local key = join(prefix, childKey(child, i))
      mods[key] = child
      walk(child, key)
    end
  end
  walk(self, '')
  return mods
end

-- --- flattening -------------------------------------------------------------

-- storage elements a tensor spans from its first element (0 when empty)
local function extent(t)
  if t:nElement() == 0 then return 0 end
  local e = 1
  for i = 1, t:dim() do e = e + (t:size(i) - 1) * t:stride(i) end
  return e
end

local function checkSameType(list, who)
  local tname = torch.type(list[1])
  for k = 1, #list do
    if not torch.isTensor(list[k]) then
      error(string.format('%s: parameter %d is %s, not a tensor', who, k, torch.type(list[k])), 3)
    end
    if torch.type(list[k]) ~= tname then
      error(string.format('%s: all parameters must have one type, got %s (parameter 1) and %s (parameter %d)',
                          who, tname, torch.type(list[k]), k), 3)
    end
  end
end

-- The layout of 'parameters' in one flat storage: the storages they use, in
-- order of first appearance, each reduced to the regions the tensors cover
-- (holes between tensors dropped, as Torch7 compacts them) and placed one
-- after another. Returns the total size, the new 1-based storage offset of
-- each tensor, and the list of {storage, start0, len, flatStart0} copies.
local function layout(parameters)
  local order, byStorage = {}, {}
  for k = 1, #parameters do
    local p = parameters[k]
    local s = p:storage()
    if s and p:nElement() > 0 then
      local e = byStorage[s]
      if not e then
        e = {storage = s, intervals = {}}
        byStorage[s] = e
        order[#order + 1] = e
      end
      local a = p:storageOffset() - 1
      e.intervals[#e.intervals + 1] = {a, a + extent(p)}
    end
  end
  local total, copies = 0, {}
  for _, e in ipairs(order) do
    table.sort(e.intervals, function(x, y) return x[1] < y[1] end)
    local regions = {}
    for _, iv in ipairs(e.intervals) do
      local last = regions[#regions]
      if last and iv[1] <= last[2] then
        if iv[2] > last[2] then last[2] = iv[2] end
      else
        regions[#regions + 1] = {iv[1], iv[2]}
      end
    end
    for _, r in ipairs(regions) do
      copies[#copies + 1] = {storage = e.storage, start = r[1], len = r[2] - r[1], flat = total}
      r[3] = total
      total = total + (r[2] - r[1])
    end
    e.regions = regions
  end
  local offsets = {}
  for k = 1, #parameters do
    local p = parameters[k]
    local e = p:storage() and byStorage[p:storage()]
    if e then
      local a = p:storageOffset() - 1
      for _, r in ipairs(e.regions) do
        if a >= r[1] and a < r[2] then offsets[k] = r[3] + (a - r[1]) + 1 break end
      end
    end
  end
  return total, offsets, copies, order
end

-- whether the elements of t fill one block of its storage with no gaps, in
-- some order of its dimensions (a transpose is compact, a column of a matrix
-- is not); expanded dimensions (stride 0) do not count
local function isCompact(t)
  local dims = {}
  for d = 1, t:dim() do
    if t:stride(d) > 0 and t:size(d) > 1 then dims[#dims + 1] = {t:size(d), t:stride(d)} end
  end
  table.sort(dims, function(x, y) return x[2] < y[2] end)
  local expect = 1
  for _, d in ipairs(dims) do
    if d[2] ~= expect then return false end
    expect = expect * d[1]
  end
  return true
end

-- As Torch7: parameters that leave storage elements unused can be gathered
-- (the holes are dropped) only when each tensor is compact; otherwise the
-- flat tensor could not give each of them a view. Only checked when some
-- tensor is not compact (rare), as it marks every element.
local function checkGatherable(parameters, who)
  local k0
  for k = 1, #parameters do
    if parameters[k]:nElement() > 0 and not isCompact(parameters[k]) then k0 = k break end
  end
  if not k0 then return end
  local masks, total = {}, 0
  for k = 1, #parameters do
    local p = parameters[k]
    local s = p:storage()
    if s then
      if not masks[s] then
        masks[s] = torch.ByteTensor(#s):zero()
        total = total + #s
      end
      if p:nElement() > 0 then
        torch.ByteTensor():set(masks[s]:storage(), p:storageOffset(), p:size(), p:stride()):fill(1)
      end
    end
  end
  local used = 0
  for _, m in pairs(masks) do used = used + m:sum() end
  if used ~= total then
    error(string.format('%s: cannot gather tensors that are not compact (parameter %d, size %s, stride %s, '
                        .. 'leaves holes in its storage)', who, k0, utils.sizeString(parameters[k0]),
                        table.concat(parameters[k0]:stride():totable(), 'x')), 3)
  end
end

-- Torch7's Module.flatten: copies the tensors of 'parameters' into one
-- contiguous tensor and re-points each of them at its part of it; tensors
-- that shared storage share the flat one. When the tensors already cover one
-- storage exactly, that storage is returned as is (no copy), so flattening
-- twice gives the same tensor layout and the same memory.
function Module.flatten(parameters)
  if not parameters or #parameters == 0 then return torch.Tensor() end
  checkSameType(parameters, 'nn.Module.flatten')
  checkGatherable(parameters, 'nn.Module.flatten')
  local total, offsets, copies, order = layout(parameters)
  local Tensor = parameters[1].new
  if #order == 1 and #copies == 1 and copies[1].start == 0 and copies[1].len == #order[1].storage then
    return Tensor():set(order[1].storage, 1, {total})
  end
  local flat = Tensor(total)
  for _, c in ipairs(copies) do
    flat:narrow(1, c.flat + 1, c.len):copy(Tensor():set(c.storage, c.start + 1, {c.len}))
  end
  local fs = flat:storage()
  for k = 1, #parameters do
    local p = parameters[k]
    if offsets[k] then
      p:set(fs, offsets[k], p:size(), p:stride())
    elseif p:nElement() == 0 then
      p:set(fs, 1, p:size(), p:stride())
    end
  end
  return flat
end

-- gradients laid out exactly like their parameters in a flat tensor of the
-- same size: grads[k] goes where params[k] went (grads of shared weights
-- become shared, which is what the flat gradient vector means)
local function flattenLike(grads, params, flatP)
  checkSameType(grads, 'nn.Module:getParameters')
  local n = flatP:nElement()
  local Tensor = grads[1].new
  -- already laid out so (a second getParameters call): keep the memory
  local s = grads[1]:storage()
  local same = s ~= nil and #s == n
  for k = 1, #grads do
    local g, p = grads[k], params[k]
    if g:storage() ~= s or g:storageOffset() ~= p:storageOffset() or
       not g:isSameSizeAs(p) or (p:nElement() > 0 and not same) then
      same = false
      break
    end
    for d = 1, p:dim() do
      if g:stride(d) ~= p:stride(d) then same = false break end
    end
    if not same then break end
  end
  if same then return Tensor():set(s, 1, {n}) end
  local flat = Tensor(n):zero()
  local fs = flat:storage()
  local views = {}
  for k = 1, #grads do
    local p = params[k]
    views[k] = Tensor():set(fs, p:storageOffset(), p:size(), p:stride())
    if views[k]:nElement() > 0 then views[k]:copy(grads[k]) end
  end
  for k = 1, #grads do
    grads[k]:set(views[k])
  end
  return flat
end

-- (flatParameters, flatGradParameters): all weights in one contiguous tensor
-- and all gradients in another, the modules' tensors re-pointed into them
function Module:getParameters()
  local parameters, gradParameters = self:parameters()
  local p = Module.flatten(parameters)
  if not parameters or #parameters == 0 then return p, torch.Tensor() end
  if not gradParameters or #gradParameters ~= #parameters then
    error(string.format('%s:getParameters: %d parameters but %d gradients', torch.type(self),
                        #parameters, gradParameters and #gradParameters or 0), 2)
  end
  for k = 1, #parameters do
    if torch.isTensor(gradParameters[k]) and not gradParameters[k]:isSameSizeAs(parameters[k]) then
      error(string.format('%s:getParameters: gradient %d has size %s, its parameter %s', torch.type(self), k,
                          utils.sizeString(gradParameters[k]), utils.sizeString(parameters[k])), 2)
    end
  end
  local g = flattenLike(gradParameters, parameters, p)
  -- the flat tensors hold the module's memory: they outlive any scope
  torch.detachModuleTensor(p)
  torch.detachModuleTensor(g)
  utils.own(self)
  return p, g
end

-- --- calling, walking ------------------------------------------------------

function Module:__call__(input, gradOutput)
  self:forward(input)
  if gradOutput then
    self:backward(input, gradOutput)
    return self.output, self.gradInput
  end
  return self.output
end
Module.__call = function(self, ...) return self:__call__(...) end

-- callback(module) for self and every module below it, in preorder
function Module:apply(callback)
  callback(self)
  if self.modules then
    for _, m in ipairs(self.modules) do m:apply(callback) end
  end
end

-- all modules of class 'typename' below (and including) self, and the
-- container holding each
function Module:findModules(typename, container)
  container = container or self
  local nodes, containers = {}, {}
  if torch.typename(self) == typename then
    nodes[1], containers[1] = self, container
  end
  if type(self.modules) == 'table' then
    for i = 1, #self.modules do
      local n, c = self.modules[i]:findModules(typename, self)
      for j = 1, #n do
        nodes[#nodes + 1], containers[#containers + 1] = n[j], c[j]
      end
    end
  end
  return nodes, containers
end

-- self and every module below it, in preorder
function Module:listModules()
  local modules = {self}
  if self.modules then
    for i = 1, #self.modules do
      for _, m in ipairs(self.modules[i]:listModules()) do modules[#modules + 1] = m end
    end
  end
  return modules
end

-- callback(module) returns the module to put in its place, recursively
function Module:replace(callback)
  local out = callback(self)
  if self.modules then
    for i, m in ipairs(self.modules) do self.modules[i] = m:replace(callback) end
  end
  return out
end

-- m:hook(method, fn) -> handle (handle:remove()); m:hooked([method]) -> boolean.
-- fn(nextf, self, ...) runs around the method; see nn/hooks.lua, docs/nn.md
local hooks = require 'nn.hooks'
Module.hook = hooks.hook
Module.hooked = hooks.hooked

function Module:__tostring__()
  return torch.type(self)
end

return Module
