-- broadcast CMul under trainStep: resizeAs does not fit its planned slot
-- bin/th fuzz/optnet/run.lua --desc fuzz/optnet/known/cmul_broadcast_slot.lua step_adamax
return {input = {1, 1, 2, 2}, net = {c = {{c = {{a = {1, 1, 1, 1, n = 4}, t = "CMul"}}, t = "ConcatTable"}, {a = {2, n = 1}, t = "JoinTable"}}, t = "Sequential"}, seed = 8, warm = false}