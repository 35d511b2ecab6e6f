-- optnet plans a buffer by what it holds when its module's method returns
-- (nn.Module:memoryTraits), so a module leaves each buffer at the most it
-- held in the call: nn.CMul's broadcast gradient sums shrank _repeat as
-- they went, and the plan put a 1-element slot where the kernel needs 6
-- (found by the optnet fuzzer: "resizeAs: this tensor lives in a planned
-- memory slot of 1 elements; 6 elements do not fit" at a new input size).
require 'nn'
local optnet = require 'optnet'

local function run(net, x, go)
  net:zeroGradParameters()
  local y = net:forward(x):clone()
  local gi = net:backward(x, go):clone()
  local _, g = net:parameters()
  local gc = {}
  for i, t in ipairs(g) do gc[i] = t:clone() end
  return y, gi, gc
end

local function same(net, ref, x)
  torch.manualSeed(3)
  local go = torch.randn(net:clone():forward(x):size())
  local y1, gi1, g1 = run(net, x, go)
  local y2, gi2, g2 = run(ref, x, go)
  assert.are.equal(0, (y1 - y2):abs():max())
  assert.are.equal(0, (gi1 - gi2):abs():max())
  for i = 1, #g2 do assert.are.equal(0, (g1[i] - g2[i]):abs():max()) end
end

describe('optnet buffers that shrink within their step', function()
  before_each(function() torch.setdefaulttensortype('torch.DoubleTensor') end)

  it('plans CMul broadcast sums by their largest size, at the traced input and new ones', function()
    torch.manualSeed(5)
    local net = nn.Sequential():add(nn.CMul(1, 1, 1, 1))
    local ref = net:clone()
    optnet.optimizeMemory(net, torch.randn(1, 1, 3, 2), {mode = 'training'})
    for _, s in ipairs{{1, 1, 3, 2}, {1, 1, 1, 1}, {2, 1, 3, 2}, {1, 1, 5, 4}} do
      same(net, ref, torch.randn(table.unpack(s)))
    end
  end)

  it('holds in a ConcatTable joined again (the fuzzer\'s seed 8)', function()
    torch.manualSeed(8)
    local net = nn.Sequential():add(nn.ConcatTable():add(nn.CMul(1, 1, 1, 1))):add(nn.JoinTable(2))
    local ref = net:clone()
    optnet.optimizeMemory(net, torch.randn(1, 1, 2, 2), {mode = 'training'})
    for _, s in ipairs{{1, 1, 2, 2}, {1, 1, 4, 3}, {3, 1, 2, 2}} do
      same(net, ref, torch.randn(table.unpack(s)))
    end
  end)
end)
