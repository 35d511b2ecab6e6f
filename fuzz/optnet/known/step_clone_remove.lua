-- trainStep, clone, removeOptimization, plain training: gradParameters wrong
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/step_clone_remove.lua step_adam
return {input = {1}, net = {c = {{a = {1, 1, false, n = 3}, id = 1, t = "Linear"}, {a = {1, 1, false, n = 3}, id = 2, t = "Linear"}}, t = "Sequential"}, seed = 1, warm = false}