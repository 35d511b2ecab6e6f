-- trainStep on a fresh LSTM: parameters wrong at step 1
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/step_lstm.lua step_sgd
return {seed=1, input={2,3,4}, net={t='LSTM',a={n=2,4,3}}}
