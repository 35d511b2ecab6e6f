-- Shared helpers for the model builders: option defaults, typing, inputs.
local M = {}

-- fills defaults into a copy of opts and checks the common options
function M.options(name, opts, defaults)
  opts = opts or {}
  if type(opts) ~= 'table' then
    error(string.format('models.%s: options table expected, got %s', name, type(opts)), 3)
  end
  local o = {}
  for k, v in pairs(defaults) do o[k] = v end
  for k, v in pairs(opts) do o[k] = v end
  o.batch = o.batch or 1
  o.type = o.type or 'float'
  if o.fuse == nil then o.fuse = true end
  if math.type(o.batch) ~= 'integer' or o.batch < 1 then
    error(string.format('models.%s: batch must be a positive integer, got %s', name, tostring(o.batch)), 3)
  end
  if o.type ~= 'float' and o.type ~= 'double' then
    error(string.format("models.%s: type must be 'float' or 'double', got %s", name, tostring(o.type)), 3)
  end
  if type(o.fuse) ~= 'boolean' then
    error(string.format('models.%s: fuse must be true or false, got %s', name, tostring(o.fuse)), 3)
  end
  return o
end

-- converts the net and, unless fuse = false, applies nn.fuse: batch norm
-- and residual adds run with the in-place ReLU after them in one pass (the
-- same numbers; the zoo's nets always ran so, and bench-speed times them so)
local function convert(net, o)
  net = net:type(o.type == 'double' and 'torch.DoubleTensor' or 'torch.FloatTensor')
  if o.fuse then nn.fuse(net) end
  return net
end

-- converts the net and makes a random input of the given per-sample shape
function M.finish(net, o, ...)
  local tname = o.type == 'double' and 'torch.DoubleTensor' or 'torch.FloatTensor'
  net = convert(net, o)
  local input = torch.randn(o.batch, ...):type(tname)
  return net, input
end

-- He (MSR) initialisation as fb.resnet.torch does it
function M.msrinit(net)
  for _, m in ipairs(net:findModules('nn.SpatialConvolution')) do
    local n = m.kW * m.kH * m.nOutputPlane
    m.weight:normal(0, math.sqrt(2 / n))
    if m.bias then m.bias:zero() end
  end
  for _, name in ipairs{'nn.SpatialBatchNormalization', 'nn.BatchNormalization'} do
    for _, m in ipairs(net:findModules(name)) do
      if m.weight then m.weight:fill(1) end
      if m.bias then m.bias:zero() end
    end
  end
  for _, m in ipairs(net:findModules('nn.Linear')) do
    if m.bias then m.bias:zero() end
  end
end

-- converts the net and makes a table input, one random tensor per shape
function M.finishTable(net, o, shapes)
  local tname = o.type == 'double' and 'torch.DoubleTensor' or 'torch.FloatTensor'
  net = convert(net, o)
  local input = {}
  for i, shape in ipairs(shapes) do
    input[i] = torch.randn(o.batch, table.unpack(shape)):type(tname)
  end
  return net, input
end

-- VGG's configurations (Simonyan & Zisserman 2014): output channels of
-- each 3x3 convolution, 'M' for a 2x2 max pooling (models.vgg, models.optnet_vgg)
M.VGG = {
  A = {64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M'},
  B = {64, 64, 'M', 128, 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M'},
  D = {64, 64, 'M', 128, 128, 'M', 256, 256, 256, 'M', 512, 512, 512, 'M', 512, 512, 512, 'M'},
  E = {64, 64, 'M', 128, 128, 'M', 256, 256, 256, 256, 'M', 512, 512, 512, 512, 'M',
       512, 512, 512, 512, 'M'},
}

-- the classifier of OptNet's own alexnet and vgg (soumith's imagenet-multiGPU):
-- a View of n features without setNumInputDims, then Linear layers whose
-- activations are nn.Threshold(0, 1e-6), which may not run in place
function M.thresholdClassifier(n, nClasses)
  local c = nn.Sequential()
  c:add(nn.View(n))
  c:add(nn.Linear(n, 4096)):add(nn.Threshold(0, 1e-6))
  c:add(nn.Linear(4096, 4096)):add(nn.Threshold(0, 1e-6))
  c:add(nn.Linear(4096, nClasses)):add(nn.LogSoftMax())
  return c
end

return M
