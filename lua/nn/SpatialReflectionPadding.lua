-- nn.SpatialReflectionPadding(pad_l [, pad_r, pad_t, pad_b]): pads the last two
-- dimensions of a 3D or 4D (batch) input with their mirror image (the
-- border not repeated: column -1 is column 1); each pad must be smaller
-- than the size it mirrors. pad_r, pad_t, pad_b default to pad_l; a negative
-- pad crops. Backward adds each output gradient to the input element it
-- came from. Kernel: src/nn/th_nn_pad.c; constructor and traits: nn/padding.lua.

local SpatialReflectionPadding = torch.class('nn.SpatialReflectionPadding', 'nn.Module')
require('nn.padding').kernelClass(SpatialReflectionPadding, 'reflect')
