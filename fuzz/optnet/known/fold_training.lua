-- foldBatchNorm, then net:training(): forward silently wrong
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/fold_training.lua infer_fold_training
return {seed=1, input={2,3,6,6}, net={t='Sequential', c={{t='SpatialConvolution',a={n=4,3,4,3,3}},{t='SpatialBatchNormalization',a={n=1,4},init='bn'},{t='ReLU',a={n=1,true}}}}}
