-- nn.validate: checks a module read by torch.load before anything uses it.
-- torch.load runs Module:__validate() on every object whose class derives
-- from nn.Module once its fields are read (its children were checked
-- before it), so a damaged file fails at load time with the class, the
-- field and what was wrong, instead of failing later inside forward with
-- "attempt to index a nil value (field 'weight')".
--
-- The checks are data:
-- - 'fields': the kind of a field by its name, for every class that has a
--   field of that name (kW is a positive integer wherever it appears);
-- - 'classes[name]': per class (inherited by subclasses, a subclass's
--   entries win): 'kinds' (field kinds that differ from the shared ones,
--   or false to drop one), 'need' (fields that must be present) and
--   'shapes' (the sizes a tensor field must have: each entry is
--   {field, dim1, dim2, ...} where a dim is a number, a field name (its
--   value), 'other:k' (size k of tensor field 'other'), '*' (any), or a
--   function(m) giving the number; several alternatives as
--   {field, alt = {{...}, {...}}}).
-- Every module also gets the generic checks: 'output' and 'gradInput' are
-- tensors or tables of them, and parameters() works and returns tensors
-- whose gradients (when not empty) have the parameters' sizes.
--
-- Lenient where Torch7 was (docs/compat.md, 'What torch.load accepts'): a
-- file refused here is one that would crash or compute wrong numbers later,
-- never one Torch7's own code reads and runs. So before the checks a loaded
-- module is completed as Torch7's modules completed themselves:
-- - 'defaults[class]': fields old files lack, filled as Torch7's
--   backCompatibility/read did (padW = 0, running_var from running_std...);
-- - 'output' and 'gradInput' are nobody's requirement: a custom class
--   whose __init never called its parent's has neither (torch-rnn's
--   nn.LanguageModel). Where a missing one would be indexed by nn's own
--   method, an empty one (a tensor of the module's type, or a table for
--   the classes in 'tableOutput'/'tableGradInput') is made at load, as
--   `self.x = self.x or input.new()` would; the classes in 'nilGradInput'
--   keep gradInput = nil, which there means "do not compute it" (Torch7's
--   `if self.gradInput then`, fb.resnet.torch's first layer).
local torch = torch
local sformat = string.format

local V = {}

-- an integer-valued number, else nil (math.tointeger also converts the
-- string "3", which a file may hold where a number belongs: a string
-- must fail the check, not reach 'v >= 1' and raise from Lua)
local function toint(v)
  return type(v) == 'number' and math.tointeger(v) or nil
end

-- --- kinds ----------------------------------------------------------------

local function isModule(v)
  return torch.isTypeOf(v, 'nn.Module')
end

local function isTensors(v, depth)
  if torch.isTensor(v) then return true end
  if type(v) ~= 'table' or torch.typename(v) or depth > 8 then return false end
  for _, x in pairs(v) do
    if not isTensors(x, depth + 1) then return false end
  end
  return true
end

-- a table whose keys are exactly 1..n (#v is any border when there is a
-- hole: a flipped key 2 -> 3 left {1, 3, 4, 5} with #v = 5), each value
-- passing test
local function isList(v, test)
  if type(v) ~= 'table' or torch.typename(v) then return false end
  local n, count = #v, 0
  for k, x in pairs(v) do
    if math.type(k) ~= 'integer' or k < 1 or k > n or not test(x) then return false end
    count = count + 1
  end
  return count == n
end

local function what(v)
  if torch.isTensor(v) then return sformat('a %dD %s', v:dim(), torch.typename(v)) end
  if type(v) == 'number' then return sformat('the number %s', tostring(v)) end
  if type(v) == 'string' then return sformat("the string '%s'", #v > 40 and v:sub(1, 40) .. '...' or v) end
  return torch.type(v)
end

-- kind -> {test(v) -> ok, what was expected}
V.kinds = {
  tensor = {function(v) return torch.isTensor(v) end, 'a tensor'},
  tensors = {function(v) return isTensors(v, 0) end, 'a tensor or a table of tensors'},
  count = {function(v) return toint(v) ~= nil and v >= 1 end, 'a positive integer'},
  size = {function(v) return toint(v) ~= nil and v >= 0 end, 'a non-negative integer'},
  integer = {function(v) return toint(v) ~= nil end, 'an integer'},
  number = {function(v) return type(v) == 'number' and v == v end, 'a number (not NaN)'},
  boolean = {function(v) return type(v) == 'boolean' end, 'a boolean'},
  string = {function(v) return type(v) == 'string' end, 'a string'},
  table = {function(v) return type(v) == 'table' and not torch.typename(v) end, 'a table'},
  longstorage = {function(v) return torch.typename(v) == 'torch.LongStorage' end, 'a torch.LongStorage'},
  module = {isModule, 'an nn.Module'},
  -- a list 1..n of modules, nothing else
  modules = {function(v) return isList(v, isModule) end, 'a list of nn.Module'},
  node = {function(v) return torch.typename(v) == 'nngraph.Node' end, 'an nngraph.Node'},
  nodes = {function(v) return isList(v, function(x) return torch.typename(x) == 'nngraph.Node' end) end,
           'a list of nngraph.Node'},
  probability = {function(v) return type(v) == 'number' and v >= 0 and v < 1 end, 'a number in [0, 1)'},
  -- nn.Transpose: a list of {dim1, dim2} pairs of positive integers
  permutations = {function(v)
    return isList(v, function(p)
      if type(p) ~= 'table' then return false end
      for i = 1, 2 do
        if toint(p[i]) == nil or p[i] < 1 then return false end
      end
      return true
    end)
  end, 'a list of {dim1, dim2} pairs of positive integers'},
}

-- the kind of a field by its name, in every class that has it
V.fields = {
  output = 'tensors', gradInput = 'tensors',
  weight = 'tensor', bias = 'tensor', gradWeight = 'tensor', gradBias = 'tensor',
  running_mean = 'tensor', running_var = 'tensor',
  kW = 'count', kH = 'count', kT = 'count', dW = 'count', dH = 'count', dT = 'count',
  padW = 'size', padH = 'size', padT = 'size', adjW = 'size', adjH = 'size', adjT = 'size',
  dilationW = 'count', dilationH = 'count', dilationT = 'count',
  nInputPlane = 'count', nOutputPlane = 'count',
  inputFrameSize = 'count', outputFrameSize = 'count',
  hiddenSize = 'count',
  modules = 'modules', module = 'module',
  train = 'boolean', inplace = 'boolean', ceil_mode = 'boolean', affine = 'boolean',
  eps = 'number', momentum = 'number', threshold = 'number', val = 'number',
  constant_scalar = 'number', dimension = 'integer', nInputDims = 'integer',
  pad_l = 'integer', pad_r = 'integer', pad_t = 'integer', pad_b = 'integer',
  _type = 'string',
}

-- parameter -> its gradient: where the parameter is, the gradient must be
V.gradients = {weight = 'gradWeight', bias = 'gradBias'}

-- classes (and their subclasses) whose output and gradInput are tensors,
-- never tables: tables there fail inside their methods
V.tensorIO = {}
for name in ([[Linear Bilinear? Cosine Euclidean WeightedEuclidean LookupTable SparseLinear? PReLU Mul Add CAdd CMul
  SpatialConvolution SpatialDepthWiseConvolution SpatialConvolutionLocal
  SpatialConvolutionMap SpatialFullConvolutionMap SpatialSubSampling TemporalConvolution
  TemporalSubSampling TemporalRowConvolution VolumetricConvolution
  BatchNormalization SpatialMaxPooling SpatialAveragePooling SpatialCrossMapLRN Dropout View Reshape
  Threshold Tanh Sigmoid SoftMax LogSoftMax HardTanh ELU LeakyReLU SoftPlus SoftSign Abs Exp Log Sqrt
  Square Power Clamp MulConstant AddConstant Transpose Squeeze Unsqueeze Sum Mean Max Min Normalize
  Replicate Select Narrow Contiguous SpatialZeroPadding SpatialReflectionPadding
  SpatialReplicationPadding LogSigmoid SoftMin SoftShrink HardShrink TanhShrink]]):gmatch('[%w?]+') do
  if not name:find('?', 1, true) then V.tensorIO['nn.' .. name] = true end
end

-- (padW and padH: old files lack them, Torch7 read them as 0: 'defaults')
local conv2 = {need = {'weight', 'nInputPlane', 'nOutputPlane', 'kW', 'kH', 'dW', 'dH'}}
local pool2 = {need = {'kW', 'kH', 'dW', 'dH'}}

V.classes = {
  -- nngraph: the graph's entry, exit and orders its passes walk (the nodes'
  -- own fields are not checked yet)
  ['nn.gModule'] = {need = {'innode', 'outnode', 'forwardnodes', 'backwardnodes'},
                    kinds = {innode = 'node', outnode = 'node', forwardnodes = 'nodes', backwardnodes = 'nodes',
                             nInputs = 'count'},
                    check = function(m, cname) return V.checkGraph(m, cname) end},
  -- a module whose output is a criterion's loss (a number)
  ['nn.CriterionTable'] = {kinds = {output = false}},
  ['nn.Container'] = {need = {'modules'}},
  ['nn.Concat'] = {need = {'dimension'}, kinds = {output = 'tensor', gradInput = 'tensor'}},
  ['nn.Parallel'] = {need = {'inputDimension', 'outputDimension'},
                     kinds = {inputDimension = 'count', outputDimension = 'count', output = 'tensor',
                              gradInput = 'tensor'}},
  ['nn.Decorator'] = {need = {'modules'}},
  ['nn.Linear'] = {need = {'weight'}, shapes = {{'weight', '*', '*'}, {'bias', 'weight:1'}}},
  ['nn.Bilinear'] = {need = {'weight'}, shapes = {{'weight', '*', '*', '*'}, {'bias', 'weight:1'}}},
  ['nn.Cosine'] = {need = {'weight'}, shapes = {{'weight', '*', '*'}}},
  ['nn.Euclidean'] = {need = {'weight'}, shapes = {{'weight', '*', '*'}}},
  ['nn.WeightedEuclidean'] = {need = {'weight', 'diagCov'}, kinds = {diagCov = 'tensor'},
                              shapes = {{'weight', '*', '*'}, {'diagCov', 'weight:1', 'weight:2'}}},
  -- accUpdateOnly() drops gradWeight (Torch7's way to save memory): saved so, it loads so
  ['nn.LookupTable'] = {need = {'weight'}, shapes = {{'weight', '*', '*'}}, gradientsOptional = true},
  ['nn.SparseLinear'] = {need = {'weight', 'bias'}, shapes = {{'weight', '*', '*'}, {'bias', 'weight:1'}}},
  ['nn.PReLU'] = {need = {'weight', 'nOutputPlane'}, kinds = {nOutputPlane = 'size'},
                  shapes = {{'weight', function(m) return math.max(m.nOutputPlane, 1) end}}},
  ['nn.Mul'] = {need = {'weight'}, shapes = {{'weight', 1}}},
  ['nn.Add'] = {need = {'bias'}},
  ['nn.CAdd'] = {need = {'bias'}},
  ['nn.CMul'] = {need = {'weight', 'size'}, kinds = {size = 'longstorage'},
                 shapes = {{'weight', function(m) return m.size end}}},
  ['nn.SpatialConvolution'] = {need = conv2.need, kinds = {},
    shapes = {{'weight', alt = {{'nOutputPlane', 'nInputPlane', 'kH', 'kW'},
                                {'nOutputPlane', function(m) return m.nInputPlane * m.kH * m.kW end}}},
              {'bias', 'nOutputPlane'}}},
  ['nn.SpatialFullConvolution'] = {need = conv2.need,
    shapes = {{'weight', 'nInputPlane', 'nOutputPlane', 'kH', 'kW'}, {'bias', 'nOutputPlane'}}},
  ['nn.SpatialDepthWiseConvolution'] = {need = conv2.need,
    shapes = {{'weight', 'nOutputPlane', function(m) return m.nInputPlane * m.kH * m.kW end},
              {'bias', 'nOutputPlane', 'nInputPlane'}}},
  ['nn.SpatialConvolutionLocal'] = {need = conv2.need,
    shapes = {{'weight', '*', '*', 'nOutputPlane', 'nInputPlane', 'kH', 'kW'},
              {'bias', 'nOutputPlane', 'weight:1', 'weight:2'}}},
  ['nn.SpatialConvolutionMap'] = {need = {'weight', 'connTable', 'nInputPlane', 'nOutputPlane', 'kW', 'kH', 'dW', 'dH'},
    kinds = {connTable = 'tensor'},
    shapes = {{'connTable', '*', 2}, {'weight', 'connTable:1', 'kH', 'kW'}, {'bias', 'nOutputPlane'}}},
  ['nn.SpatialFullConvolutionMap'] = {need = {'weight', 'connTable', 'nInputPlane', 'nOutputPlane', 'kW', 'kH', 'dW', 'dH'},
    kinds = {connTable = 'tensor'},
    shapes = {{'connTable', '*', 2}, {'weight', 'connTable:1', 'kH', 'kW'}, {'bias', 'nOutputPlane'}}},
  ['nn.SpatialSubSampling'] = {need = {'weight', 'nInputPlane', 'kW', 'kH', 'dW', 'dH'},
    shapes = {{'weight', 'nInputPlane'}, {'bias', 'nInputPlane'}}},
  ['nn.TemporalConvolution'] = {need = {'weight', 'bias', 'inputFrameSize', 'outputFrameSize', 'kW', 'dW'},
    shapes = {{'weight', 'outputFrameSize', function(m) return m.inputFrameSize * m.kW end},
              {'bias', 'outputFrameSize'}}},
  ['nn.TemporalSubSampling'] = {need = {'weight', 'inputFrameSize', 'kW', 'dW'},
    shapes = {{'weight', 'inputFrameSize'}, {'bias', 'inputFrameSize'}}},
  ['nn.TemporalRowConvolution'] = {need = {'weight', 'inputFrameSize', 'kW', 'dW'},
    shapes = {{'weight', 'inputFrameSize', 1, 'kW'}, {'bias', 'inputFrameSize'}}},
  ['nn.VolumetricConvolution'] = {need = {'weight', 'nInputPlane', 'nOutputPlane', 'kT', 'kW', 'kH', 'dT', 'dW', 'dH'},
    shapes = {{'weight', 'nOutputPlane', 'nInputPlane', 'kT', 'kH', 'kW'}, {'bias', 'nOutputPlane'}}},
  ['nn.VolumetricFullConvolution'] = {need = {'weight', 'nInputPlane', 'nOutputPlane', 'kT', 'kW', 'kH', 'dT', 'dW', 'dH'},
    shapes = {{'weight', 'nInputPlane', 'nOutputPlane', 'kT', 'kH', 'kW'}, {'bias', 'nOutputPlane'}}},
  ['nn.BatchNormalization'] = {need = {'running_mean', 'running_var', 'eps', 'momentum'},
    shapes = {{'running_mean', '*'}, {'running_var', 'running_mean:1'}, {'weight', 'running_mean:1'},
              {'bias', 'running_mean:1'}}},
  ['nn.SpatialDilatedConvolution'] = {need = {'dilationW', 'dilationH'}},
  ['nn.SpatialDilatedMaxPooling'] = {need = {'dilationW', 'dilationH'}},
  ['nn.VolumetricDilatedConvolution'] = {need = {'dilationT', 'dilationW', 'dilationH'}},
  ['nn.TemporalMaxPooling'] = {need = {'kW', 'dW'}},
  ['nn.VolumetricMaxPooling'] = {need = {'kT', 'kW', 'kH', 'dT', 'dW', 'dH'}},
  ['nn.VolumetricAveragePooling'] = {need = {'kT', 'kW', 'kH', 'dT', 'dW', 'dH'}},
  ['nn.SpatialAdaptiveMaxPooling'] = {need = {'W', 'H'}, kinds = {W = 'size', H = 'size'}},
  ['nn.SpatialAdaptiveAveragePooling'] = {need = {'W', 'H'}, kinds = {W = 'size', H = 'size'}},
  ['nn.Kmeans'] = {need = {'weight', 'k', 'dim'}, kinds = {k = 'count', dim = 'count'},
    shapes = {{'weight', 'k', 'dim'}}},
  ['nn.SpatialMaxPooling'] = pool2,
  ['nn.SpatialAveragePooling'] = pool2,
  ['nn.SpatialCrossMapLRN'] = {need = {'size', 'alpha', 'beta', 'k'},
    kinds = {size = 'count', alpha = 'number', beta = 'number', k = 'number'}},
  ['nn.Dropout'] = {need = {'p'}, kinds = {p = 'probability', noise = 'tensor'}},
  ['nn.View'] = {need = {'size'}, kinds = {size = 'longstorage', numElements = 'integer'}},
  ['nn.Reshape'] = {need = {'size', 'nelement', 'batchsize'},
    kinds = {size = 'longstorage', batchsize = 'longstorage', nelement = 'size'}},
  ['nn.JoinTable'] = {need = {'dimension'}, kinds = {size = 'longstorage'}},
  ['nn.MulConstant'] = {need = {'constant_scalar'}},
  ['nn.AddConstant'] = {need = {'constant_scalar'}},
  ['nn.Threshold'] = {need = {'threshold', 'val'}},
  ['nn.SpatialZeroPadding'] = {need = {'pad_l', 'pad_r', 'pad_t', 'pad_b'}},
  ['nn.Sum'] = {need = {'dimension'}},
  ['nn.Max'] = {need = {'dimension'}},
  ['nn.Min'] = {need = {'dimension'}},
  ['nn.Mean'] = {need = {'dimension'}},
  ['nn.SplitTable'] = {need = {'dimension'}},
  ['nn.Select'] = {need = {'dimension', 'index'}, kinds = {index = 'integer'}},
  ['nn.Narrow'] = {need = {'dimension', 'index', 'length'}, kinds = {index = 'integer', length = 'integer'}},
  ['nn.Replicate'] = {need = {'nfeatures'}, kinds = {nfeatures = 'count', dim = 'integer', ndim = 'integer'}},
  ['nn.Padding'] = {need = {'dim', 'pad', 'value', 'index'},
    kinds = {dim = 'integer', pad = 'integer', value = 'number', index = 'integer', nInputDim = 'integer'}},
  ['nn.Power'] = {need = {'pow'}, kinds = {pow = 'number'}},
  ['nn.HardTanh'] = {kinds = {min_val = 'number', max_val = 'number'}},
  ['nn.ELU'] = {need = {'alpha'}, kinds = {alpha = 'number'}},
  ['nn.LeakyReLU'] = {need = {'negval'}, kinds = {negval = 'number'}},
  ['nn.SoftPlus'] = {need = {'beta', 'threshold'}, kinds = {beta = 'number'}},
  ['nn.Squeeze'] = {kinds = {dim = 'integer'}},
  ['nn.Unsqueeze'] = {need = {'pos'}, kinds = {pos = 'integer'}},
  ['nn.Normalize'] = {need = {'p', 'eps'}, kinds = {p = 'number'}},
  ['nn.Index'] = {need = {'dimension'}},
  ['nn.SelectTable'] = {need = {'index'}, kinds = {index = 'integer'}},
  ['nn.NarrowTable'] = {need = {'offset', 'length'}, kinds = {offset = 'integer', length = 'integer'}},
  ['nn.SoftShrink'] = {need = {'lambda'}, kinds = {lambda = 'number'}},
  ['nn.HardShrink'] = {need = {'lambda'}, kinds = {lambda = 'number'}},
  ['nn.RReLU'] = {need = {'lower', 'upper'}, kinds = {lower = 'number', upper = 'number', noise = 'tensor'}},
  ['nn.SpatialUpSamplingNearest'] = {need = {'scale_factor'}, kinds = {scale_factor = 'count'}},
  ['nn.Transpose'] = {need = {'permutations'}, kinds = {permutations = 'permutations'}},
  -- every method of a recurrence works through its step, modules[1]
  ['thrnn.Recurrence'] = {need = {'modules', 'nState', 'stateSize'}, kinds = {nState = 'count', stateSize = 'count'},
    check = function(m, cname)
      if not isModule(rawget(m, 'modules')[1]) then
        error(sformat("%s: field 'modules' is an empty list, expected the step module at modules[1]", cname), 0)
      end
    end},
  ['thrnn.LSTM'] = {need = {'inputSize', 'hiddenSize'}, kinds = {inputSize = 'count'}},
  ['thrnn.GRU'] = {need = {'inputSize', 'hiddenSize'}, kinds = {inputSize = 'count'}},
  ['nn.LinearWeightNorm'] = {need = {'weight', 'v', 'g'}, kinds = {v = 'tensor', g = 'tensor'},
    shapes = {{'v', '*', '*'}, {'weight', 'v:1', 'v:2'}, {'g', 'v:1', 1}, {'bias', 'v:1'}}},
}

-- fields files written by older Torch7 versions lack, filled at load as
-- Torch7's backCompatibility()/read() filled them (a value, or
-- function(m) returning it; nil leaves the field missing)
local function zero() return 0 end
local pad2 = {padW = zero, padH = zero}
V.defaults = {
  -- Torch7's SpatialConvolution: an old 'padding' gives both, else 0
  ['nn.SpatialConvolution'] = {padW = function(m) return toint(m.padding) or 0 end,
                               padH = function(m) return toint(m.padding) or 0 end},
  ['nn.SpatialFullConvolution'] = {padW = zero, padH = zero, adjW = zero, adjH = zero},
  ['nn.SpatialDepthWiseConvolution'] = pad2,
  ['nn.SpatialConvolutionLocal'] = pad2,
  ['nn.SpatialMaxPooling'] = {padW = zero, padH = zero, ceil_mode = false},
  ['nn.SpatialAveragePooling'] = {padW = zero, padH = zero, ceil_mode = false, count_include_pad = true},
  ['nn.VolumetricFullConvolution'] = {padW = function(m) return m.pW or 0 end, padH = function(m) return m.pH or 0 end,
                                      padT = function(m) return m.pT or 0 end, adjW = zero, adjH = zero, adjT = zero},
  ['nn.VolumetricMaxPooling'] = {ceil_mode = false},
  -- files before version 2 kept running_std = 1/sqrt(var + eps)
  ['nn.BatchNormalization'] = {running_var = function(m)
    local s, eps = m.running_std, m.eps
    if not torch.isTensor(s) or type(eps) ~= 'number' then return nil end
    m.running_std = nil   -- (Torch7's read dropped it)
    return s.new():resizeAs(s):copy(s):pow(-2):add(-eps)
  end},
  ['nn.HardTanh'] = {min_val = -1, max_val = 1},
  ['nn.Replicate'] = {dim = 1},
  ['nn.Threshold'] = {inplace = false},
  ['nn.LookupTable'] = {shouldScaleGradByFreq = false},
  ['nn.GradientReversal'] = {lambda = 1},
  ['nn.Sqrt'] = {eps = zero},
  -- nngraph before gModule was a Container kept no 'modules': its nodes' (as its __postinit makes them)
  ['nn.gModule'] = {modules = function(m)
    local list = m.forwardnodes
    if type(list) ~= 'table' or torch.typename(list) then return nil end
    local mods = {}
    for _, node in ipairs(list) do
      local d = type(node) == 'table' and rawget(node, 'data')
      if type(d) == 'table' and isModule(d.module) then mods[#mods + 1] = d.module end
    end
    return mods
  end},
  -- nn.View keeps the product of its sizes (-1 left out): derived from 'size'
  ['nn.View'] = {numElements = function(m)
    local size = m.size
    if torch.typename(size) ~= 'torch.LongStorage' then return nil end
    local n = 1
    for i = 1, #size do
      if size[i] ~= -1 then n = n * size[i] end
    end
    return n
  end},
  -- buffers Torch7 made in the constructor: a file without them runs
  ['nn.Dropout'] = {noise = function(m) return V.emptyTensor(m) end},
  ['nn.RReLU'] = {noise = function(m) return V.emptyTensor(m) end},
}

-- classes (and subclasses) whose updateGradInput computes nothing and
-- returns nil when gradInput is nil, as Torch7's did (`if self.gradInput
-- then`; BatchNormalization through THNN's NULL gradInput); their
-- accGradParameters works as with it. Saved so, they load so.
V.nilGradInput = {}
for name in ([[Linear Add CAdd CMul Bilinear Cosine Euclidean WeightedEuclidean MulConstant PartialLinear
  LookupTable SpatialAveragePooling SpatialConvolution SpatialConvolutionLocal SpatialDepthWiseConvolution
  SpatialFullConvolution SpatialSubSampling SpatialConvolutionMap SpatialFullConvolutionMap
  TemporalConvolution TemporalSubSampling TemporalRowConvolution TemporalMaxPooling TemporalDynamicKMaxPooling
  VolumetricConvolution VolumetricFullConvolution BatchNormalization SplitTable]]):gmatch('%w+') do
  V.nilGradInput['nn.' .. name] = true
end

-- classes whose constructor makes output / gradInput a table (a missing
-- one is made a table again); every other nn class gets a tensor
V.tableOutput, V.tableGradInput = {}, {}
for name in ([[CAddTensorTable ConcatTable FlattenTable MapTable NarrowTable ParallelTable SelectTable
  SplitTable ZipTable ZipTableOneToMany]]):gmatch('%w+') do
  V.tableOutput['nn.' .. name] = true
end
for name in ([[CAddTable CAddTensorTable CDivTable CMaxTable CMinTable CMulTable CSubTable ConcatTable
  FlattenTable Index IndexLinear JoinTable MapTable MaskedSelect MixtureTable NarrowTable PairwiseDistance
  ParallelTable SelectTable SparseLinear ZipTable ZipTableOneToMany]]):gmatch('%w+') do
  V.tableGradInput['nn.' .. name] = true
end

-- classes whose output and gradInput are their children's, assigned at
-- each pass: nil until then (an nn.Sequential starting with an nngraph
-- gModule, or with a module whose gradInput is nil) and left so
V.routes = {['nn.Sequential'] = true, ['nn.Decorator'] = true, ['nn.gModule'] = true}

-- --- nngraph's graph ---------------------------------------------------------
-- What gModule's passes walk: forwardnodes in an order where every node's
-- inputs come before it (innode first), each sending its output to its
-- children into the slot their mapindex gives; backwardnodes the same from
-- outnode, each child getting a gradient before its turn. A graph that
-- breaks this would index nil inside the passes.
local function isPlain(v) return type(v) == 'table' and not torch.typename(v) end

function V.checkGraph(m, cname)
  local function bad(field, fmt, ...)
    error(sformat('%s: field \'%s\' ', cname, field) .. sformat(fmt, ...), 0)
  end
  -- (graph.Node's children also map each child to its position)
  local function nodeKind(v)
    if not isPlain(v) then return false end
    for i = 1, #v do
      if torch.typename(v[i]) ~= 'nngraph.Node' then return false end
    end
    return true
  end
  local function checkNode(node, field, i)
    local d = rawget(node, 'data')
    if not isPlain(d) then bad(field, 'node %d has no data table', i) end
    if not nodeKind(rawget(node, 'children') or false) then bad(field, 'node %d has no list of children', i) end
    if d.module ~= nil and not isModule(d.module) then bad(field, 'node %d holds %s, expected an nn.Module', i, what(d.module)) end
    if rawequal(d.module, m) then bad(field, 'node %d holds the gModule itself', i) end
    if not isPlain(d.mapindex) then bad(field, 'node %d has no mapindex table', i) end
    if d.annotations == nil then d.annotations = {} end
    if not isPlain(d.annotations) then bad(field, 'node %d has annotations of %s', i, what(d.annotations)) end
    for _, k in ipairs({'selectindex', 'nSplitOutputs'}) do
      if d[k] ~= nil and not V.kinds.count[1](d[k]) then bad(field, 'node %d has %s = %s', i, k, what(d[k])) end
    end
    for _, k in ipairs({'input', 'gradOutput'}) do
      if d[k] ~= nil and not isPlain(d[k]) then bad(field, 'node %d has %s = %s', i, k, what(d[k])) end
    end
  end
  local F, B = m.forwardnodes, m.backwardnodes
  local inF = {}
  for i, node in ipairs(F) do
    checkNode(node, 'forwardnodes', i)
    if inF[node.data] then bad('forwardnodes', 'node %d appears twice', i) end
    inF[node.data] = i
  end
  for i, node in ipairs(B) do checkNode(node, 'backwardnodes', i) end
  if not rawequal(F[1], m.innode) then bad('innode', 'is not the first of forwardnodes') end
  if not rawequal(B[1], m.outnode) then bad('outnode', 'is not the first of backwardnodes') end
  if not inF[m.outnode.data] then bad('outnode', 'is not in forwardnodes') end
  -- forward: children later, each slot of each node filled once, 1..n
  local slots = {}
  for i, node in ipairs(F) do
    for _, child in ipairs(node.children) do
      local j = inF[child.data]
      if not j or j <= i then bad('forwardnodes', 'node %d feeds a node not after it', i) end
      local slot = child.data.mapindex[node.data]
      if toint(slot) == nil or slot < 1 then bad('forwardnodes', 'node %d has no input slot in node %d', i, j) end
      slots[j] = slots[j] or {}
      if slots[j][slot] then bad('forwardnodes', 'node %d gets input %d twice', j, slot) end
      slots[j][slot] = true
    end
  end
  for j = 2, #F do
    local got = slots[j] or {}
    local n = 0
    for _ in pairs(got) do n = n + 1 end
    if n == 0 or #got ~= n then bad('forwardnodes', 'node %d gets its inputs from no earlier node or with a gap', j) end
  end
  -- backward: children later, every node after the first reached, the same nodes as forward
  local inB, reached = {}, {[1] = true}
  for i, node in ipairs(B) do
    if not inF[node.data] then bad('backwardnodes', 'node %d is not in forwardnodes', i) end
    if inB[node.data] then bad('backwardnodes', 'node %d appears twice', i) end
    inB[node.data] = i
  end
  for i, node in ipairs(B) do
    if not reached[i] then bad('backwardnodes', 'node %d gets no gradient from an earlier node', i) end
    local d = node.data
    if d.selectindex and #node.children == 0 then bad('backwardnodes', 'split node %d has no input', i) end
    for _, child in ipairs(node.children) do
      local j = inB[child.data]
      if not j or j <= i then bad('backwardnodes', 'node %d sends to a node not after it', i) end
      if #node.children > 1 and not d.selectindex and toint(d.mapindex[child.data]) == nil then
        bad('backwardnodes', 'node %d has no slot for input node %d', i, j)
      end
      reached[j] = true
    end
  end
  if not inB[m.innode.data] or inB[m.innode.data] == 1 then bad('innode', 'gets no gradient in backwardnodes') end
end

-- whether m is among the modules inside it (a module's 'modules', a
-- decorator's 'module', a gModule's nodes are listed in its 'modules')
function V.containsItself(m)
  local seen = {}
  local function walk(x, depth)
    if type(x) ~= 'table' or seen[x] or depth > 20000 then return false end
    seen[x] = true
    for _, f in ipairs({'modules', 'module'}) do
      local v = rawget(x, f)
      if isModule(v) then
        if rawequal(v, m) or walk(v, depth + 1) then return true end
      elseif isPlain(v) then
        for _, c in ipairs(v) do
          if rawequal(c, m) or (isModule(c) and walk(c, depth + 1)) then return true end
        end
      end
    end
    return false
  end
  return walk(m, 0)
end

-- --- the check --------------------------------------------------------------

-- the merged rules of a class: its parents' first, its own win
local cache = {}
local function rulesOf(cname)
  local r = cache[cname]
  if r then return r end
  local chain, c = {}, cname
  while c do
    table.insert(chain, 1, c)
    c = torch.parentname(c)
  end
  r = {kinds = {}, classKinds = {}, need = {}, shapes = {}, shapeAt = {}, defaults = {}}
  for _, c2 in ipairs(chain) do
    if V.tensorIO[c2] then r.tensorIO = true end
    if V.nilGradInput[c2] then r.nilGradInput = true end
    if V.tableOutput[c2] then r.tableOutput = true end
    if V.tableGradInput[c2] then r.tableGradInput = true end
    if V.routes[c2] then r.routes = true end
    for k, v in pairs(V.defaults[c2] or {}) do r.defaults[k] = v end
  end
  for k, kind in pairs(V.fields) do r.kinds[k] = kind end
  for _, c2 in ipairs(chain) do
    local e = V.classes[c2]
    if e then
      for k, kind in pairs(e.kinds or {}) do
        r.kinds[k] = kind or nil
        r.classKinds[k] = kind or nil
      end
      for _, f in ipairs(e.need or {}) do r.need[f] = true end
      if e.gradientsOptional then r.gradientsOptional = true end
      if e.check then r.checks = r.checks or {}; r.checks[#r.checks + 1] = e.check end
      for _, f in ipairs(e.optional or {}) do r.need[f] = nil end
      for _, s in ipairs(e.shapes or {}) do
        -- in declaration order (weight before bias), a subclass's rule in its parent's place
        local k = r.shapeAt[s[1]] or #r.shapes + 1
        r.shapes[k], r.shapeAt[s[1]] = s, k
      end
    end
  end
  cache[cname] = r
  return r
end

local function fail(cname, field, fmt, ...)
  error(sformat('%s: field \'%s\' ', cname, field) .. sformat(fmt, ...), 0)
end

local function dimValue(m, spec, cname, field)
  if type(spec) == 'number' or spec == '*' then return spec end
  if type(spec) == 'function' then return spec(m) end
  local other, k = spec:match('^([%w_]+):(%d+)$')
  if other then
    local t = m[other]
    k = tonumber(k)
    if not torch.isTensor(t) or t:dim() < k then return '*' end   -- its own rule reports it
    return t:size(k)
  end
  return m[spec]
end

local function sizeStr(t)
  local s = {}
  for i = 1, t:dim() do s[i] = tostring(t:size(i)) end
  return #s == 0 and 'empty' or table.concat(s, 'x')
end

-- true, or false and a description of what the sizes should be
local function matches(m, t, dims, cname, field)
  local want = {}
  for i, spec in ipairs(dims) do
    local v = dimValue(m, spec, cname, field)
    if torch.typename(v) == 'torch.LongStorage' then   -- a whole size (nn.CMul)
      for j = 1, #v do want[#want + 1] = v[j] end
    else
      want[#want + 1] = v
    end
  end
  local ok = t:dim() == #want
  for i = 1, #want do
    if ok and want[i] ~= '*' and t:size(i) ~= want[i] then ok = false end
  end
  local desc = {}
  for i = 1, #want do desc[i] = tostring(want[i]) end
  return ok, #desc == 0 and 'empty' or table.concat(desc, 'x')
end

local function checkShape(m, cname, rule)
  local field = rule[1]
  local t = m[field]
  if t == nil then return end
  if not torch.isTensor(t) then fail(cname, field, 'is %s, expected a tensor', what(t)) end
  local alts = rule.alt or {{table.unpack(rule, 2)}}
  local wanted = {}
  for _, dims in ipairs(alts) do
    local ok, desc = matches(m, t, dims, cname, field)
    if ok then return end
    wanted[#wanted + 1] = desc
  end
  fail(cname, field, 'has size %s, expected %s', sizeStr(t), table.concat(wanted, ' or '))
end

-- whether g is a block of the rows of w that optnet.trainStep made a
-- Linear's gradWeight (the module, m or one inside it, says so in its
-- '_optnetRows'): loading or cloning makes it whole again
local function rowBlock(m, g, w)
  if g:dim() ~= 2 or w:dim() ~= 2 or g:size(2) ~= w:size(2) or g:size(1) >= w:size(1) then return false end
  local ok, list = pcall(function() return m:listModules() end)
  for _, x in ipairs(ok and list or {m}) do
    if type(x) == 'table' and rawget(x, '_optnetRows') == g:size(1) and rawequal(rawget(x, 'gradWeight'), g) then
      return true
    end
  end
  return false
end

-- grads: whether the class's accGradParameters is nn's own (which needs
-- a gradient wherever there is a parameter)
local function checkParameters(m, cname, grads)
  local ok, ws, gs = pcall(m.parameters, m)
  if not ok then
    error(sformat('%s: parameters() failed on the loaded fields: %s', cname, tostring(ws)), 0)
  end
  if ws == nil then return end
  if type(ws) ~= 'table' or (gs ~= nil and type(gs) ~= 'table') then
    error(sformat('%s: parameters() returned %s and %s, expected tables of tensors', cname,
                  torch.type(ws), torch.type(gs)), 0)
  end
  for i, w in pairs(ws) do
    if not torch.isTensor(w) then
      error(sformat('%s: parameter %s is %s, expected a tensor', cname, tostring(i), what(w)), 0)
    end
    local g = gs and gs[i]
    if g == nil and gs and grads then
      -- weight without gradWeight: backward would index nil
      for f, gf in pairs(V.gradients) do
        if rawequal(m[f], w) then fail(cname, gf, 'is missing (%s is there)', f) end
      end
    elseif torch.isTensor(g) then
      -- (some modules keep a gradient as a view of another shape: the counts must agree)
      if g:nElement() > 0 and g:nElement() ~= w:nElement() and not rowBlock(m, g, w) then
        error(sformat('%s: the gradient of parameter %s has size %s, the parameter %s', cname, tostring(i),
                      sizeStr(g), sizeStr(w)), 0)
      end
    elseif g ~= nil and type(g) ~= 'table' then   -- (nn.IndexLinear keeps sparse gradients in tables)
      error(sformat('%s: the gradient of parameter %s is %s, expected a tensor', cname, tostring(i), what(g)), 0)
    end
  end
end

-- --- completing a loaded module --------------------------------------------

-- where the project's module classes live (nn, nngraph): a method defined
-- there indexes the fields its constructor made. A class whose forward is
-- somebody else's (a user's module, a third-party package's) is checked
-- only by the rules of the classes it derives from (V.classes): Torch7
-- loaded anything, and what its own code needs is unknown here.
local luaroot = debug.getinfo(1, 'S').source:match('^@(.*/)nn/[^/]*$')
V.packages = {'nn', 'nngraph'}
local own = setmetatable({}, {__mode = 'k'})

local function nnMethod(fn)
  if type(fn) ~= 'function' or not luaroot then return false end
  if own[fn] == nil then
    local src = debug.getinfo(fn, 'S').source
    own[fn] = false
    for _, pkg in ipairs(V.packages) do
      local dir = '@' .. luaroot .. pkg .. '/'
      if src:sub(1, #dir) == dir then own[fn] = true end
    end
  end
  return own[fn]
end

-- whether the module runs the project's own forward (or its class has
-- rules of its own): then every rule applies
local function strict(cname, mt)
  return V.classes[cname] ~= nil or V.tensorIO[cname] or nnMethod(mt and mt.updateOutput)
end

-- the tensor type a re-made output/gradInput takes: the module's _type,
-- else its weight's, else the default
local function tensorType(m)
  local t = rawget(m, '_type')
  if type(t) == 'string' and t:match('^torch%.%w+Tensor$') and torch.getmetatable(t) then return t end
  local w = rawget(m, 'weight')
  if torch.isTensor(w) then return torch.typename(w) end
  return torch.getdefaulttensortype()
end

-- an empty tensor of the module's type
function V.emptyTensor(m)
  return torch.getmetatable(tensorType(m)).new()
end

-- makes a missing output / gradInput that the class's own method needs
local function remake(m, r, f, method, asTable)
  if rawget(m, f) ~= nil or r.routes then return end
  local mt = getmetatable(m)
  local fn = mt and mt[method]
  local Module = torch.getmetatable('nn.Module')
  if not nnMethod(fn) or fn == Module[method] then return end   -- a user's method, or one that only returns it
  if asTable then
    m[f] = {}
  else
    m[f] = V.emptyTensor(m)
  end
end

-- fills what Torch7 read as optional (V.defaults), and the output and
-- gradInput nn's methods need (see the top of this file)
local function complete(m, r)
  for f, d in pairs(r.defaults) do
    if rawget(m, f) == nil then
      local v = d
      if type(d) == 'function' then v = d(m) end
      if v ~= nil then m[f] = v end
    end
  end
  remake(m, r, 'output', 'updateOutput', r.tableOutput)
  if not r.nilGradInput then remake(m, r, 'gradInput', 'updateGradInput', r.tableGradInput) end
end

-- raises "<class>: field '<name>' <what was wrong>" for a bad module;
-- completes first what Torch7 treated as optional
function V.check(m)
  local cname = torch.typename(m) or 'nn.Module'
  local r = rulesOf(cname)
  local mt = getmetatable(m)
  local all = strict(cname, mt)
  complete(m, r)
  for f in pairs(r.need) do
    if rawget(m, f) == nil and m[f] == nil then fail(cname, f, 'is missing') end
  end
  if r.tensorIO and all then
    for _, f in ipairs({'output', 'gradInput'}) do
      local v = rawget(m, f)
      if v ~= nil and not torch.isTensor(v) then fail(cname, f, 'is %s, expected a tensor', what(v)) end
    end
  end
  for f, kind in pairs(all and r.kinds or r.classKinds) do
    local v = rawget(m, f)
    if v ~= nil then
      local k = V.kinds[kind]
      if not k[1](v) then fail(cname, f, 'is %s, expected %s', what(v), k[2]) end
    end
  end
  -- a loaded field must not hide a method of the class (forward = 5)
  for k, v in pairs(m) do
    if type(k) == 'string' and type(v) ~= 'function' and type(mt[k]) == 'function' then
      fail(cname, k, 'is %s and hides the method of that name', what(v))
    end
  end
  for _, rule in ipairs(r.shapes) do checkShape(m, cname, rule) end
  for _, c in ipairs(r.checks or {}) do c(m, cname) end
  if all and V.containsItself(m) then fail(cname, 'modules', 'holds the module itself (its forward would never end)') end
  -- (a user's class may keep in its fields what it likes, and its
  -- parameters() may need what only its forward makes)
  if all then
    checkParameters(m, cname, nnMethod(mt.accGradParameters) and not r.gradientsOptional)
  end
  return true
end

return V
