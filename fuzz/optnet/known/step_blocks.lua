-- trainStep{blockBytes = 64}: parameters wrong from step 2
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/step_blocks.lua step_blocks
return {seed=1, input={2,8}, net={t='Sequential', c={{t='Linear',a={n=2,8,8}},{t='Tanh'},{t='Linear',a={n=2,8,2}}}}}
