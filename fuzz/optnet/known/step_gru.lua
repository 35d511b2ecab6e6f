-- trainStep on a fresh GRU: parameters wrong at step 1
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/step_gru.lua step_adam
return {seed=1, input={2,3,4}, net={t='GRU',a={n=2,4,3}}}
