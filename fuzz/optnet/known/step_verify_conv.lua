-- trainStep{verify = true}: NaN parameters
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/step_verify_conv.lua step_verify
return {seed=1, input={2,4,5,5}, net={t='Sequential', c={{t='SpatialConvolution',a={n=4,4,4,1,1}},{t='ReLU'},{t='SpatialConvolution',a={n=4,4,4,1,1}}}}}
