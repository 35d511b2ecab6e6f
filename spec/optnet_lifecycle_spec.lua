-- optnet over a net's whole life: an optimized net goes through clone,
-- :float()/:double()/:type(), :clearState(), torch.save + torch.load (binary,
-- ascii, and in a fresh bin/th process), torch.serialize/deserialize and
-- sequences of them, and then runs at the traced batch, a larger and a
-- smaller one and (conv nets) another spatial size. Every number must be the
-- one the plain nn net gives when put through the same operations: the
-- reference is a clone taken before optimizeMemory. The derived net must
-- still be optimized, refuse backward if optimized for inference, and
-- removeOptimization must give back a net that trains like the reference
-- and holds as much memory. Never a silent wrong number.
--
-- The matrix is nets x modes x operation sequences; what runs at each step
-- and what is compared is in spec/support/lifecycle.lua (life.steps).
-- Doubles are compared exactly; floats within 1e-5 (scaled by the values).
require 'torch'
require 'nn'
local optnet = require 'optnet'
local life = require 'spec.support.lifecycle'

-- bin/th of this checkout, run against the build the specs run against
local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/optnet_lifecycle_spec%.lua$') or ''
local core = package.searchpath('torch.core', package.cpath)
local build = core and core:match('^(.*)/torch/core%.so$')

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- runs spec/support/lifecycle_child.lua in a fresh bin/th; returns its
-- stderr and exit status
local function child(...)
  local args = {}
  for i, a in ipairs{...} do args[i] = sh(a) end
  local errname = os.tmpname()
  local p = io.popen(string.format('cd %s && TH_BUILD=%s bin/th spec/support/lifecycle_child.lua %s 2>%s',
    sh(root ~= '' and root or '.'), sh(build), table.concat(args, ' '), sh(errname)))
  p:read('a')
  local _, _, status = p:close()
  local f = assert(io.open(errname))
  local err = f:read('a')
  f:close()
  os.remove(errname)
  return err, status
end

-- n temporary file names, the files removed when the running test ends
-- (once per test: busted keeps one finally)
local function tmpfiles(n)
  local names = {}
  for i = 1, n do names[i] = os.tmpname() end
  finally(function() for _, name in ipairs(names) do os.remove(name) end end)
  return table.unpack(names)
end

-- stderr lines other than bin/th's own notes on what it loaded
local function stderrLines(err)
  local lines = {}
  for line in err:gmatch('[^\n]+') do
    if not line:find('^th: warning: ') then lines[#lines + 1] = line end
  end
  return lines
end

local function noWarnings(warnings, what)
  assert(#warnings == 0, what .. ' wrote to stderr:\n' .. table.concat(warnings))
end

local MODES = {'inference', 'training'}
local SMALL = {'mlp', 'conv', 'concat', 'concattable', 'paralleltable', 'tableoutput', 'siamese'}

-- the operation sequences every small net goes through (names of life.OPS);
-- the empty one is the control: the optimized net itself
local SEQUENCES = {
  {},
  {'clone'},
  {':float()'},
  {':float()', ':double()'},
  {":type('torch.FloatTensor')"},
  {':clearState()'},
  {'save/load binary'},
  {'save/load ascii'},
  {'serialize/deserialize'},
  {'serialize/deserialize ascii'},
  {'clone', ':float()', 'save/load binary'},
  {':clearState()', 'save/load binary'},
  {'save/load binary', 'clone'},
  {'clone', ':clearState()', 'serialize/deserialize', ':float()'},
}

-- sequences after which the net is saved and run in a fresh bin/th
local FRESH = {
  {},
  {'clone', ':float()'},
}

-- the big models, on a subset (fresh: run in a fresh bin/th, as FRESH)
local BIG = {
  resnet = {
    inference = {{'clone'}, {'clone', ':float()', 'save/load binary'}, {':clearState()', 'save/load binary', 'clone'}},
    training = {{'clone'}, {'clone', ':float()', 'save/load binary'}, {':clearState()', 'save/load binary', 'clone'}},
    fresh = {training = {{}}},
  },
  googlenet = {
    inference = {{'clone'}},
    training = {{'save/load binary', 'clone'}},
    fresh = {},
  },
}

local function describeSizes(spec)
  local s = 'batches ' .. table.concat(spec.batches, ', ')
  if spec.sides and spec.sides[2] then s = s .. string.format(' and %dx%d', spec.sides[2], spec.sides[2]) end
  return s
end

local function seqName(ops)
  return #ops == 0 and 'no operation' or table.concat(ops, ', ')
end

local function env(role, spec, mode, warnings)
  return {role = role, spec = spec, mode = mode, warnings = warnings}
end

-- optimizes, applies ops to the net and to its reference, and runs both
-- through life.steps in this process
local function checkLife(spec, mode, ops)
  local net, ref = life.prepare(spec, mode)
  local warnings = {}
  local derived = life.derive(net, ops, env('derived', spec, mode, warnings))
  local refd = life.derive(ref, ops, env('ref', spec, mode, {}))
  life.lockstep(refd, derived, life.steps(spec, mode), 'after ' .. seqName(ops))
  noWarnings(warnings, 'torch.save')
end

-- the same, but the derived net is saved and its steps run in a fresh bin/th
-- (the reference is saved and loaded here)
local function checkFreshLife(spec, mode, ops)
  local net, ref = life.prepare(spec, mode)
  local warnings = {}
  local derived = life.derive(net, ops, env('derived', spec, mode, warnings))
  local refd = life.derive(ref, ops, env('ref', spec, mode, {}))
  refd = life.derive(refd, {'save/load binary'}, env('ref', spec, mode, {}))
  local netFile, recordsFile = tmpfiles(2)
  life.capture(warnings, torch.save, netFile, derived)
  local err, status = child('run', spec.name, mode, netFile, recordsFile)
  assert(status == 0, 'the fresh process failed:\n' .. err)
  local records = torch.load(recordsFile)
  life.compareRecords(refd, life.steps(spec, mode), records,
    (#ops == 0 and '' or 'after ' .. seqName(ops) .. ', ') .. 'saved, loaded in a fresh process')
  noWarnings(warnings, 'torch.save')
end

local function lifeIt(spec, mode, ops)
  it(string.format('then %s: same numbers as the plain net at %s; still optimized; undone exactly',
    seqName(ops), describeSizes(spec)), function()
    checkLife(spec, mode, ops)
  end)
end

local function freshIt(spec, mode, ops)
  it(string.format('then %ssaved and loaded in a fresh bin/th: same numbers as the plain net at %s; '
    .. 'still optimized; undone exactly', #ops == 0 and '' or seqName(ops) .. ', ', describeSizes(spec)), function()
    checkFreshLife(spec, mode, ops)
  end)
end

describe('optnet over a net\'s life', function()
  for _, name in ipairs(SMALL) do
    for _, mode in ipairs(MODES) do
      describe(string.format('%s optimized for %s', name, mode), function()
        for _, ops in ipairs(SEQUENCES) do lifeIt(life.NETS[name], mode, ops) end
        for _, ops in ipairs(FRESH) do freshIt(life.NETS[name], mode, ops) end
      end)
    end
  end
  for _, name in ipairs{'resnet', 'googlenet'} do
    for _, mode in ipairs(MODES) do
      describe(string.format('%s optimized for %s', name, mode), function()
        for _, ops in ipairs(BIG[name][mode]) do lifeIt(life.NETS[name], mode, ops) end
        for _, ops in ipairs(BIG[name].fresh[mode] or {}) do freshIt(life.NETS[name], mode, ops) end
      end)
    end
  end
end)

describe('torch.save of an optimized net', function()
  for _, name in ipairs(SMALL) do
    local spec = life.NETS[name]
    for _, mode in ipairs(MODES) do
      it(string.format('%s optimized for %s: saved in a fresh bin/th with nothing on stderr; '
        .. 'loads here optimized, with the plain net\'s numbers', name, mode), function()
        local file = tmpfiles(1)
        local err, status = child('save', name, mode, file)
        assert(status == 0, 'the saving process failed:\n' .. err)
        local lines = stderrLines(err)
        assert(#lines == 0, 'saving wrote to stderr:\n' .. table.concat(lines, '\n'))
        local loaded = torch.load(file)
        life.lockstep(life.build(spec, mode), loaded, life.steps(spec, mode), 'loaded')
      end)
    end
  end
end)

describe('a copy of a net optimized for inference', function()
  for _, name in ipairs{'mlp', 'conv', 'tableoutput', 'siamese'} do
    local spec = life.NETS[name]
    for _, ops in ipairs{{'clone'}, {'save/load binary'}, {'serialize/deserialize'}, {'save/load binary', 'clone'}} do
      it(string.format('%s, %s: backward raises an error naming optnet; after removeOptimization it trains '
        .. 'like the plain net', name, seqName(ops)), function()
        local net, ref = life.prepare(spec, 'inference')
        local copy = life.derive(net, ops, env('derived', spec, 'inference', {}))
        local refd = life.derive(ref, ops, env('ref', spec, 'inference', {}))
        local x = life.input(spec, life.sizes(spec)[1], copy:type())
        copy:forward(x)
        local ok, err = pcall(copy.backward, copy, x, life.gradOutput(copy.output))
        assert(not ok, 'backward ran on the copy')
        assert(tostring(err):find('optnet', 1, true), 'the error does not name optnet: ' .. tostring(err))
        optnet.removeOptimization(copy)
        refd:forward(x)
        life.lockstep(refd, copy, life.trainingSteps(spec, 'after removeOptimization'), seqName(ops))
      end)
    end
  end
end)

describe('a derived net optimized again', function()
  for _, name in ipairs{'mlp', 'conv', 'tableoutput', 'siamese'} do
    local spec = life.NETS[name]
    for _, mode in ipairs(MODES) do
      for _, ops in ipairs{{'clone'}, {'save/load binary'}, {':float()'}} do
        local seq = {table.unpack(ops)}
        seq[#seq + 1] = 'optimizeMemory again'
        it(string.format('%s optimized for %s, then %s: same numbers as the plain net; undone exactly',
          name, mode, seqName(seq)), function()
          checkLife(spec, mode, seq)
        end)
      end
    end
    it(name .. ': a clone of the net optimized for inference, optimized for training, trains like the plain net',
      function()
        local net, ref = life.prepare(spec, 'inference')
        local derived, refd = net:clone(), ref:clone()
        derived:training(); refd:training()
        optnet.optimizeMemory(derived, life.input(spec, life.sizes(spec)[1], derived:type()), {mode = 'training'})
        life.lockstep(refd, derived, life.steps(spec, 'training'), 'clone optimized for training')
      end)
  end
end)

describe('removeOptimization, then the operations', function()
  for _, name in ipairs{'mlp', 'conv', 'concat', 'siamese'} do
    local spec = life.NETS[name]
    for _, mode in ipairs(MODES) do
      for _, ops in ipairs{{'clone'}, {':float()'}, {'save/load binary'}, {'clone', ':float()', 'save/load ascii'}} do
        it(string.format('%s optimized for %s, undone, then %s: a plain net with the plain net\'s numbers',
          name, mode, seqName(ops)), function()
          local net, ref = life.prepare(spec, mode)
          optnet.removeOptimization(net)
          local warnings = {}
          local derived = life.derive(net, ops, env('derived', spec, mode, warnings))
          local refd = life.derive(ref, ops, env('ref', spec, mode, {}))
          life.lockstep(refd, derived, life.steps(spec, mode, {optimized = false}), 'after ' .. seqName(ops))
          noWarnings(warnings, 'torch.save')
        end)
      end
    end
  end
end)

describe('removeOptimization on a derived net', function()
  for _, name in ipairs(SMALL) do
    local spec = life.NETS[name]
    for _, mode in ipairs(MODES) do
      for _, ops in ipairs{{}, {'clone'}, {':float()'}, {':clearState()'}, {'save/load binary'}, {'serialize/deserialize'}} do
        it(string.format('%s optimized for %s, then %s, one pass, removeOptimization: the reference\'s countUsedMemory',
          name, mode, seqName(ops)), function()
          local net, ref = life.prepare(spec, mode)
          local derived = life.derive(net, ops, env('derived', spec, mode, {}))
          local refd = life.derive(ref, ops, env('ref', spec, mode, {}))
          local size = life.sizes(spec)[1]
          for _, m in ipairs{refd, derived} do
            local x = life.input(spec, size, m:type())
            m:forward(x)
            if mode == 'training' then m:backward(x, life.gradOutput(m.output)) end
          end
          optnet.removeOptimization(derived)
          local want, got = optnet.countUsedMemory(refd).total_size, optnet.countUsedMemory(derived).total_size
          if mode == 'training' then
            -- the plain net's gradInputs released by its last backward count
            -- at the bytes they held (as Torch7 holds them); the undone
            -- net's, released by removeOptimization, count nothing: it holds
            -- no more than the plain net
            assert.is_true(got <= want and got > 0,
              'countUsedMemory(net).total_size after removeOptimization: ' .. got .. ' > ' .. want)
          else
            assert.are.equal(want, got, 'countUsedMemory(net).total_size after removeOptimization')
          end
        end)
      end
    end
  end
end)
