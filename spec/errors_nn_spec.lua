-- Bad input to nn: wrong types, ranks and sizes into updateOutput,
-- mismatched gradOutput into updateGradInput, backward before forward,
-- criterions with bad targets. Every message names the module and method,
-- what was expected and what came; the probe at the end throws a pool of
-- bad values at every module and demands a named error, never a crash.
require 'torch'
require 'nn'

local T, F, L = torch.DoubleTensor, torch.FloatTensor, torch.LongTensor

local fails = require('spec.support.helpers').fails

local function fwd(m, x) return m:forward(x) end
local function bwd(m, x, g) return m:backward(x, g) end

describe('nn modules: input rank, size and type', function()
  it('Linear', function()
    local m = nn.Linear(4, 3)
    fails('nn.Linear:updateOutput: input must be a tensor, got string', fwd, m, 'x')
    fails('nn.Linear:updateOutput: input must be a tensor, got nil', fwd, m, nil)
    fails('nn.Linear:updateOutput: size mismatch: input must be 1D or 2D with 4 columns, got 3D 2x2x4', fwd, m, T(2, 2, 4))
    fails('nn.Linear:updateOutput: size mismatch: input must be 1D or 2D with 4 columns, got 0D empty', fwd, m, T())
    fails('nn.Linear:updateOutput: input must be a torch.DoubleTensor like the weight, got torch.FloatTensor',
          fwd, m, F(2, 4))
    m:forward(T(2, 4))
    fails('nn.Linear:updateGradInput: gradOutput must be 2x3 (batch x outputSize), got 2x5', bwd, m, T(2, 4), T(2, 5))
    fails('nn.Linear:updateGradInput: gradOutput must be a tensor, got nil', bwd, m, T(2, 4), nil)
  end)

  it('pointwise layers', function()
    local r = nn.ReLU()
    fails('nn.ReLU:updateOutput: input must be a tensor, got string', fwd, r, 'x')
    r:forward(T(2, 3))
    fails('nn.ReLU:updateGradInput: gradOutput must have as many elements as the input (2x3, 6), got 3x3 (9)',
          bwd, r, T(2, 3), T(3, 3))
    fails('nn.CMul:updateOutput: input must be a tensor, got string', fwd, nn.CMul(4), 'x')
    fails({'nn.SoftMax:updateOutput: input must be 1D, 2D (batch)', 'got 5D 1x1x1x1x2'}, fwd, nn.SoftMax(), T(1, 1, 1, 1, 2))
  end)

  it('a freed tensor: the module, the argument and who freed it (one message for every binding)', function()
    local function scoped(...)  -- freed when its dispose scope closed
      local n, t = {...}
      torch.withDisposeScope(function() t = T(table.unpack(n)):fill(1) end)
      return t
    end
    local hint = 'was freed by its dispose scope (keep it with :moveToOuterDisposeScope() or :detachFromDisposeScope())'
    fails('nn.Linear:updateOutput: input ' .. hint, fwd, nn.Linear(4, 3), scoped(2, 4))
    fails('nn.ReLU:updateOutput: input ' .. hint, fwd, nn.ReLU(), scoped(2, 4))
    fails('nn.Tanh:updateOutput: input ' .. hint, fwd, nn.Tanh(), scoped(2, 4))
    fails('nn.Abs:updateOutput: input ' .. hint, fwd, nn.Abs(), scoped(2, 4))
    fails('nn.SpatialConvolution:updateOutput: input ' .. hint, fwd, nn.SpatialConvolution(1, 1, 3, 3), scoped(1, 5, 5))
    local m = nn.Linear(4, 3)
    m:forward(T(2, 4):fill(1))
    fails('nn.Linear:updateGradInput: gradOutput ' .. hint, bwd, m, T(2, 4):fill(1), scoped(2, 3))
    local x = T(2, 4)
    x:free()
    fails('nn.Linear:updateOutput: input was freed (used after :free()/:dispose())', fwd, nn.Linear(4, 3), x)
    fails('nn.ReLU:updateOutput: input was freed (used after :free()/:dispose())', fwd, nn.ReLU(), x)
  end)

  it('convolution and pooling', function()
    local cv = nn.SpatialConvolution(3, 4, 3, 3)
    fails('nn.SpatialConvolution:updateOutput: input 1x3x2x2 is smaller than the 3x3 kernel (with padding 0,0)',
          fwd, cv, T(1, 3, 2, 2))
    fails('nn.SpatialConvolution:updateOutput: input must be 3D or 4D (batch) with 3 input planes, got 4D 1x2x5x5',
          fwd, cv, T(1, 2, 5, 5))
    fails('nn.SpatialConvolution:updateOutput: input must be 3D or 4D (batch) with 3 input planes, got 2D 5x5',
          fwd, cv, T(5, 5))
    cv:forward(T(1, 3, 5, 5))
    fails('nn.SpatialConvolution:updateGradInput: gradOutput must be 1x4x3x3 (the output size), got 1x4x2x2',
          bwd, cv, T(1, 3, 5, 5), T(1, 4, 2, 2))
    local mp = nn.SpatialMaxPooling(2, 2)
    fails('nn.SpatialMaxPooling:updateOutput: input 1x1x1x1 is smaller than the 2x2 window (with padding 0,0)',
          fwd, mp, T(1, 1, 1, 1))
  end)

  it('batch normalization', function()
    local bn = nn.BatchNormalization(3)
    fails('nn.BatchNormalization:updateOutput: input must have 3 features (dimension 2), got 2D 4x5', fwd, bn, T(4, 5))
    fails('nn.SpatialBatchNormalization:updateOutput: input must be 4D (batch x 3 features x height x width) in training mode, got 2D 4x3',
          fwd, nn.SpatialBatchNormalization(3), T(4, 3))
  end)

  it('LookupTable indices', function()
    local lt = nn.LookupTable(10, 3)
    fails('nn.LookupTable:updateOutput: index 11 at position 2 out of range (expected 1..10)', fwd, lt, L({1, 11}))
    fails('nn.LookupTable:updateOutput: index 0 out of range (expected 1..10)', fwd, lt, L({0}))
    fails('nn.LookupTable:updateOutput: index 1.5 at position 1 is not an integer', fwd, lt, T({1.5}))
    -- int64's edges are integers out of range, not "not an integer"
    fails('nn.LookupTable:updateOutput: index -9223372036854775808 at position 1 out of range (expected 1..10)',
          fwd, lt, L({math.mininteger}))
  end)

  it('shape modules and tables', function()
    fails('nn.Select:updateOutput: input must have at least 2 dimensions, got 1D 3', fwd, nn.Select(1, 2), T(3))
    fails('nn.View:updateOutput: input view (2x4) and desired view (5) do not match', fwd, nn.View(5), T(2, 4))
    local ct = nn.CAddTable()
    fails('nn.CAddTable:updateOutput: input must be a table of at least 1 tensors, got 1D 3', fwd, ct, T(3))
    fails('nn.CAddTable:updateOutput: input[2] (4) and input[1] (3) must have the same number of elements',
          fwd, ct, {T(3), T(4)})
    fails('nn.JoinTable:updateOutput: input[2] (2x4) does not match input[1] (2x3) outside dimension 1',
          fwd, nn.JoinTable(1), {T(2, 3), T(2, 4)})
  end)

  it('containers say which module failed', function()
    local s = nn.Sequential():add(nn.Linear(4, 3)):add(nn.Linear(5, 2))
    fails({'In 2 module of nn.Sequential', 'nn.Linear:updateOutput: size mismatch: input must be 1D or 2D with 5 columns, got 2D 2x3'},
          fwd, s, T(2, 4))
    local c = nn.Concat(2):add(nn.Linear(4, 3)):add(nn.Linear(4, 2))
    fails({'In 1 module of nn.Concat', 'input must be a tensor, got string'}, fwd, c, 'x')
    -- no position of the project's own files: the inner module's line starts with its name
    local ok, err = pcall(fwd, s, T(2, 4))
    assert.is_false(ok)
    assert.is_truthy(err:find('In 2 module of nn.Sequential:\nnn.Linear:updateOutput:', 1, true), err)
    assert.is_falsy(err:find('/lua/nn/', 1, true), err)
  end)

  it('a module loaded from a damaged file fails at load time, naming class and field', function()
    local m = nn.Linear(4, 3)
    m.gradBias = nil
    fails({'torch.deserialize: <string>: corrupt at byte', "nn.Linear: field 'gradBias' is missing (bias is there)"},
          torch.deserialize, torch.serialize(m))
  end)

  it('constructors', function()
    fails('nn.Dropout: illegal percentage, must be 0 <= p < 1, got 1.5', nn.Dropout, 1.5)
    fails('nn.Linear: inputSize must be a positive integer, got -1', nn.Linear, -1, 3)
    fails('nn.Linear: inputSize must be a positive integer, got a', nn.Linear, 'a', 3)
    fails('nn.SpatialConvolution: kW must be an integer >= 1, got 0', nn.SpatialConvolution, 3, 4, 0, 3)
  end)

  it('non-contiguous inputs give the contiguous answer', function()
    local m = nn.Linear(4, 3)
    local nc = T(4, 2):uniform():t()
    assert.is_false(nc:isContiguous())
    local a = m:forward(nc):clone()
    local b = m:forward(nc:contiguous())
    assert.are.equal(0, (a - b):abs():max())
    local cv = nn.SpatialConvolution(2, 3, 3, 3)
    local x = T(1, 2, 6, 6):uniform()
    local xt = x:transpose(3, 4):contiguous():transpose(3, 4)  -- same values, other strides
    assert.is_false(xt:isContiguous())
    assert.is_true((cv:forward(x):clone() - cv:forward(xt)):abs():max() < 1e-12)
  end)
end)

describe('nn: backward before forward and gradOutput mismatches', function()
  it('modules that need forward state say so', function()
    fails('nn.SpatialMaxPooling:updateGradInput: indices must be 1x2x2x2 (the output size; run forward first), got empty',
          bwd, nn.SpatialMaxPooling(2, 2), T(1, 2, 4, 4), T(1, 2, 2, 2))
    fails('nn.BatchNormalization:updateGradInput: save_mean and save_std hold no statistics for this input: run forward in training mode first',
          bwd, nn.BatchNormalization(3), T(4, 3), T(4, 3))
    local mx = nn.Max(2)
    fails('nn.Max:updateGradInput: no forward pass for input 2D 3x4: call forward with this input first',
          bwd, mx, T(3, 4), T(3))
    mx:forward(T(3, 4))
    fails('nn.Max:updateGradInput: no forward pass for input 2D 4x3: call forward with this input first',
          bwd, mx, T(4, 3), T(4))
    fails('nn.Max:updateGradInput: gradOutput must be a torch.DoubleTensor like the input, got torch.FloatTensor',
          bwd, mx, T(3, 4), F(3))
    fails('nn.Max:updateGradInput: gradOutput must have the size of the output (3 elements), got 1D 5',
          bwd, mx, T(3, 4), T(5))
  end)

  it('Max accepts a gradOutput of the output\'s element count in another layout', function()
    local mx = nn.Max(1)
    local x = T(2, 4, 1, 1):uniform()
    mx:forward(x)
    local g = mx:backward(x, T(4):fill(1))
    assert.are.equal(4, g:sum())
  end)
end)

describe('nn criterions: bad targets', function()
  it('ClassNLLCriterion and CrossEntropyCriterion', function()
    local nll = nn.ClassNLLCriterion()
    local x = T(2, 3):uniform()
    fails('nn.ClassNLLCriterion:updateOutput: target 4 at position 2 out of range (expected 1..3)', nll.forward, nll, x, L({1, 4}))
    fails('nn.ClassNLLCriterion:updateOutput: target 0 at position 2 out of range (expected 1..3)', nll.forward, nll, x, L({1, 0}))
    fails('nn.ClassNLLCriterion:updateOutput: target 2.5 at position 2 is not an integer', nll.forward, nll, x, T({1, 2.5}))
    fails('nn.ClassNLLCriterion:updateOutput: target -nan at position 2 is not an integer', nll.forward, nll, x, T({1, 0 / 0}))
    fails('nn.ClassNLLCriterion:updateOutput: target must hold 2 class numbers (one per row of the 2x3 input), got 3',
          nll.forward, nll, x, L({1, 2, 3}))
    fails('nn.ClassNLLCriterion:updateOutput: target must be a tensor, got string', nll.forward, nll, x, 'x')
    fails('nn.ClassNLLCriterion:updateGradInput: target 5 at position 2 out of range (expected 1..3)',
          nll.backward, nll, x, L({1, 5}))
    local ce = nn.CrossEntropyCriterion()
    fails('target 4 at position 2 out of range (expected 1..3)', ce.forward, ce, x, L({1, 4}))
  end)

  it('regression criterions', function()
    local mse = nn.MSECriterion()
    fails('nn.MSECriterion:updateOutput: target must have as many elements as the input (2x3, 6), got 4 (4)',
          mse.forward, mse, T(2, 3), T(4))
    fails('nn.MSECriterion:updateOutput: target must be a torch.DoubleTensor like the input, got torch.FloatTensor',
          mse.forward, mse, T(2, 3), F(2, 3))
    fails('nn.MSECriterion:updateOutput: target must be a tensor, got nil', mse.forward, mse, T(2, 3), nil)
    for _, name in ipairs({'AbsCriterion', 'SmoothL1Criterion', 'DistKLDivCriterion', 'MarginCriterion'}) do
      local c = nn[name]()
      fails('nn.' .. name .. ':updateOutput: target must have as many elements as the input (3, 3), got 4 (4)',
            c.forward, c, T(3):fill(0.5), T(4))
    end
  end)

  it('BCECriterion refuses inputs that are not probabilities instead of returning NaN', function()
    local b = nn.BCECriterion()
    fails('nn.BCECriterion:updateOutput: input must hold probabilities in [0, 1], got values in [0.5, 1.5]',
          b.forward, b, T({0.5, 1.5}), T({1, 0}))
    fails('input must hold probabilities in [0, 1]', b.forward, b, T({0.5, 0 / 0}), T({1, 0}))
    local loss = b:forward(T({0.5, 0.2}), T({1, 0}))
    assert.is_true(math.abs(loss - (-(math.log(0.5) + math.log(0.8)) / 2)) < 1e-9)
  end)
end)

describe('nn: every module survives a pool of bad inputs', function()
  -- constructor arguments for each module; the probe calls forward with
  -- every pool value, and backward with every pool value as gradOutput
  -- after a successful forward, then backward on a fresh module
  local modules = {
    {'Linear', 4, 3}, {'ReLU'}, {'Tanh'}, {'Sigmoid'}, {'SoftMax'}, {'LogSoftMax'}, {'ELU'}, {'LeakyReLU'},
    {'Threshold', 0, 0}, {'SoftPlus'}, {'Identity'}, {'Add', 4}, {'CMul', 4}, {'Mul'}, {'AddConstant', 1},
    {'MulConstant', 2}, {'Dropout', 0.5}, {'BatchNormalization', 4}, {'SpatialBatchNormalization', 4},
    {'SpatialConvolution', 4, 2, 3, 3}, {'SpatialConvolutionMM', 4, 2, 3, 3}, {'SpatialFullConvolution', 4, 2, 3, 3},
    {'SpatialMaxPooling', 2, 2}, {'SpatialAveragePooling', 2, 2}, {'SpatialCrossMapLRN', 3},
    {'SpatialZeroPadding', 1, 1, 1, 1}, {'LookupTable', 10, 3}, {'View', 4}, {'Reshape', 4}, {'Transpose', {1, 2}},
    {'Select', 1, 2}, {'Narrow', 1, 1, 2}, {'Squeeze'}, {'Replicate', 2}, {'Sum', 1}, {'Mean', 1}, {'Max', 1},
    {'Min', 1}, {'PairwiseDistance', 2}, {'CAddTable'}, {'CMulTable'}, {'CSubTable'}, {'JoinTable', 1},
    {'SplitTable', 1}, {'SelectTable', 1}, {'NarrowTable', 1, 1}, {'FlattenTable'},
  }
  local function pool()
    return {'x', {}, 3, F(), F(0), F(4), F(2, 4):uniform(), F(2, 4, 5, 5):uniform(), F(4, 5, 5):uniform(),
            F(3, 7):uniform(), T(2, 4):uniform(), L({1, 2}), F(4, 2):uniform():t(), F(2, 4, 1, 1):uniform(),
            F(2, 4, 2, 2):fill(0 / 0), {F(2, 4), F(3, 4)}, {F(2, 4), 'x'}, torch.ByteTensor(2, 4), false}
  end

  it('errors come from the module, never from Lua itself', function()
    local unclear = {}
    local function check(what, ok, err)
      -- "attempt to index a nil value" and friends mean a value was used unchecked
      if not ok and tostring(err):find('attempt to', 1, true) then unclear[#unclear + 1] = what .. ': ' .. tostring(err) end
    end
    for _, spec in ipairs(modules) do
      local name = spec[1]
      local values = pool()
      for i = 1, #values do
        local m = nn[name](table.unpack(spec, 2)):float()
        local x = values[i]
        local ok, err = pcall(m.forward, m, x)
        check(name .. ':forward(' .. torch.type(x) .. ')', ok, err)
        if ok then
          for j = 1, #values do
            check(name .. ':backward', pcall(m.backward, m, x, values[j]))
          end
        end
        local fresh = nn[name](table.unpack(spec, 2)):float()
        check(name .. ':backward before forward', pcall(fresh.backward, fresh, x, x))
      end
    end
    assert.are.same({}, unclear)
  end)
end)
