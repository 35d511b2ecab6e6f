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
  'utils', 'Module', 'Container', 'Criterion', 'Jacobian',
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
}
for _, f in ipairs(simple) do load(f) end

-- structural and table modules
local structural = {
}
for _, f in ipairs(structural) do load(f) end

-- linear family, distances and products
local products = {
}
for _, f in ipairs(products) do load(f) end

-- temporal and spatial convolutions
local convolutions = {
}
for _, f in ipairs(convolutions) do load(f) end

-- spatial pooling, sampling, padding and normalization
local spatial = {
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

-- criterions and training helpers
local criterions = {
}
for _, f in ipairs(criterions) do load(f) end

return nn
