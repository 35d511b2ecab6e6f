-- nn.SpatialBatchNormalization(nFeature [, eps, momentum, affine]): batch
-- normalization of N x nFeature x H x W input, statistics per feature plane
-- over the batch and all positions; a single 3D image is accepted in
-- evaluate mode. Everything else as nn.BatchNormalization.

local BN, parent = torch.class('nn.SpatialBatchNormalization', 'nn.BatchNormalization')

BN._version = 2
BN.nDim = 4
