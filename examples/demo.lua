-- The main job (make demo): until the optimizer lands, a short tensor session.
require 'torch'
local ok_nn = pcall(require, 'nn')
torch.manualSeed = torch.manualSeed or function() end
torch.manualSeed(1)
local a = torch.range and torch.range(1, 6):resize(2, 3) or torch.Tensor({{1, 2, 3}, {4, 5, 6}})
print(a)
print(a:t())
local st = torch.memoryStats()
print(string.format('storages live: %d, bytes live: %d, peak: %d', st.live_count, st.live_bytes, st.peak_bytes))
if ok_nn and nn.Linear then print(nn.Linear(3, 2)) end
