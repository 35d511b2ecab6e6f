-- backward before any forward, on every nn (and nnx) module that can be
-- built with simple arguments (issue 36: nn.Dropout said "cmul: element
-- counts differ: 4 has 4, empty has 0"). For each class the first
-- (arguments, input) pair whose forward works on a fresh module is found;
-- then another fresh module runs backward with a gradOutput shaped like
-- that output. It must either give exactly what forward-then-backward
-- gives, or raise an error naming the module's own class; never an error
-- from Lua itself ("attempt to index", "bad argument #2 to 'resizeAs'")
-- nor one naming only an inner module or a tensor function.
require 'torch'
require 'nn'
pcall(require, 'nnx')

local ARGS = {{}, {3}, {3, 3}, {3, 3, 3}, {3, 3, 3, 3}, {3, 3, 3, 3, 3}, {1}, {2, 2}, {3, 4}}
local INPUTS = {
  function() return torch.randn(2, 3) end,
  function() return torch.randn(2, 3, 6, 6) end,
  function() return torch.randn(2, 3, 6, 6, 6) end,
  function() return torch.randn(2, 6, 3) end,
  function() return torch.randn(3) end,
  function() return {torch.randn(2, 3), torch.randn(2, 3)} end,
  function() return {torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)} end,
  function() return torch.LongTensor{{1, 2, 3}, {2, 3, 1}} end,
  function() return {torch.randn(2, 3, 3), torch.randn(2, 3, 3)} end,
}
-- modules that print on every call (their backward is the identity)
local QUIET = {PrintSize = true, Profile = true, Toc = true}
local INTERNAL = {'attempt to', 'stack overflow', 'bad argument #', 'a nil value', 'tensor was freed'}

local function like(v)
  if torch.isTensor(v) then return v:double():clone():uniform() end
  if type(v) == 'table' then
    local t = {}
    for k, x in pairs(v) do t[k] = like(x) end
    return t
  end
  return v
end

local function same(a, b)
  if torch.isTensor(a) and torch.isTensor(b) then
    return a:isSameSizeAs(b) and (a:nElement() == 0 or a:double():add(-1, b:double()):abs():max() == 0)
  end
  if type(a) == 'table' and type(b) == 'table' then
    for k in pairs(b) do if not same(a[k], b[k]) then return false end end
    return true
  end
  return a == b
end

-- the first (args, input) a fresh module's forward accepts, or nil
local function working(name)
  for _, a in ipairs(ARGS) do
    for _, mk in ipairs(INPUTS) do
      local ok, m = pcall(nn[name], table.unpack(a))
      if ok and torch.isTypeOf(m, 'nn.Module') and not torch.isTypeOf(m, 'nn.Criterion') then
        torch.manualSeed(1)
        local x = mk()
        local ok2, out = pcall(m.forward, m, x)
        if ok2 and out ~= nil then return a, x, out end
      end
    end
  end
end

describe('backward before forward', function()
  it('every module built with simple arguments errors naming itself, or gives the right gradInput', function()
    torch.setdefaulttensortype('torch.DoubleTensor')
    local names = {}
    for k, v in pairs(nn) do
      if type(v) == 'table' and torch.getmetatable('nn.' .. k) and not QUIET[k] then names[#names + 1] = k end
    end
    table.sort(names)
    local tested, errors, bad = 0, 0, {}
    for _, k in ipairs(names) do
      local a, x, out = working(k)
      if a then
        tested = tested + 1
        torch.manualSeed(2)
        local proto = nn[k](table.unpack(a))
        local go = like(out)
        local m = proto:clone()
        local ok, res = pcall(m.backward, m, x, go)
        if ok then
          local ref = proto:clone()
          ref:forward(x)
          if not same(res, ref:backward(x, go)) then bad[#bad + 1] = k .. ': a gradInput unlike forward-then-backward' end
        else
          errors = errors + 1
          local msg = tostring(res)
          for _, p in ipairs(INTERNAL) do
            if msg:find(p, 1, true) then bad[#bad + 1] = k .. ': Lua-internal error: ' .. msg end
          end
          if not msg:find('nn.' .. k, 1, true) then bad[#bad + 1] = k .. ': the error does not name nn.' .. k .. ': ' .. msg end
        end
      end
    end
    torch.setdefaulttensortype('torch.DoubleTensor')
    assert.are.same({}, bad)
    -- the harness reaches the zoo (154 classes and 60 refusals when written)
    assert.is_true(tested >= 150, 'tested ' .. tested)
    assert.is_true(errors >= 40, 'errors ' .. errors)
  end)

  it('names Dropout, its mask and the fix', function()
    local d = nn.Dropout(0.5)
    local ok, err = pcall(d.backward, d, torch.randn(4), torch.randn(4))
    assert.is_false(ok)
    assert.are.equal('nn.Dropout:updateGradInput: no dropout mask: call forward (updateOutput) before backward', err)
    d:forward(torch.randn(4))
    ok, err = pcall(d.backward, d, torch.randn(4), torch.randn(5))
    assert.are.equal('nn.Dropout:updateGradInput: gradOutput of size 5 does not match the mask of the last forward (4)',
                     err)
    -- evaluation needs no mask
    d:evaluate()
    assert.are.same({1, 2}, nn.Dropout(0.5):evaluate():backward(torch.ones(2), torch.Tensor{1, 2}):totable())
  end)

  it('an empty ConcatTable backpropagates zeros (its output {} does not depend on the input)', function()
    local c = nn.ConcatTable()
    assert.are.same({}, c:forward(torch.ones(2)))
    assert.are.same({0, 0}, c:backward(torch.ones(2), {}):totable())
  end)
end)
