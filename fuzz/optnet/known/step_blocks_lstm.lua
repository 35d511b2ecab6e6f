-- trainStep{blockBytes} on an LSTM: error in nn.Linear:accGradParameters
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/step_blocks_lstm.lua step_blocks
return {input = {1, 2, 1}, net = {c = {{a = {1, 2, n = 2}, t = "LSTM"}}, t = "Sequential"}, seed = 10, warm = false}