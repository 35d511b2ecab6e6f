-- GoogLeNet / Inception v1 (Szegedy et al. 2014) in Torch7 nn.
-- Inception modules are Concat(2) of four branches (1x1; 1x1-3x3; 1x1-5x5;
-- zero-padded ceil-mode 3x3 max pooling-1x1); pooling between stages is
-- ceil-mode; LRN after the stem convolutions. With aux=true (default) the
-- two auxiliary classifiers (after 4a and 4d) are kept and the net returns a
-- table {aux1, aux2, main} of log-probabilities (training); aux=false
-- returns the main output only.
--   require('models.googlenet'){aux=true, batch=, type=, nClasses=1000}
require 'nn'
local util = require 'models.util'

local function ConvReLU(nIn, nOut, k, s, p)
  return nn.Sequential():add(nn.SpatialConvolution(nIn, nOut, k, k, s or 1, s or 1, p or 0, p or 0))
    :add(nn.ReLU(true))
end

-- cfg: {1x1, 3x3reduce, 3x3, 5x5reduce, 5x5, poolproj}
local function inception(nIn, cfg)
  local concat = nn.Concat(2)
  concat:add(ConvReLU(nIn, cfg[1], 1))
  concat:add(nn.Sequential():add(ConvReLU(nIn, cfg[2], 1)):add(ConvReLU(cfg[2], cfg[3], 3, 1, 1)))
  concat:add(nn.Sequential():add(ConvReLU(nIn, cfg[4], 1)):add(ConvReLU(cfg[4], cfg[5], 5, 1, 2)))
  concat:add(nn.Sequential()
    :add(nn.SpatialZeroPadding(1, 1, 1, 1))
    :add(nn.SpatialMaxPooling(3, 3, 1, 1):ceil())
    :add(ConvReLU(nIn, cfg[6], 1)))
  return concat, cfg[1] + cfg[3] + cfg[5] + cfg[6]
end

local function auxClassifier(nIn, nClasses)
  return nn.Sequential()
    :add(nn.SpatialAveragePooling(5, 5, 3, 3):ceil())
    :add(ConvReLU(nIn, 128, 1))
    :add(nn.View(128 * 4 * 4):setNumInputDims(3))
    :add(nn.Linear(128 * 4 * 4, 1024)):add(nn.ReLU(true))
    :add(nn.Dropout(0.7))
    :add(nn.Linear(1024, nClasses)):add(nn.LogSoftMax())
end

local function builder(opts)
  local o = util.options('googlenet', opts, {aux = true, nClasses = 1000})
  local function stage(seq, nIn, cfgs)
    for _, c in ipairs(cfgs) do
      local m
      m, nIn = inception(nIn, c)
      seq:add(m)
    end
    return nIn
  end
  local stem = nn.Sequential()
  stem:add(ConvReLU(3, 64, 7, 2, 3))
  stem:add(nn.SpatialMaxPooling(3, 3, 2, 2):ceil())
  stem:add(nn.SpatialCrossMapLRN(5, 0.0001, 0.75))
  stem:add(ConvReLU(64, 64, 1))
  stem:add(ConvReLU(64, 192, 3, 1, 1))
  stem:add(nn.SpatialCrossMapLRN(5, 0.0001, 0.75))
  stem:add(nn.SpatialMaxPooling(3, 3, 2, 2):ceil())
  local n = stage(stem, 192, {{64, 96, 128, 16, 32, 32}, {128, 128, 192, 32, 96, 64}})
  stem:add(nn.SpatialMaxPooling(3, 3, 2, 2):ceil())
  n = stage(stem, n, {{192, 96, 208, 16, 48, 64}})                                  -- 4a: 512
  local mid = nn.Sequential()
  local n4d = stage(mid, n, {{160, 112, 224, 24, 64, 64}, {128, 128, 256, 24, 64, 64},
                             {112, 144, 288, 32, 64, 64}})                          -- 4d: 528
  local tail = nn.Sequential()
  local n5 = stage(tail, n4d, {{256, 160, 320, 32, 128, 128}})                      -- 4e: 832
  tail:add(nn.SpatialMaxPooling(3, 3, 2, 2):ceil())
  n5 = stage(tail, n5, {{256, 160, 320, 32, 128, 128}, {384, 192, 384, 48, 128, 128}})
  tail:add(nn.SpatialAveragePooling(7, 7, 1, 1))
  tail:add(nn.View(n5):setNumInputDims(3))
  tail:add(nn.Dropout(0.4))
  tail:add(nn.Linear(n5, o.nClasses)):add(nn.LogSoftMax())

  local net
  if o.aux then
    mid:add(nn.ConcatTable():add(auxClassifier(n4d, o.nClasses)):add(tail))
    stem:add(nn.ConcatTable():add(auxClassifier(n, o.nClasses)):add(mid))
    net = nn.Sequential():add(stem):add(nn.FlattenTable())
  else
    net = stem:add(mid):add(tail)
  end
  return util.finish(net, o, 3, 224, 224)
end

return builder
