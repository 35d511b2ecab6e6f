-- examples/char_rnn.lua: a character-level language model the way
-- char-rnn trains one: one LSTM step (models/lstm.lua, an nngraph gModule)
-- cloned over -seq_length time steps, all clones sharing the step's flat
-- parameters, truncated back-propagation through time (the state carries
-- from one minibatch to the next, gradients stop at its start), gradient
-- clipping, optim.adam, then sampling text from the trained model.
--
--   bin/th examples/char_rnn.lua
--       learns a text it generates (a few thousand characters of a small
--       grammar), a CI-sized run of a few seconds, then prints a sample
--   bin/th examples/char_rnn.lua -text input.txt -rnn_size 128 -iters 2000
--       learns your text file
--   bin/th examples/char_rnn.lua -h             every option
--
-- Prints the training loss every -print_every iterations (bits per
-- character fall from log2(vocabulary) as it learns), then -sample_length
-- sampled characters.
require 'torch'
require 'nn'
require 'nngraph'
require 'optim'
local lstm = require 'models.lstm'

local cmd = torch.CmdLine()
cmd:text('A character-level LSTM language model (char-rnn style).')
cmd:option('-text', '', 'a text file to learn (default: a generated text)')
cmd:option('-rnn_size', 64, 'LSTM state size')
cmd:option('-layers', 1, 'LSTM layers')
cmd:option('-seq_length', 16, 'time steps per minibatch (truncated BPTT)')
cmd:option('-batch_size', 16, 'sequences per minibatch')
cmd:option('-iters', 200, 'training iterations')
cmd:option('-learning_rate', 5e-3, 'Adam learning rate')
cmd:option('-grad_clip', 5, 'clip each gradient element to [-grad_clip, grad_clip]')
cmd:option('-print_every', 20, 'print the loss every this many iterations')
cmd:option('-sample_length', 200, 'characters to sample at the end')
cmd:option('-temperature', 0.8, 'sampling temperature')
cmd:option('-seed', 123, 'random seed')
local opt = cmd:parse(arg or {})
torch.manualSeed(opt.seed)

-- a text from a small grammar: sentences a model can learn quickly
local function generatedText(n)
  local subjects = {'the cat', 'a dog', 'the bird', 'my friend', 'the old man'}
  local verbs = {'sees', 'likes', 'finds', 'follows', 'watches'}
  local objects = {'the ball', 'a tree', 'the river', 'some bread', 'the moon'}
  local out, len = {}, 0
  while len < n do
    local s = subjects[torch.random(#subjects)] .. ' ' .. verbs[torch.random(#verbs)] .. ' '
              .. objects[torch.random(#objects)] .. '. '
    out[#out + 1] = s
    len = len + #s
  end
  return table.concat(out)
end

local text
if opt.text ~= '' then
  local f = io.open(opt.text)
  if not f then io.stderr:write('char_rnn: cannot read ' .. opt.text .. '\n'); os.exit(1) end
  text = f:read('a')
  f:close()
else
  text = generatedText(6000)
end

-- the vocabulary: one class number per character
local vocab, chars = {}, {}
for c in text:gmatch('.') do
  if not vocab[c] then chars[#chars + 1] = c; vocab[c] = #chars end
end
local V = #chars
local data = torch.LongTensor(#text)
for i = 1, #text do data[i] = vocab[text:sub(i, i)] end

-- batch_size parallel streams over the text; minibatch k is columns of them
local T, B, R, L = opt.seq_length, opt.batch_size, opt.rnn_size, opt.layers
local streamLen = math.floor((#text - 1) / B)
if streamLen < T + 1 then io.stderr:write('char_rnn: the text is too short for these sizes\n'); os.exit(1) end
local xs = data:narrow(1, 1, B * streamLen):view(B, streamLen)
local ys = data:narrow(1, 2, B * streamLen):view(B, streamLen)
local nBatches = math.floor(streamLen / T)

-- the model: one step, then T clones holding the same flat parameters
local step = lstm{inputSize = V, rnnSize = R, layers = L, oneHot = true, nOutput = V}
local params, grads = step:getParameters()
params:uniform(-0.08, 0.08)
local clones = {}
for t = 1, T do clones[t] = step:clone('weight', 'bias', 'gradWeight', 'gradBias') end
local crit = nn.ClassNLLCriterion()
print(string.format('vocabulary %d, %d parameters, %d minibatches per pass', V, params:nElement(), nBatches))

local function zeroState()
  local s = {}
  for i = 1, 2 * L do s[i] = torch.zeros(B, R) end
  return s
end
local carried = zeroState()
local batchIndex = 0

local function feval()
  grads:zero()
  batchIndex = batchIndex % nBatches + 1
  if batchIndex == 1 then carried = zeroState() end
  local x = xs:narrow(2, (batchIndex - 1) * T + 1, T)
  local y = ys:narrow(2, (batchIndex - 1) * T + 1, T)
  -- forward through time
  local state, outs, loss = {[0] = carried}, {}, 0
  for t = 1, T do
    local inputs = {x:select(2, t)}
    for i = 1, 2 * L do inputs[i + 1] = state[t - 1][i] end
    outs[t] = clones[t]:forward(inputs)
    state[t] = {}
    for i = 1, 2 * L do state[t][i] = outs[t][i] end
    loss = loss + crit:forward(outs[t][2 * L + 1], y:select(2, t))
  end
  -- backward through time, from a zero gradient at the end of the window
  local dstate = zeroState()
  for t = T, 1, -1 do
    local inputs = {x:select(2, t)}
    for i = 1, 2 * L do inputs[i + 1] = state[t - 1][i] end
    local gradOut = {}
    for i = 1, 2 * L do gradOut[i] = dstate[i] end
    gradOut[2 * L + 1] = crit:backward(outs[t][2 * L + 1], y:select(2, t))
    local gi = clones[t]:backward(inputs, gradOut)
    for i = 1, 2 * L do dstate[i] = gi[i + 1] end
  end
  -- truncated BPTT: the next minibatch starts from this one's last state
  carried = {}
  for i = 1, 2 * L do carried[i] = state[T][i]:clone() end
  grads:clamp(-opt.grad_clip, opt.grad_clip)
  return loss / T, grads
end

local config = {learningRate = opt.learning_rate}
local first, last
for i = 1, opt.iters do
  local _, fs = optim.adam(feval, params, config)
  first = first or fs[1]
  last = fs[1]
  if i % opt.print_every == 0 or i == 1 then
    print(string.format('%d/%d  loss %.4f  (%.3f bits per character)', i, opt.iters, fs[1], fs[1] / math.log(2)))
  end
end

-- sampling: one character at a time, fed back, from the trained step
local sampler = step:clone()
sampler:evaluate()
local s = {}
for i = 1, 2 * L do s[i] = torch.zeros(1, R) end
local cur = torch.LongTensor{vocab[text:sub(1, 1)]}
local out = {text:sub(1, 1)}
for _ = 1, opt.sample_length do
  local inputs = {cur}
  for i = 1, 2 * L do inputs[i + 1] = s[i] end
  local o = sampler:forward(inputs)
  for i = 1, 2 * L do s[i] = o[i]:clone() end
  local probs = torch.exp(o[2 * L + 1]:div(opt.temperature)):view(-1)
  cur = torch.multinomial(probs, 1):view(1)
  out[#out + 1] = chars[cur[1]]
end
print('sample: ' .. table.concat(out))
print(string.format('loss %.4f -> %.4f', first, last))
