-- nn.fuse / nn.unfuse: the ReLU fusion pass (lua/nn/fuse.lua, docs/nn.md).
-- A fused net gives the unfused net's numbers bit for bit, forward and
-- backward, training and evaluation; unfuse takes the marks off; the marks
-- travel through save, clone and type; modules that run other code are
-- left out.
require 'nn'
local H = require 'spec.support.helpers'

local function marks(net)
  local n = 0
  for _, m in ipairs(net:listModules()) do if rawget(m, 'fuseReLU') then n = n + 1 end end
  return n
end

local function resblock(c)
  local body = nn.Sequential():add(nn.SpatialConvolution(c, c, 3, 3, 1, 1, 1, 1))
    :add(nn.SpatialBatchNormalization(c)):add(nn.ReLU(true))
    :add(nn.SpatialConvolution(c, c, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(c))
  return nn.Sequential():add(nn.ConcatTable():add(body):add(nn.Identity()))
    :add(nn.CAddTable(true)):add(nn.ReLU(true))
end

local CASES = {
  {'spatial batch norm + residual add', function(ip)
    return nn.Sequential():add(nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1))
      :add(nn.SpatialBatchNormalization(4)):add(nn.ReLU(ip)):add(resblock(4)):add(resblock(4))
  end, {3, 3, 6, 6}, {5, 4}},   -- the blocks' ReLUs are in place either way
  {'batch norm', function(ip)
    return nn.Sequential():add(nn.Linear(6, 5)):add(nn.BatchNormalization(5)):add(nn.ReLU(ip))
      :add(nn.Linear(5, 4)):add(nn.BatchNormalization(4, 1e-5, 0.1, false)):add(nn.Threshold(0, 0, ip))
  end, {7, 6}, {2, 0}},
  {'volumetric batch norm', function(ip)
    return nn.Sequential():add(nn.VolumetricConvolution(2, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1))
      :add(nn.VolumetricBatchNormalization(3)):add(nn.ReLU(ip))
  end, {2, 2, 4, 4, 4}, {1, 0}},
}

describe('nn.fuse', function()
  for _, ty in ipairs{'torch.FloatTensor', 'torch.DoubleTensor'} do
    for _, case in ipairs(CASES) do
      for _, ip in ipairs{true, false} do
        it(string.format('%s, %s, in place %s: the unfused numbers bit for bit', case[1], ty, tostring(ip)), function()
          torch.manualSeed(11)
          local plain = case[2](ip):type(ty)
          local fused = plain:clone()
          local _, n = nn.fuse(fused)
          assert.are.equal(case[4][ip and 1 or 2], n)
          assert.are.equal(n, marks(fused))
          for _, mode in ipairs{'training', 'evaluate', 'training'} do
            plain[mode](plain); fused[mode](fused)
            plain:zeroGradParameters(); fused:zeroGradParameters()
            local x = torch.randn(table.unpack(case[3])):type(ty)
            local y1, y2 = plain:forward(x:clone()), fused:forward(x:clone())
            assert.is_true(torch.equal(y1, y2), mode)
            local go = torch.randn(y1:size()):type(ty)
            assert.is_true(torch.equal(plain:backward(x, go), fused:backward(x, go)), mode)
            local _, g1 = plain:parameters()
            local _, g2 = fused:parameters()
            for i = 1, #g1 do assert.is_true(torch.equal(g1[i], g2[i]), mode .. ' grad ' .. i) end
            local bns = plain:findModules('nn.SpatialBatchNormalization')
            for i, m in ipairs(fused:findModules('nn.SpatialBatchNormalization')) do
              assert.is_true(torch.equal(m.running_var, bns[i].running_var))
            end
          end
        end)
      end
    end
  end

  -- the input the ReLU is handed: clipped when the batch norm ran fused
  local function reluSees(net, x)
    local relu = net:get(2)
    local seen
    relu.updateOutput = function(self, input)
      seen = input:min()
      return nn.ReLU.updateOutput(self, input)
    end
    net:forward(x)
    relu.updateOutput = nil
    return seen
  end

  it('unfuse takes the marks off and the batch norm writes its own output again', function()
    torch.manualSeed(2)
    local net = nn.Sequential():add(nn.BatchNormalization(4)):add(nn.ReLU(true))
    local x = torch.randn(8, 4)
    nn.fuse(net)
    assert.is_true(reluSees(net, x) >= 0)
    assert.are.equal(net, nn.unfuse(net))
    assert.are.equal(0, marks(net))
    assert.is_true(reluSees(net, x) < 0)
  end)

  it('keeps its marks through save, clone and type, with the same numbers', function()
    torch.manualSeed(4)
    local plain = CASES[1][2](true)
    local fused = nn.fuse(plain:clone())
    local x = torch.randn(2, 3, 6, 6)
    local want = plain:forward(x):clone()
    for _, copy in ipairs{fused:clone(), torch.deserialize(torch.serialize(fused)),
                          torch.deserialize(torch.serialize(fused, 'ascii'), 'ascii')} do
      assert.are.equal(5, marks(copy))
      assert.is_true(torch.equal(want, copy:forward(x)))
    end
    local f = fused:clone():float()
    assert.are.equal(5, marks(f))
    assert.is_true(torch.equal(plain:clone():float():forward(x:float()), f:forward(x:float())))
  end)

  it('re-marks from scratch: a pair broken by an edit is not fused', function()
    local net = nn.Sequential():add(nn.BatchNormalization(3)):add(nn.ReLU(true)):add(nn.Linear(3, 3))
    nn.fuse(net)
    assert.is_true(net:get(1).fuseReLU)
    net:remove(2)
    local _, n = nn.fuse(net)
    assert.are.equal(0, n)
    assert.is_nil(net:get(1).fuseReLU)
  end)

  it('leaves out a module that stands twice in the net', function()
    local bn = nn.BatchNormalization(3)
    local net = nn.Sequential():add(nn.Sequential():add(bn):add(nn.ReLU(true)))
      :add(nn.Sequential():add(bn):add(nn.Tanh()))
    assert.are.equal(0, select(2, nn.fuse(net)))
    local relu = nn.ReLU(true)
    local twice = nn.Sequential():add(nn.BatchNormalization(3)):add(relu):add(nn.Linear(3, 3)):add(relu)
    assert.are.equal(0, select(2, nn.fuse(twice)))
  end)

  it('leaves out a module that runs other code than its class\'s', function()
    local net = nn.Sequential():add(nn.BatchNormalization(3)):add(nn.ReLU(true))
      :add(nn.BatchNormalization(3)):add(nn.ReLU(true)):add(nn.CAddTable(false))
    net:get(2).updateOutput = function(self, x) return nn.ReLU.updateOutput(self, x) end
    local _, n = nn.fuse(net)
    assert.are.equal(1, n)
    assert.is_nil(net:get(1).fuseReLU)
    assert.is_true(net:get(3).fuseReLU)
    assert.is_false(nn.CAddTable(false):fusesReLU())
  end)

  it('runs a marked module unfused once it runs other code', function()
    torch.manualSeed(6)
    local net = nn.fuse(nn.Sequential():add(nn.BatchNormalization(4)):add(nn.ReLU(true)))
    local own
    local bn = net:get(1)
    bn.updateOutput = function(self, x)
      local y = nn.BatchNormalization.updateOutput(self, x)
      own = y:min()
      return y
    end
    local y = net:forward(torch.randn(8, 4))
    assert.is_true(own < 0)      -- the batch norm's own output, seen before the ReLU
    assert.is_true(y:min() >= 0)
    bn.updateOutput = nil
  end)

  if nn.Module.hook then
    it('leaves out hooked modules, and a marked module hooked later runs unfused', function()
      torch.manualSeed(8)
      local net = nn.Sequential():add(nn.BatchNormalization(4)):add(nn.ReLU(true))
      local h = net:get(1):hook('updateOutput', function(nextf, self, x) return nextf(self, x) end)
      assert.are.equal(0, select(2, nn.fuse(net)))
      h:remove()
      nn.fuse(net)
      local own
      h = net:get(1):hook('updateOutput', function(nextf, self, x)
        local y = nextf(self, x)
        own = y:min()
        return y
      end)
      net:forward(torch.randn(8, 4))
      assert.is_true(own < 0)
      h:remove()
    end)
  end

  it('checks its argument', function()
    H.has(H.errmsg(nn.fuse, 3), 'nn.fuse: nn.Module expected as argument 1, got number')
    H.has(H.errmsg(nn.unfuse, {}), 'nn.unfuse: nn.Module expected as argument 1, got table')
  end)
end)

describe('the model zoo', function()
  local models = require 'models'
  it('builds its nets fused unless fuse = false', function()
    local net = models.build('resnet', {batch = 2, dataset = 'cifar10', depth = 8, type = 'double'})
    assert.is_true(marks(net) > 0)
    local plain, x = models.build('resnet', {batch = 2, dataset = 'cifar10', depth = 8, type = 'double', fuse = false})
    assert.are.equal(0, marks(plain))
    H.has(H.errmsg(models.build, 'mlp', {fuse = 1}), 'models.mlp: fuse must be true or false, got 1')
    plain:evaluate()
    local fused = nn.fuse(plain:clone())
    assert.is_true(torch.equal(plain:forward(x), fused:forward(x)))
  end)
end)
