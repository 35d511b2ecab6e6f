-- nn: Torch7's neural-network modules for Lua 5.4.
-- One file per module, loaded here in dependency order (base classes first).

require 'torch'
nn = nn or {}   -- Torch7 scripts expect the global
local nn = nn

local function load(name)
  local ok, err = pcall(require, 'nn.' .. name)
  if not ok and not tostring(err):find("module 'nn." .. name .. "' not found", 1, true) then
    error(err, 0)
  end
end

local files = {
  -- base classes and helpers
  'utils', 'fuse', 'Module', 'gradrelease', 'Container', 'Criterion', 'Jacobian',
  -- containers
  'Sequential', 'Concat', 'DepthConcat', 'ConcatTable', 'ParallelTable', 'Parallel',
  -- layers
  'Linear', 'SpatialConvolution', 'SpatialConvolutionMM', 'SpatialFullConvolution',
  'SpatialMaxPooling', 'SpatialAveragePooling', 'SpatialMaxUnpooling', 'SpatialZeroPadding',
  'BatchNormalization', 'SpatialBatchNormalization', 'SpatialCrossMapLRN',
  'Threshold', 'ReLU', 'LeakyReLU', 'ELU', 'Tanh', 'Sigmoid', 'SoftMax', 'LogSoftMax', 'SoftPlus',
  'Dropout', 'View', 'Reshape', 'Identity', 'Copy', 'MulConstant', 'AddConstant', 'Mul', 'CMul',
  'Add', 'Narrow', 'Select', 'Transpose', 'Mean', 'Sum', 'Max', 'Min', 'Squeeze', 'Replicate',
  'LookupTable',
  -- table modules
  'CAddTable', 'CSubTable', 'CMulTable', 'JoinTable', 'SplitTable', 'SelectTable',
  'NarrowTable', 'FlattenTable', 'PairwiseDistance',
  -- criterions
  'MSECriterion', 'AbsCriterion', 'SmoothL1Criterion', 'ClassNLLCriterion',
  'CrossEntropyCriterion', 'BCECriterion', 'MarginCriterion', 'DistKLDivCriterion',
}
for _, f in ipairs(files) do load(f) end

-- Torch7's remaining CPU modules, by family (each list loads after the
-- above, so a module may derive from any class loaded there)

-- simple layers and activations
local simple = {
  'Abs', 'Exp', 'Log', 'Sqrt', 'Square', 'Power', 'HardTanh', 'Clamp', 'ReLU6', 'PReLU', 'RReLU',
  'LogSigmoid', 'SoftMin', 'SoftSign', 'SoftShrink', 'HardShrink', 'TanhShrink', 'CReLU',
  'GatedLinearUnit', 'Maxout', 'Normalize', 'LayerNormalization', 'WhiteNoise', 'NaN',
  'L1Penalty', 'GradientReversal', 'ZeroGrad',
}
for _, f in ipairs(simple) do load(f) end

-- structural and table modules
local structural = {
  'Contiguous', 'Unsqueeze', 'Collapse', 'Padding', 'Constant',
  'CMaxTable', 'CMinTable', 'CDivTable', 'CAddTensorTable', 'ZipTable', 'ZipTableOneToMany',
  'Index', 'MaskedSelect', 'OneHot', 'MixtureTable', 'PrintSize',
  'Decorator', 'Bottle', 'DontCast', 'Profile', 'MapTable', 'Convert',
}
for _, f in ipairs(structural) do load(f) end

-- linear family, distances and products
local products = {
  'CAdd', 'MM', 'MV', 'DotProduct', 'CosineDistance', 'Cosine',
  'Euclidean', 'WeightedEuclidean', 'Bilinear', 'PartialLinear',
  'LinearWeightNorm', 'WeightNorm', 'Kmeans', 'SparseLinear', 'IndexLinear',
  'SparseJacobian',
}
for _, f in ipairs(products) do load(f) end

-- temporal and spatial convolutions
local convolutions = {
  'TemporalConvolution', 'SpatialSubSampling', 'TemporalMaxPooling', 'TemporalSubSampling',
  'SpatialDilatedConvolution', 'SpatialConvolutionMap', 'SpatialFullConvolutionMap',
  'TemporalDynamicKMaxPooling', 'SpatialDepthWiseConvolution', 'SpatialConvolutionLocal',
  'TemporalRowConvolution',
}
for _, f in ipairs(convolutions) do load(f) end

-- spatial pooling, sampling, padding and normalization
local spatial = {
  'SpatialSoftMax', 'SpatialLogSoftMax', 'SpatialDropout', 'SpatialReflectionPadding',
  'SpatialReplicationPadding', 'SpatialUpSamplingNearest', 'SpatialUpSamplingBilinear', 'UpSampling',
  'PixelShuffle', 'SpatialDilatedMaxPooling', 'SpatialAdaptiveMaxPooling',
  'SpatialAdaptiveAveragePooling', 'SpatialFractionalMaxPooling', 'FeatureLPPooling',
  'SpatialSubtractiveNormalization', 'SpatialDivisiveNormalization', 'SpatialContrastiveNormalization',
  'SpatialLPPooling',
}
for _, f in ipairs(spatial) do load(f) end

-- volumetric modules
local volumetric = {
  'VolumetricConvolution', 'VolumetricDilatedConvolution', 'VolumetricFullConvolution',
  'VolumetricMaxPooling', 'VolumetricDilatedMaxPooling', 'VolumetricAveragePooling',
  'VolumetricMaxUnpooling', 'VolumetricFractionalMaxPooling', 'VolumetricBatchNormalization',
  'VolumetricDropout', 'VolumetricReplicationPadding',
}
for _, f in ipairs(volumetric) do load(f) end

-- the recurrent layers over sequences are package thrnn's (require
-- 'thrnn'): Torch7's nn had none, and nn.LSTM, nn.GRU, nn.Recurrence are
-- the names of torch-rnn's and Element-Research/rnn's. Files saved when
-- they were nn's still load (nn.legacy defines no class and loads thrnn
-- only when such a file is read)
load 'legacy'

-- criterions and training helpers
local criterions = {
  'L1Cost', 'SoftMarginCriterion', 'HingeEmbeddingCriterion', 'L1HingeEmbeddingCriterion',
  'MarginRankingCriterion', 'CosineEmbeddingCriterion', 'DistanceRatioCriterion',
  'WeightedMSECriterion', 'ClassSimplexCriterion', 'SpatialAutoCropMSECriterion',
  'MultiMarginCriterion', 'MultiLabelMarginCriterion', 'MultiLabelSoftMarginCriterion',
  'SpatialClassNLLCriterion', 'CriterionTable', 'ModuleCriterion', 'MultiCriterion',
  'ParallelCriterion', 'StochasticGradient', 'hessian',
}
for _, f in ipairs(criterions) do load(f) end

return nn
