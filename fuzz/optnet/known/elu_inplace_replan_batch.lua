-- in-place ELU first, inference at another batch: wrong (the re-plan)
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/elu_inplace_replan_batch.lua infer
return {input = {1, 1, 1, 1}, net = {a = {0.5, true, n = 2}, t = "ELU"}, seed = 24, warm = false}