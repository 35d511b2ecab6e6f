-- Module:hook / Module:hooked (nn/hooks.lua): around-hooks on a module's
-- methods, composed last-registered-outermost, removed by handle in any
-- order, transient (never saved, cloned or touched by :type()), and absent
-- from a module that was never hooked (its metatable is its class).
require 'torch'
require 'nn'

local function tracer(log, name)
  return function(nextf, self, ...)
    log[#log + 1] = name .. '<'
    local r = table.pack(nextf(self, ...))
    log[#log + 1] = '>' .. name
    return table.unpack(r, 1, r.n)
  end
end

local function linear()
  torch.manualSeed(1)
  return nn.Linear(3, 2)
end

local function clear(t)
  for i = #t, 1, -1 do t[i] = nil end
end

local function errorOf(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok)
  return tostring(err)
end

describe('Module:hook', function()
  it('runs around the method, last registered outermost, with the results passed through', function()
    local m, log = linear(), {}
    local plain = linear():forward(torch.ones(3)):clone()
    m:hook('updateOutput', tracer(log, 'a'))
    m:hook('updateOutput', tracer(log, 'b'))
    m:hook('updateOutput', tracer(log, 'c'))
    local out = m:forward(torch.ones(3))
    assert.are.equal('c< b< a< >a >b >c', table.concat(log, ' '))
    assert.are.equal(m.output, out)
    assert.are.equal(0, (out - plain):abs():max())
  end)

  it('can change the arguments and the results', function()
    local m = linear()
    m:hook('updateOutput', function(nextf, self, x) return nextf(self, x * 0) end)
    local out = m:forward(torch.ones(3))
    assert.are.equal(0, (out - m.bias):abs():max())
    local m2 = linear()
    m2:hook('updateGradInput', function(nextf, self, x, g)
      local gi = nextf(self, x, g)
      gi:mul(2)
      return gi
    end)
    local ref = linear()
    local x, g = torch.ones(3), torch.ones(2)
    ref:forward(x); m2:forward(x)
    assert.are.equal(0, (m2:backward(x, g) - ref:backward(x, g) * 2):abs():max())
  end)

  it('hooks forward, backward and any other method of the class', function()
    local m, log = linear(), {}
    for _, k in ipairs{'forward', 'updateOutput', 'backward', 'updateGradInput', 'accGradParameters',
                       'zeroGradParameters', 'clearState'} do
      m:hook(k, tracer(log, k))
    end
    m:forward(torch.ones(3))
    m:backward(torch.ones(3), torch.ones(2))
    m:zeroGradParameters()
    assert.are.equal('forward< updateOutput< >updateOutput >forward backward< updateGradInput< '
      .. '>updateGradInput accGradParameters< >accGradParameters >backward zeroGradParameters< '
      .. '>zeroGradParameters', table.concat(log, ' '))
  end)

  it('is reached through a container and an nngraph node', function()
    local log = {}
    local m = linear()
    m:hook('updateOutput', tracer(log, 'm'))
    m:forward(torch.ones(3))
    assert.are.equal(2, #log)
    local s = nn.Sequential():add(m):add(nn.ReLU(true))
    s:forward(torch.ones(3))
    assert.are.equal(4, #log)
    require 'nngraph'
    local inp = nn.Identity()()
    local g = nn.gModule({inp}, {m(inp)})
    g:forward(torch.ones(3))
    assert.are.equal(6, #log)
  end)

  it('leaves the class named: typename, type, isTypeOf, tostring, version, operators', function()
    local m = linear()
    m:hook('updateOutput', function(nextf, self, x) return nextf(self, x) end)
    assert.are.equal('nn.Linear', torch.typename(m))
    assert.are.equal('nn.Linear', torch.type(m))
    assert.is_true(torch.isTypeOf(m, 'nn.Module'))
    assert.is_true(torch.isTypeOf(m, nn.Linear))
    assert.are.equal('nn.Linear(3 -> 2)', tostring(m))
    assert.are.equal(1, torch.version(m))
    local s = nn.Sequential():add(nn.Identity()):add(nn.Identity())
    s:hook('forward', function(nextf, self, x) return nextf(self, x) end)
    assert.are.equal(2, #s)
    assert.are.equal(s, s)
  end)
end)

describe('handle:remove', function()
  it('removes exactly its hook, in any order; a second call does nothing', function()
    local m, log = linear(), {}
    local ha = m:hook('updateOutput', tracer(log, 'a'))
    local hb = m:hook('updateOutput', tracer(log, 'b'))
    local hc = m:hook('updateOutput', tracer(log, 'c'))
    hb:remove()
    m:forward(torch.ones(3))
    assert.are.equal('c< a< >a >c', table.concat(log, ' '))
    hb:remove()
    ha:remove()
    clear(log)
    m:forward(torch.ones(3))
    assert.are.equal('c< >c', table.concat(log, ' '))
    hc:remove()
    clear(log)
    m:forward(torch.ones(3))
    assert.are.equal(0, #log)
  end)

  it('gives a module with no hook left its class back (the unhooked fast path)', function()
    local m = linear()
    local cls = torch.getmetatable('nn.Linear')
    assert.are.equal(cls, getmetatable(m))
    local h1 = m:hook('updateOutput', function(nextf, self, x) return nextf(self, x) end)
    local h2 = m:hook('backward', function(nextf, self, ...) return nextf(self, ...) end)
    assert.are_not.equal(cls, getmetatable(m))
    h2:remove()
    assert.are_not.equal(cls, getmetatable(m))
    h1:remove()
    assert.are.equal(cls, getmetatable(m))
    assert.is_nil(rawget(m, 'updateOutput'))
  end)

  it('works from inside the hook being run', function()
    local m, n = linear(), 0
    local h
    h = m:hook('updateOutput', function(nextf, self, x)
      n = n + 1
      h:remove()
      return nextf(self, x)
    end)
    m:forward(torch.ones(3))
    m:forward(torch.ones(3))
    assert.are.equal(1, n)
    assert.is_false(m:hooked())
  end)
end)

describe('Module:hooked', function()
  it('says whether any hook, or one on a method, is registered', function()
    local m = linear()
    assert.is_false(m:hooked())
    assert.is_false(m:hooked('updateOutput'))
    local h = m:hook('updateOutput', function(nextf, self, x) return nextf(self, x) end)
    assert.is_true(m:hooked())
    assert.is_true(m:hooked('updateOutput'))
    assert.is_false(m:hooked('backward'))
    h:remove()
    assert.is_false(m:hooked())
  end)
end)

describe('hooks are transient', function()
  local function hooked()
    local m, log = linear(), {}
    m:hook('updateOutput', tracer(log, 'h'))
    return m, log
  end

  it('torch.save writes the class, without the hooks', function()
    local m = hooked()
    local f = torch.MemoryFile('rw'):binary()
    f:writeObject(m)
    f:seek(1)
    local l = f:readObject()
    f:close()
    assert.are.equal(torch.getmetatable('nn.Linear'), getmetatable(l))
    assert.is_false(l:hooked())
    assert.are.equal(0, (l.weight - m.weight):abs():max())
    local plain = linear()
    local a, b = torch.MemoryFile('rw'):binary(), torch.MemoryFile('rw'):binary()
    a:writeObject(m); b:writeObject(plain)
    assert.are.equal(b:storage():size(), a:storage():size())
  end)

  it('clone copies no hook, with or without shared fields', function()
    local m, log = hooked()
    local c = m:clone()
    local s = m:clone('weight', 'bias')
    assert.is_false(c:hooked())
    assert.is_false(s:hooked())
    assert.are.equal(torch.getmetatable('nn.Linear'), getmetatable(c))
    c:forward(torch.ones(3)); s:forward(torch.ones(3))
    assert.are.equal(0, #log)
    m:forward(torch.ones(3))
    assert.are.equal(2, #log)
  end)

  it('a hook on one of two modules sharing parameters is that module\'s alone', function()
    local m = linear()
    local s = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
    local n = 0
    s:hook('accGradParameters', function(nextf, self, ...) n = n + 1; return nextf(self, ...) end)
    m:forward(torch.ones(3)); m:backward(torch.ones(3), torch.ones(2))
    assert.are.equal(0, n)
    s:forward(torch.ones(3)); s:backward(torch.ones(3), torch.ones(2))
    assert.are.equal(1, n)
    assert.are.equal(m.weight:storage(), s.weight:storage())
  end)

  it(':type() and :float() keep the hooks and touch no hook', function()
    local m, log = hooked()
    m:float()
    assert.is_true(m:hooked('updateOutput'))
    m:forward(torch.ones(3):float())
    assert.are.equal(2, #log)
    m:double()
    m:forward(torch.ones(3))
    assert.are.equal(4, #log)
    for k, v in pairs(m) do assert.are_not.equal('function', type(v), k) end
  end)
end)

describe('errors', function()
  it('an error inside a hook propagates and leaves the chain intact', function()
    local m, log = linear(), {}
    m:hook('updateOutput', tracer(log, 'a'))
    local fail = true
    m:hook('updateOutput', function(nextf, self, x)
      if fail then error('hook failed', 0) end
      return nextf(self, x)
    end)
    m:hook('updateOutput', tracer(log, 'c'))
    assert.are.equal('hook failed', errorOf(m.forward, m, torch.ones(3)))
    fail = false
    clear(log)
    m:forward(torch.ones(3))
    assert.are.equal('c< a< >a >c', table.concat(log, ' '))
  end)

  it("an error in the class's method goes through the hooks", function()
    local m, seen = linear(), 0
    m:hook('updateOutput', function(nextf, self, x)
      local ok, err = pcall(nextf, self, x)
      seen = seen + 1
      if not ok then error(err, 0) end
      return err
    end)
    assert.truthy(errorOf(m.forward, m, torch.ones(5)):find('nn.Linear'))
    assert.are.equal(1, seen)
  end)

  it('a hook that raises at level 2 names the caller of the method', function()
    local m = linear()
    m:hook('updateGradInput', function() error('refused', 2) end)
    local line = debug.getinfo(1, 'l').currentline + 1
    local err = errorOf(function() local gi = m:updateGradInput(torch.ones(3), torch.ones(2)); return gi end)
    assert.truthy(err:find('nn_hooks_spec.lua:' .. line .. ': refused', 1, true), err)
  end)

  it('bad arguments are named', function()
    local m = linear()
    assert.are.equal('nn.Linear:hook: method name (string) expected as argument 1, got number',
                     errorOf(m.hook, m, 1, function() end))
    assert.are.equal('nn.Linear:hook: function(nextf, self, ...) expected as argument 2, got nil',
                     errorOf(m.hook, m, 'forward'))
    assert.are.equal("nn.Linear:hook: no method 'nope' to hook", errorOf(m.hook, m, 'nope', function() end))
    assert.are.equal("nn.Linear:hook: 'output' is a field of this module (a torch.DoubleTensor), not a method",
                     errorOf(m.hook, m, 'output', function() end))
    assert.are.equal('nn.Linear:hooked: method name (string) or nothing expected as argument 1, got number',
                     errorOf(m.hooked, m, 3))
    assert.is_false(m:hooked())
  end)
end)

describe('hooks and classes', function()
  it("go around a function set on the module itself, which is put back after", function()
    local m, log = linear(), {}
    local own = function(self) log[#log + 1] = 'own' end
    m.accGradParameters = own
    local h1 = m:hook('accGradParameters', tracer(log, 'a'))
    local h2 = m:hook('accGradParameters', tracer(log, 'b'))
    assert.is_nil(rawget(m, 'accGradParameters'))
    m:forward(torch.ones(3))
    m:backward(torch.ones(3), torch.ones(2))
    assert.are.equal('b< a< own >a >b', table.concat(log, ' '))
    h1:remove()
    assert.is_nil(rawget(m, 'accGradParameters'))
    h2:remove()
    assert.are.equal(own, rawget(m, 'accGradParameters'))
    assert.are.equal(torch.getmetatable('nn.Linear'), getmetatable(m))
  end)

  it("follow the class's method as it is at each call", function()
    if not torch.getmetatable('nn.SpecHookDouble') then
      local M = torch.class('nn.SpecHookDouble', 'nn.Module')
      function M:updateOutput(x) self.output = x * 2; return self.output end
    end
    local m, log = nn.SpecHookDouble(), {}
    m:hook('updateOutput', tracer(log, 'h'))
    assert.are.equal(6, m:forward(torch.Tensor{3})[1])
    local cls = torch.getmetatable('nn.SpecHookDouble')
    local old = cls.updateOutput
    cls.updateOutput = function(self, x) self.output = x * 3; return self.output end
    assert.are.equal(9, m:forward(torch.Tensor{3})[1])
    cls.updateOutput = old
    assert.are.equal(4, #log)
  end)

  it('work on a class with an __index__ hook', function()
    if not torch.getmetatable('nn.SpecHookIndexed') then
      local M = torch.class('nn.SpecHookIndexed', 'nn.Module')
      function M:__index__(k)
        if k == 'answer' then return 42, true end
        return false
      end
    end
    local m, log = nn.SpecHookIndexed(), {}
    m:hook('updateOutput', tracer(log, 'h'))
    assert.are.equal(42, m.answer)
    m:forward(torch.ones(2))
    assert.are.equal(2, #log)
    assert.is_true(torch.isTypeOf(m, 'nn.Module'))
  end)

  it('are gone when the module is given another class (cudnn.convert)', function()
    local m = nn.ReLU()
    m:hook('updateOutput', function() error('not here', 0) end)
    setmetatable(m, torch.getmetatable('nn.Tanh'))
    assert.is_false(m:hooked())
    m:forward(torch.zeros(2))
    local n = 0
    local h = m:hook('updateOutput', function(nextf, self, x) n = n + 1; return nextf(self, x) end)
    m:forward(torch.zeros(2))
    assert.are.equal(1, n)
    h:remove()
    assert.are.equal(torch.getmetatable('nn.Tanh'), getmetatable(m))
  end)
end)

describe('the libraries that attach to modules', function()
  -- dataparallel's trainer (a one-rank job in a child th: MPI in this
  -- process would outlive the spec) hooks its net and the modules with
  -- parameters; it assigns no method on an instance, so a save holds none
  it('dataparallel hooks, and assigns no function field', function()
    local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/nn_hooks_spec%.lua$') or ''
    root = root ~= '' and root or './'
    local core = package.searchpath('torch.core', package.cpath)
    local build = core:match('^(.*)/torch/core%.so$')
    local script = os.tmpname()
    local f = assert(io.open(script, 'w'))
    f:write([[
      require 'nn'
      local dp = require 'dataparallel'
      local net = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2))
      local t = dp.new(net, {learningRate = 0.1}, {method = 'sgd'})
      local fields = 0
      for _, m in ipairs(net:listModules()) do
        for _, k in ipairs{'forward', 'accGradParameters'} do
          if rawget(m, k) ~= nil then fields = fields + 1 end
        end
      end
      local f = torch.MemoryFile():binary()
      f:writeObject(net)
      local back = torch.MemoryFile(f:storage(), 'r'):binary():readObject()
      print(net:hooked('forward'), net.modules[1]:hooked('accGradParameters'), net.modules[2]:hooked(),
            fields, back:hooked(), back.modules[1]:hooked())
    ]])
    f:close()
    local p = io.popen(string.format("TH_BUILD='%s' '%sbin/th' '%s' 2>&1", build, root, script))
    local out = p:read('a')
    p:close()
    os.remove(script)
    assert.are.equal('true\ttrue\tfalse\t0\tfalse\tfalse\n', out)
  end)
end)
