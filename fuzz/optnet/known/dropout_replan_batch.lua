-- in-place Dropout, training, forward at another batch: wrong (the re-plan)
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/dropout_replan_batch.lua train
return {input = {1, 1, 1, 1}, net = {a = {0.20000000000000001, nil, true, n = 3}, t = "Dropout"}, seed = 31, warm = false}