-- torch.multinomial, from Torch7's THTensor_multinomial: draws follow the
-- weights, without replacement never repeat, rows are independent
-- distributions, the same seed gives the same draws, and bad input is an
-- error naming the function.
require 'torch'
local H = require 'spec.support.helpers'

describe('torch.multinomial', function()
  it('draws with the frequencies of the weights (with replacement)', function()
    torch.manualSeed(3)
    local s = torch.multinomial(torch.Tensor{1, 2, 7}, 20000, true)
    assert.are.equal('torch.LongTensor', torch.type(s))
    assert.are.same({20000}, s:size():totable())
    for k, w in ipairs{0.1, 0.2, 0.7} do
      local f = s:eq(k):sum() / 20000
      assert(math.abs(f - w) < 0.015, string.format('category %d: %g, expected %g', k, f, w))
    end
    assert.are.equal(0, s:lt(1):sum() + s:gt(3):sum())
  end)

  it('never repeats a category without replacement; a permutation when n = categories', function()
    torch.manualSeed(4)
    for _ = 1, 20 do
      local s = torch.multinomial(torch.Tensor{5, 1, 1, 3, 0.5}, 5)
      local seen = {}
      for i = 1, 5 do assert.is_nil(seen[s[i]]); seen[s[i]] = true end
    end
  end)

  it('draws each row of a 2D tensor from its own distribution', function()
    torch.manualSeed(5)
    local s = torch.multinomial(torch.Tensor{{1, 0, 0}, {0, 0, 2}}, 4, true)
    assert.are.same({{1, 1, 1, 1}, {3, 3, 3, 3}}, s:totable())
  end)

  it('gives the same draws for the same seed, with a generator, into a result, as a method', function()
    torch.manualSeed(9)
    local a = torch.multinomial(torch.Tensor{1, 2, 3, 4}, 6, true)
    torch.manualSeed(9)
    local b = torch.Tensor{1, 2, 3, 4}:multinomial(6, true)
    assert.are.same(a:totable(), b:totable())
    local g1, g2 = torch.Generator(), torch.Generator()
    torch.manualSeed(g1, 2); torch.manualSeed(g2, 2)
    local r = torch.LongTensor()
    torch.multinomial(r, g1, torch.Tensor{3, 1}, 5, true)
    assert.are.same(torch.multinomial(g2, torch.Tensor{3, 1}, 5, true):totable(), r:totable())
  end)

  it('res:multinomial(prob, n, replacement) writes into res and keeps replacement', function()
    torch.manualSeed(4)
    local r = torch.LongTensor()
    assert.are.equal(r, r:multinomial(torch.Tensor{1, 3}, 5, true))
    torch.manualSeed(4)
    assert.are.same(torch.multinomial(torch.Tensor{1, 3}, 5, true):totable(), r:totable())
    assert.has_error(function() r:multinomial(torch.Tensor{1, 3}, 5) end)
  end)

  it('refuses bad input, naming the function', function()
    local function msg(...) return H.errmsg(torch.multinomial, ...) end
    assert.truthy(msg(torch.Tensor{0, 0}, 1):find('sum of probabilities <= 0', 1, true))
    assert.truthy(msg(torch.Tensor{1, 2}, 3):find('without replacement', 1, true))
    assert.truthy(msg(torch.Tensor{1, 0, 0}, 2):find('nonzero weight', 1, true))
    assert.truthy(msg(torch.Tensor{1, -1}, 1, true):find('invalid weight', 1, true))
    assert.truthy(msg(torch.Tensor{1, 2}, 0):find('torch.multinomial: cannot sample', 1, true))
    assert.truthy(msg(3, 1):find('torch.multinomial: a 1D or 2D tensor', 1, true))
  end)
end)
