-- make bench-rnn: optnet on an unrolled char-rnn style LSTM in training
-- mode (thrnn.LSTM over T = 50 steps, batch 50, 2 layers, 65 symbols in and
-- out, rnn size 128 and 512, float): memory before and after against the
-- lower bound, and the training step's time before and after (median of 5).
-- Written to docs/benchmarks.md, section "Unrolled LSTM (char-rnn)".
require 'nn'
require 'thrnn'
local optnet = require 'optnet'

local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/bench/[^/]*$') or '.'
-- the load guard (bench/loadguard.lua): docs/benchmarks.md is written only on a quiet machine
local meter = dofile(here .. '/bench/loadguard.lua').start()
local T, B, V = 50, 50, 65

local function median(f, n)
  local times = {}
  for i = 1, n do
    local t = torch.Timer()
    f()
    times[i] = t:time().real
  end
  table.sort(times)
  return times[(n + 1) // 2]
end

local rows = {}
for _, R in ipairs{128, 512} do
  torch.manualSeed(1)
  local net = nn.Sequential():add(thrnn.LSTM(V, R, 2)):add(nn.Bottle(nn.Linear(R, V))):float()
  local x = torch.randn(B, T, V):float()
  local go = torch.randn(B, T, V):float()
  local function step() net:forward(x); net:backward(x, go) end
  step()
  local tBefore = median(step, 5)
  local before = optnet.countUsedMemory(net, x, {mode = 'training'})
  optnet.optimizeMemory(net, x, {mode = 'training'})
  step()
  local tAfter = median(step, 5)
  local after = optnet.countUsedMemory(net, x, {mode = 'training'})
  rows[#rows + 1] = string.format('| %d | %.1f | %.1f | %.1f | %.3f | %.3f |', R, before.total_size / 2^20,
                                  after.total_size / 2^20, after.lower_bound / 2^20, tBefore, tAfter)
  print(rows[#rows])
end

local text = '## Unrolled LSTM (char-rnn)\n\n'
  .. 'thrnn.LSTM, 2 layers, T = 50, batch 50, 65 symbols, float, training mode (`make bench-rnn`).\n'
  .. 'Memory counted by optnet.countUsedMemory (parameters, gradients, activations, buffers);\n'
  .. 'the bound is the least the activations need at one step plus parameters and state.\n\n'
  .. '| rnn size | before (MiB) | after (MiB) | lower bound (MiB) | step before (s) | step after (s) |\n'
  .. '|---|---|---|---|---|---|\n' .. table.concat(rows, '\n') .. '\n'
dofile(here .. '/bench/loadguard.lua').write(here .. '/docs/benchmarks.md', 'Unrolled LSTM (char-rnn)', text, meter:other())
