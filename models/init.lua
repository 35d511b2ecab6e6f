-- The model zoo. Each entry is a builder function(opts) -> net, input.
--   local models = require 'models'
--   for _, m in ipairs(models.list()) do local net, x = models.build(m.name, m.small) end
-- list() gives, per model, its module name, a short description, the
-- default options and a `small` option set quick enough for specs.
-- Options every builder takes: batch, type ('float' or 'double'), fuse
-- (default true: nn.fuse applied, batch norm and residual adds with the
-- in-place ReLU after them in one pass; false: the plain net).
local M = {}

local entries = {
  {name = 'mlp', desc = 'MLP 784-1024-1024-1024-10', small = {batch = 2, hidden = {32, 32}}},
  {name = 'lenet', desc = 'LeNet-5, 1x32x32', small = {batch = 2}},
  {name = 'alexnet', desc = 'AlexNet (owt single tower; variant=twotower)', small = {batch = 1}, big = true},
  {name = 'vgg', desc = 'VGG A/B/D/E', small = {batch = 1, modelType = 'A', imageSize = 32}, big = true},
  {name = 'googlenet', desc = 'GoogLeNet (inception v1, aux classifiers)', small = {batch = 1}, big = true},
  {name = 'resnet', desc = 'ResNet cifar 6n+2 / imagenet 18-152',
   small = {batch = 2, dataset = 'cifar10', depth = 8}},
  {name = 'preresnet', desc = 'pre-activation ResNet', small = {batch = 2, dataset = 'cifar10', depth = 8}},
  {name = 'densenet', desc = 'DenseNet-BC cifar / DenseNet-121 imagenet',
   small = {batch = 2, dataset = 'cifar10', depth = 10, growthRate = 4}},
  {name = 'paralleljoin', desc = 'ParallelTable + JoinTable', small = {batch = 2}},
  {name = 'convchain', desc = 'deep conv chain, in-place ReLUs', small = {batch = 2, depth = 4, size = 8}},
  {name = 'unpool', desc = 'encoder-decoder with SpatialMaxUnpooling', small = {batch = 2}},
  {name = 'siamese', desc = 'siamese pair with shared weights + PairwiseDistance', small = {batch = 2}},
  {name = 'tablenet', desc = 'ConcatTable/SelectTable/NarrowTable/CAddTable/CMulTable', small = {batch = 2}},
  {name = 'multioutput', desc = 'ConcatTable heads: several outputs', small = {batch = 2}},
  -- OptNet's own test nets (its models.lua), Threshold(0, 1e-6) in the classifier
  {name = 'optnet_alexnet', desc = "OptNet's alexnet: two towers, Threshold(0, 1e-6), no dropout",
   small = {batch = 2, imageSize = 127}, big = true},
  {name = 'optnet_vgg', desc = "OptNet's vgg (A/B/D/E): Threshold(0, 1e-6), no dropout",
   small = {batch = 2, imageSize = 32}, big = true},
}

function M.list()
  local out = {}
  for i, e in ipairs(entries) do
    local small = {}
    for k, v in pairs(e.small) do small[k] = v end
    out[i] = {name = e.name, desc = e.desc, small = small, big = e.big or false}
  end
  return out
end

function M.build(name, opts)
  for _, e in ipairs(entries) do
    if e.name == name then return require('models.' .. name)(opts) end
  end
  local names = {}
  for _, e in ipairs(entries) do names[#names + 1] = e.name end
  error(string.format("models.build: unknown model '%s' (known: %s)", tostring(name), table.concat(names, ', ')), 2)
end

return M
