-- recompute = 'sqrt' on Sequential(Tanh, AddConstant(-0.3, true), Tanh): gradInput wrong
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/sqrt_tanh_addconstant.lua train_sqrt
return {seed=1, input={2,4}, net={t='Sequential', c={{t='Tanh'},{t='AddConstant',a={n=2,-0.3,true}},{t='Tanh'}}}}
