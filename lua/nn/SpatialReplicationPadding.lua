-- nn.SpatialReplicationPadding(pad_l [, pad_r, pad_t, pad_b]): pads the last two
-- dimensions of a 3D or 4D (batch) input with copies of the border row
-- and column. pad_r, pad_t, pad_b default to pad_l; a negative
-- pad crops. Backward adds each output gradient to the input element it
-- came from. Kernel: src/nn/th_nn_pad.c; constructor and traits: nn/padding.lua.

local SpatialReplicationPadding = torch.class('nn.SpatialReplicationPadding', 'nn.Module')
require('nn.padding').kernelClass(SpatialReplicationPadding, 'replicate')
