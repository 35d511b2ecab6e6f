-- Replicate(3, 1, 1), Contiguous, View(-1), Threshold on a vector: SIGSEGV (heap corruption: not every run; after infer and train, in infer_lifecycle)
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/replicate_contiguous_view_threshold.lua infer train infer_lifecycle
return {seed=1, input={4}, net={t='Sequential', c={{t='Replicate',a={n=3,3,1,1}},{t='Contiguous'},{t='View',a={n=1,-1}},{t='Threshold',a={n=3,0,0,false}}}}}
