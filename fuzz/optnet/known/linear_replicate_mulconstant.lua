-- Linear, Replicate, MulConstant: inference output wrong (MulConstant switched in place on the stride-0 view)
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/linear_replicate_mulconstant.lua infer
return {seed=1, input={2,4}, net={t='Sequential', c={{t='Linear',a={n=2,4,3}},{t='Replicate',a={n=3,3,1,1}},{t='MulConstant',a={n=2,0.5,false}}}}}
