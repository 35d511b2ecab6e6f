-- cudnn on the CPU (docs/cuda.md): cudnn.X is nn.X under cuDNN's name, a
-- subclass with no state of its own, so a net built from cudnn.X computes
-- exactly what the same net of nn.X computes, saves under cuDNN's class
-- names (as Torch7 did) and converts both ways by changing classes in place
-- (cudnn.convert). The algorithm flags are kept and have no effect: the CPU
-- kernels are deterministic.
require 'nn'
require 'cunn'

local cudnn = {standIn = true}
-- scripts compare it with cuDNN's release numbers (fb.resnet.torch: >= 4000);
-- the stand-in answers as the last cuDNN Torch7's bindings supported (7.x)
cudnn.version = 7605
cudnn.benchmark = false
cudnn.fastest = false
cudnn.verbose = false
cudnn.useFindEx = false

-- cuDNN's class name -> nn's class it is
cudnn.classes = {
  SpatialConvolution = 'nn.SpatialConvolution', SpatialFullConvolution = 'nn.SpatialFullConvolution',
  VolumetricConvolution = 'nn.VolumetricConvolution', VolumetricFullConvolution = 'nn.VolumetricFullConvolution',
  TemporalConvolution = 'nn.TemporalConvolution',
  SpatialMaxPooling = 'nn.SpatialMaxPooling', SpatialAveragePooling = 'nn.SpatialAveragePooling',
  VolumetricMaxPooling = 'nn.VolumetricMaxPooling', VolumetricAveragePooling = 'nn.VolumetricAveragePooling',
  ReLU = 'nn.ReLU', Tanh = 'nn.Tanh', Sigmoid = 'nn.Sigmoid', ClippedReLU = 'nn.HardTanh',
  SoftMax = 'nn.SoftMax', LogSoftMax = 'nn.LogSoftMax',
  SpatialSoftMax = 'nn.SpatialSoftMax', SpatialLogSoftMax = 'nn.SpatialLogSoftMax',
  BatchNormalization = 'nn.BatchNormalization', SpatialBatchNormalization = 'nn.SpatialBatchNormalization',
  VolumetricBatchNormalization = 'nn.VolumetricBatchNormalization',
  SpatialCrossMapLRN = 'nn.SpatialCrossMapLRN',
}

-- the submodules find the table being built here
_G.cudnn = cudnn
package.loaded.cudnn = cudnn
require 'cudnn.modules'
require 'cudnn.convert'
return cudnn
