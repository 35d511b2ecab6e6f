-- The cudnn.X classes: each a subclass of nn.X with cuDNN's constructor
-- arguments and algorithm calls. They are one table, not one file each:
-- they hold no code of their own beyond argument mapping.
local cudnn = package.loaded.cudnn or _G.cudnn

-- cuDNN's constructors whose arguments differ from nn's
local init = {}

-- (nIn, nOut, kW, kH, dW, dH, padW, padH, groups): groups > 1 has no nn
-- counterpart here
function init.SpatialConvolution(self, parent, nIn, nOut, kW, kH, dW, dH, padW, padH, groups)
  if groups ~= nil and groups ~= 1 then
    error(string.format('cudnn.SpatialConvolution: groups = %s is not supported on the CPU stand-in (docs/cuda.md); use nn.SpatialDepthWiseConvolution or a Concat of convolutions',
                        tostring(groups)), 3)
  end
  parent.__init(self, nIn, nOut, kW, kH, dW, dH, padW, padH)
end

-- (ceiling, inplace): a ReLU clipped at ceiling, nn.HardTanh(0, ceiling)
function init.ClippedReLU(self, parent, ceiling, inplace)
  if type(ceiling) ~= 'number' or ceiling <= 0 then
    error(string.format('cudnn.ClippedReLU: a positive ceiling expected as argument 1, got %s', tostring(ceiling)), 3)
  end
  parent.__init(self, 0, ceiling, inplace)
end

-- (inplace) for Tanh and Sigmoid: nn's compute out of place; the flag is kept
for _, name in ipairs({'Tanh', 'Sigmoid'}) do
  init[name] = function(self, parent, inplace)
    parent.__init(self)
    self.inplace = inplace or false
  end
end

-- (fastMode) for the softmaxes: no fast mode on the CPU
for _, name in ipairs({'SoftMax', 'LogSoftMax', 'SpatialSoftMax', 'SpatialLogSoftMax'}) do
  init[name] = function(self, parent, fastMode)
    parent.__init(self)
    self.mode = fastMode and 'CUDNN_SOFTMAX_FAST' or 'CUDNN_SOFTMAX_ACCURATE'
  end
end

local function chain(self) return self end

for name, nnName in pairs(cudnn.classes) do
  local class, parent = torch.class('cudnn.' .. name, nnName)
  local custom = init[name]
  class.__init = function(self, ...)
    if custom then custom(self, parent, ...) else parent.__init(self, ...) end
  end
  -- algorithm choices: nothing to choose between on the CPU
  class.setMode = chain
  class.resetMode = chain
  class.fastest = chain
  class.clearDesc = chain
  class.resetWeightDescriptors = chain
  cudnn[name] = class
end
