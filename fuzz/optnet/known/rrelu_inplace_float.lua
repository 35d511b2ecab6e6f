-- in-place RReLU then Linear: wrong after :float()
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/rrelu_inplace_float.lua infer_lifecycle
return {input = {1}, net = {c = {{a = {0.125, 0.33333333333333331, true, n = 3}, t = "RReLU"}, {a = {1, 3, false, n = 3}, id = 1, t = "Linear"}}, t = "Sequential"}, seed = 15, warm = false}