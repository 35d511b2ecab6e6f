-- nn.SpatialConvolutionMM(nInputPlane, nOutputPlane, kW, kH [, dW, dH, padW, padH]):
-- Torch7's name for the im2col ("matrix-multiply") convolution. Same
-- arguments, defaults, shapes and kernel as nn.SpatialConvolution; as in
-- Torch7 its weight (and gradWeight) is kept as the matrix the gemm uses,
-- nOutputPlane x (nInputPlane*kH*kW); the kernels see a 4D view of it.

local SpatialConvolutionMM, parent = torch.class('nn.SpatialConvolutionMM', 'nn.SpatialConvolution')

function SpatialConvolutionMM:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
  parent.__init(self, nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
  local n = self.nInputPlane * self.kH * self.kW
  self.weight = self.weight:view(self.nOutputPlane, n)
  self.gradWeight = self.gradWeight:view(self.nOutputPlane, n)
end
