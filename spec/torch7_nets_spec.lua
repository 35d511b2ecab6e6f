-- Torch7's numbers: the five fixture networks and four criterions written by
-- the original Torch7 + nn (../shared/fixtures/torch7, README there) load as
-- our nn classes and reproduce Torch7's outputs, gradients, batch-norm
-- running statistics and evaluate-mode outputs to 1e-10 in double.

require 'torch'
require 'nn'

local FIX = require 'spec.support.fixtures'
local TOL = 1e-10
local NETS = {'mlp', 'convnet', 'resnet_block', 'inception_mini', 'tables_net'}

-- largest absolute difference between two tensors or (nested) tables of tensors,
-- failing when the shapes differ
local function maxdiff(a, b, what)
  if torch.isTensor(a) then
    assert.is_true(torch.isTensor(b), what .. ': tensor expected on both sides')
    assert.are.same(a:size():totable(), b:size():totable(), what .. ': sizes differ')
    if a:nElement() == 0 then return 0 end
    return (a:double() - b:double()):abs():max()
  end
  assert.are.equal('table', type(a), what)
  assert.are.equal(#b, #a, what .. ': table lengths differ')
  local m = 0
  for i = 1, #a do m = math.max(m, maxdiff(a[i], b[i], what .. '[' .. i .. ']')) end
  return m
end

local function copyOf(x)
  if torch.isTensor(x) then return x:clone() end
  local r = {}
  for i, v in ipairs(x) do r[i] = copyOf(v) end
  return r
end

local function flatGradients(net)
  local _, grads = net:parameters()
  local parts = {}
  for i, g in ipairs(grads) do parts[i] = g:contiguous():view(-1) end
  return torch.cat(parts, 1)
end

describe('Torch7 fixture networks', function()
  for _, name in ipairs(NETS) do
    describe(name, function()
      local io_ = torch.load(FIX .. name .. '_io.t7')

      it('loads as our nn classes and reproduces training output, gradInput and gradients', function()
        local net = torch.load(FIX .. name .. '.t7')
        assert.is_true(torch.isTypeOf(net, 'nn.Sequential'))
        net:training()
        local out = net:forward(io_.input)
        assert.is_true(maxdiff(out, io_.output, 'output') < TOL)
        net:zeroGradParameters()
        -- a copy: resnet_block's final in-place ReLU overwrites its gradOutput
        local gi = net:backward(io_.input, copyOf(io_.gradOutput))
        assert.is_true(maxdiff(gi, io_.gradInput, 'gradInput') < TOL)
        local flat = flatGradients(net)
        assert.are.equal(io_.gradWeight_flat:nElement(), flat:nElement())
        assert.is_true(maxdiff(flat, io_.gradWeight_flat, 'gradWeight_flat') < TOL)
        if io_.bn_running_after then
          local bns = net:findModules('nn.SpatialBatchNormalization')
          assert.are.equal(#io_.bn_running_after, #bns)
          for i, bn in ipairs(bns) do
            local ref = io_.bn_running_after[i]
            assert.is_true(maxdiff(bn.running_mean, ref.running_mean, 'running_mean') < TOL)
            assert.is_true(maxdiff(bn.running_var, ref.running_var, 'running_var') < TOL)
          end
        end
        -- evaluate mode uses the running statistics the training pass updated
        net:evaluate()
        assert.is_true(maxdiff(net:forward(io_.input), io_.output_eval, 'output_eval') < TOL)
      end)

      it('reproduces output_eval_initial in evaluate mode straight after loading', function()
        local net = torch.load(FIX .. name .. '.t7')
        net:evaluate()
        assert.is_true(maxdiff(net:forward(io_.input), io_.output_eval_initial, 'output_eval_initial') < TOL)
      end)

      it('loads the used file (buffers, aliases) and reproduces output_eval', function()
        local net = torch.load(FIX .. name .. '_used.t7')
        assert.is_false(net.train)
        assert.is_true(net.output == net.modules[#net.modules].output, 'the output alias survives loading')
        assert.is_true(maxdiff(net:forward(io_.input), io_.output_eval, 'output_eval') < TOL)
        -- and it still trains: a backward pass runs and gives finite gradients
        net:training()
        net:forward(io_.input)
        net:zeroGradParameters()
        net:backward(io_.input, copyOf(io_.gradOutput))
        local flat = flatGradients(net)
        assert.are.equal(flat:nElement(), io_.gradWeight_flat:nElement())
        assert.is_true(flat:eq(flat):all(), 'no NaN in the gradients')
      end)
    end)
  end
end)

describe('Torch7 fixture criterions', function()
  local cases = torch.load(FIX .. 'criterions_io.t7')
  local names = {'ClassNLLCriterion', 'CrossEntropyCriterion', 'MSECriterion', 'BCECriterion',
                 'ClassNLLCriterion_1d'}

  for _, key in ipairs(names) do
    it(key .. ' reproduces loss and gradInput, fresh and as saved', function()
      local c = cases[key]
      assert.is_not_nil(c, key)
      local class = c.class:match('^nn%.(.+)$')
      local fresh = nn[class]()
      for _, crit in ipairs{fresh, c.criterion} do
        assert.are.equal(c.class, torch.typename(crit))
        local loss = crit:forward(c.input, c.target)
        assert.is_true(math.abs(loss - c.loss) < TOL, string.format('%s loss %.17g vs %.17g', key, loss, c.loss))
        local gi = crit:backward(c.input, c.target)
        assert.is_true(maxdiff(gi, c.gradInput, key .. ' gradInput') < TOL)
      end
    end)
  end
end)
