-- optnet's in-place choice in training mode: an in-place module overwrites
-- its input in forward and its gradOutput in backward, so it may be chosen
-- only where nothing else reads what it overwrites: not when two branches
-- share one gradOutput (ConcatTable + CAddTable(true)), not the user's own
-- gradOutput, not a storage an earlier in-place module's backward still reads.
-- Each net is compared with its unoptimized clone, exactly, over two steps.
require 'torch'
require 'nn'
local optnet = require 'optnet'
local helpers = require 'spec.support.helpers'
local clone = helpers.clone

local function each(v, f, path)
  path = path or 'v'
  if torch.isTensor(v) then return f(v, path) end
  for k, x in pairs(v) do each(x, f, path .. '.' .. tostring(k)) end
end

local function same(a, b, what)
  local fa = {}
  each(a, function(t, p) fa[p] = t end)
  each(b, function(t, p)
    assert(fa[p], what .. ': missing ' .. p)
    assert.are.same(fa[p]:size():totable(), t:size():totable())
    local d = t:nElement() > 0 and (fa[p] - t):abs():max() or 0
    assert(d == 0, string.format('%s: %s differs by %g', what, p, d))
  end)
end

local function gradFor(out, seed)
  torch.manualSeed(seed)
  if torch.isTensor(out) then return out:clone():uniform(-1, 1) end
  local g = {}
  for k, v in pairs(out) do g[k] = gradFor(v, seed + k) end
  return g
end

-- the modules optnet switched to in place (flag off before, on now)
local function switched(net, flagsBefore)
  local l = {}
  for i, m in ipairs(net:listModules()) do
    if flagsBefore[i] == false and m.inplace == true then l[#l + 1] = m end
  end
  return l
end

-- optimizes a clone of net for training and checks outputs, gradInputs,
-- gradParameters and parameters against the net itself over two steps, and
-- that neither the input nor the user's gradOutput is changed by backward;
-- returns the optimized net and the modules it switched to in place
local function check(build, input)
  torch.manualSeed(3)
  local a = build():double()
  local b = a:clone()
  a:training(); b:training()
  local flags = {}
  for i, m in ipairs(b:listModules()) do flags[i] = m.inplace end
  optnet.optimizeMemory(b, input, {mode = 'training'})
  local pa, ga = a:parameters()
  local pb, gb = b:parameters()
  for iter = 1, 2 do
    local x0 = clone(input)
    torch.manualSeed(100 + iter)
    local oa = clone(a:forward(input))
    torch.manualSeed(100 + iter)
    local ob = b:forward(input)
    same(oa, ob, 'step ' .. iter .. ' output')
    same(x0, input, 'step ' .. iter .. ' input after forward')
    local g = gradFor(oa, 20 + iter)
    local g0 = clone(g)
    a:zeroGradParameters(); b:zeroGradParameters()
    local gia = clone(a:backward(input, clone(g)))
    local gib = b:backward(input, g)
    same(gia, gib, 'step ' .. iter .. ' gradInput')
    same(g0, g, "step " .. iter .. " the user's gradOutput after backward")
    same(x0, input, 'step ' .. iter .. ' input after backward')
    if ga then
      for i = 1, #ga do same(ga[i], gb[i], 'step ' .. iter .. ' gradParameter ' .. i) end
      a:updateParameters(0.01); b:updateParameters(0.01)
      for i = 1, #pa do same(pa[i], pb[i], 'step ' .. iter .. ' parameter ' .. i) end
    end
  end
  return b, switched(b, flags)
end

local function has(list, typename)
  for _, m in ipairs(list) do if torch.type(m) == typename then return true end end
  return false
end

-- the in-place capable modules, not in place
local CAPABLE = {
  ReLU = function() return nn.ReLU() end,
  Threshold = function() return nn.Threshold(0.1, 0) end,
  LeakyReLU = function() return nn.LeakyReLU(0.1) end,
  ELU = function() return nn.ELU() end,
  Dropout = function() return nn.Dropout(0.3) end,
  MulConstant = function() return nn.MulConstant(2) end,
  AddConstant = function() return nn.AddConstant(0.5) end,
}
local NAMES = {'ReLU', 'Threshold', 'LeakyReLU', 'ELU', 'Dropout', 'MulConstant', 'AddConstant'}

local function branch(last, nIn, nOut)
  return nn.Sequential():add(nn.Linear(nIn, nOut)):add(last)
end

describe('optnet in-place choice in training mode', function()
  local x = torch.randn(4, 5)

  it('the repro: branches sharing a gradOutput (CAddTable in place) keep ReLU out of place', function()
    local _, sw = check(function()
      return nn.Sequential()
        :add(nn.ConcatTable():add(branch(nn.ReLU(), 5, 5)):add(branch(nn.Tanh(), 5, 5)))
        :add(nn.CAddTable(true)):add(nn.Linear(5, 3))
    end, x)
    assert.is_false(has(sw, 'nn.ReLU'))
  end)

  for _, name in ipairs(NAMES) do
    it('shared gradOutput: ' .. name .. ' in the first branch stays out of place, in the second goes in place', function()
      for _, first in ipairs{true, false} do
        local _, sw = check(function()
          local c = nn.ConcatTable()
          if first then
            c:add(branch(CAPABLE[name](), 5, 5)):add(branch(nn.Tanh(), 5, 5))
          else
            c:add(branch(nn.Tanh(), 5, 5)):add(branch(CAPABLE[name](), 5, 5))
          end
          return nn.Sequential():add(c):add(nn.CAddTable(true)):add(nn.Linear(5, 3))
        end, x)
        -- the second branch runs its backward last: nothing reads the shared
        -- gradOutput after it, so it may write there. (AddConstant writes no
        -- gradOutput, but in place its backward restores its input, and in
        -- the first branch that is the storage CAddTable(true) summed into.)
        local expected = not first
        assert.are.equal(expected, has(sw, 'nn.' .. name),
          string.format('%s in branch %d switched in place: %s', name, first and 1 or 2, tostring(expected)))
      end
    end)
  end

  it('shared gradOutput, both branches in-place capable', function()
    for i, n1 in ipairs(NAMES) do
      local n2 = NAMES[i % #NAMES + 1]
      check(function()
        return nn.Sequential()
          :add(nn.ConcatTable():add(branch(CAPABLE[n1](), 5, 5)):add(branch(CAPABLE[n2](), 5, 5)))
          :add(nn.CAddTable(true)):add(nn.Linear(5, 3))
      end, x)
    end
  end)

  it('branches ending in in-place capable modules, CAddTable not in place', function()
    for i, n1 in ipairs(NAMES) do
      local n2 = NAMES[(i + 2) % #NAMES + 1]
      local _, sw = check(function()
        return nn.Sequential()
          :add(nn.ConcatTable():add(branch(CAPABLE[n1](), 5, 5)):add(branch(CAPABLE[n2](), 5, 5)))
          :add(nn.CAddTable()):add(nn.Linear(5, 3))
      end, x)
      -- each branch gets its own gradOutput copy unless CAddTable is in
      -- place too; with both branches' modules in place, CAddTable is not
      if #sw == 3 then error('branch modules and CAddTable all switched in place: ' .. n1 .. ', ' .. n2) end
    end
  end)

  it('a branch module stays in place when its gradOutput is its own', function()
    local _, sw = check(function()
      return nn.Sequential()
        :add(nn.ConcatTable():add(branch(nn.ReLU(), 5, 5)):add(branch(nn.Tanh(), 5, 5)))
        :add(nn.JoinTable(2)):add(nn.Linear(10, 3))
    end, x)
    assert.is_true(has(sw, 'nn.ReLU'))
  end)

  it('ConcatTable output branches: the user gradOutputs are not overwritten', function()
    for _, name in ipairs(NAMES) do
      check(function()
        return nn.ConcatTable():add(branch(CAPABLE[name](), 5, 4)):add(branch(nn.ReLU(), 5, 3))
      end, x)
    end
  end)

  it("an in-place capable module last: the user's gradOutput stays intact", function()
    for _, name in ipairs(NAMES) do
      local _, sw = check(function()
        return nn.Sequential():add(nn.Linear(5, 4)):add(CAPABLE[name]())
      end, x)
      assert.is_false(has(sw, 'nn.' .. name), name .. ' was switched in place')
    end
  end)

  it('an in-place capable module first: the input stays intact', function()
    for _, name in ipairs(NAMES) do
      check(function()
        return nn.Sequential():add(CAPABLE[name]()):add(nn.Linear(5, 4))
      end, x)
    end
  end)

  it('a chain of in-place capable modules: an earlier backward still reads the storage', function()
    -- Threshold in place reads its overwritten input in backward to see which
    -- elements passed; a Dropout in place after it would have scaled 0.9 to
    -- 1.8 > 1 there
    local _, sw = check(function()
      return nn.Sequential():add(nn.Linear(5, 6)):add(nn.Threshold(1, 0.9)):add(nn.Dropout(0.5))
        :add(nn.Linear(6, 3))
    end, torch.randn(8, 5):mul(2))
    assert.are.equal(1, #sw)
    for _, n1 in ipairs(NAMES) do
      for _, n2 in ipairs(NAMES) do
        check(function()
          return nn.Sequential():add(nn.Linear(5, 6)):add(CAPABLE[n1]()):add(CAPABLE[n2]()):add(nn.Linear(6, 3))
        end, x)
      end
    end
  end)

  it('random nets of branches, joins and in-place capable modules', function()
    local N = 6
    local function capable() return CAPABLE[NAMES[math.random(#NAMES)]]() end
    local function block(depth)
      local r = math.random(depth > 2 and 3 or 6)
      if r <= 2 then
        local s = nn.Sequential()
        if math.random() < 0.5 then s:add(nn.Linear(N, N)) end
        for _ = 1, math.random(0, 2) do s:add(capable()) end
        if math.random() < 0.3 then s:add(nn.Linear(N, N)) end
        if #s.modules == 0 then s:add(nn.Identity()) end
        return s
      elseif r == 3 then
        return capable()
      elseif r == 4 then
        local c = nn.ConcatTable()
        for _ = 1, math.random(2, 3) do c:add(block(depth + 1)) end
        -- no CAddTable(true) of the user's here: after an Identity branch it
        -- would overwrite the input (optnet may switch CAddTable itself)
        local join = math.random(2) == 1 and nn.CAddTable()
          or nn.Sequential():add(nn.JoinTable(2)):add(nn.Linear(#c.modules * N, N))
        return nn.Sequential():add(c):add(join)
      elseif r == 5 then
        return nn.Sequential():add(nn.Concat(2):add(block(depth + 1)):add(block(depth + 1))):add(nn.Linear(2 * N, N))
      end
      local s = nn.Sequential()
      for _ = 1, math.random(1, 3) do s:add(block(depth + 1)) end
      return s
    end
    local n = 0
    for seed = 1, 60 do
      math.randomseed(seed)
      local _, sw = check(function()
        local net = nn.Sequential()
        if math.random() < 0.7 then net:add(nn.Linear(N, N)) end
        for _ = 1, math.random(1, 4) do net:add(block(1)) end
        if math.random() < 0.5 then net:add(nn.Linear(N, 3)) end
        return net
      end, torch.randn(4, N))
      n = n + #sw
    end
    assert(n > 60, 'only ' .. n .. ' modules switched in place')
  end)

  it('still switches where safe: a module between two Linears', function()
    for _, name in ipairs(NAMES) do
      local _, sw = check(function()
        return nn.Sequential():add(nn.Linear(5, 6)):add(CAPABLE[name]()):add(nn.Linear(6, 3))
      end, x)
      assert.is_true(has(sw, 'nn.' .. name), name .. ' was not switched in place')
    end
  end)
end)
