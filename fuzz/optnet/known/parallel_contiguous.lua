-- Parallel with a Contiguous child: inference output wrong (issue #32)
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/parallel_contiguous.lua infer
return {seed=1, input={2,4,5}, net={t='Parallel', a={n=2,2,2}, c={{t='Identity'},{t='Identity'},{t='Contiguous'},{t='Identity'}}}}
