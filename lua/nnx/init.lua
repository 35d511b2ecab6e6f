-- nnx: Clement Farabet's experimental extensions of nn, as scripts use
-- them. require 'nnx' defines the global table nnx and adds its modules
-- to nn's namespace (nn.SpatialReSampling, nn.SoftMaxTree, ...), as
-- Torch7's nnx did; require 'nn' alone does not. One module per file in
-- lua/nnx/; docs/nnx.md lists them and what differs from nnx.
require 'torch'
require 'xlua'
require 'nn'

nnx = nnx or {}

for _, name in ipairs{
  -- tools
  'Probe', 'Tic', 'Toc',
  -- spatial (images)
  'SpatialLinear', 'SpatialClassifier', 'SpatialPadding', 'SpatialNormalization', 'SpatialReSamplingEx',
  'SpatialUpSampling', 'SpatialDownSampling', 'SpatialReSampling', 'SpatialColorTransform', 'SpatialGraph',
  'SpatialMatching', 'SpatialPyramid', 'SpatialFovea',
  -- other modules
  'FunctionWrapper', 'SaturatedLU', 'Minus', 'SoftMaxTree', 'SoftMaxForest', 'MultiSoftMax', 'Balance', 'PushTable', 'PullTable',
  'QDRiemaNNLinear',
  -- criterions
  'SuperCriterion', 'DistNLLCriterion', 'TreeNLLCriterion', 'CTCCriterion',
} do
  require('nnx.' .. name)
end

return nnx
