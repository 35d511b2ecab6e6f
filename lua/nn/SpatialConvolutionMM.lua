-- nn.SpatialConvolutionMM: Torch7's name for the im2col ("matrix-multiply")
-- convolution. Here it is nn.SpatialConvolution under another name, with
-- the SAME 4D weight layout nOutputPlane x nInputPlane x kH x kW (old
-- Torch7 kept this module's weight as nOutputPlane x (nInputPlane*kH*kW);
-- such a 2D weight, e.g. from an old file, is viewed as 4D on first use).

torch.class('nn.SpatialConvolutionMM', 'nn.SpatialConvolution')
