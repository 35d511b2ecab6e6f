-- dataset_driver.lua: what fuzz_dataset runs on each input (fuzz_load.c
-- built with this driver), and what spec/fuzz_regression_spec.lua runs on
-- the saved inputs in fuzz/regressions/dataset/.
-- A table, callable with the input bytes:
--   byte 1: the reader (even: dataset.mnist.loadFiles, odd:
--     dataset.cifar.loadFiles) and, in bits 1-2, the options (none,
--     n = 1, n = 3, type = 'float');
--   byte 2: the batch size of the dataset.Loader run over a loaded set
--     (1 + byte % 8), with shuffle when bit 3 is set;
--   bytes 3-4: a big-endian length L; the rest is cut there into two
--     files: MNIST's images (the first L bytes) and labels (the others);
--     CIFAR's two batch files (one file when L is 0).
-- The files never touch the disk: dataset.file.read is replaced by a
-- lookup in the table of this input's files, so the readers run as on
-- real files (.gz names aside). A load error must be the reader's own:
-- a string beginning with the loader's name ('dataset.mnist.loadFiles: '),
-- with no Lua source position in it (an error from Lua itself or from a
-- function the reader did not guard: "attempt to ...", view's "size
-- overflows") and no Lua-internal wording. A loaded set must be
-- consistent (N samples, labels in 1..10, the format's sample shape), and
-- its every element is read, once directly and once through a Loader epoch.
require 'torch'
local dataset = require 'dataset'
local file = require 'dataset.file'

local files = {}
local realRead = file.read
file.read = function(path, who)
  local s = files[path]
  if s == nil then return realRead(path, who) end
  return s
end

local OPTS = {{}, {n = 1}, {n = 3}, {type = 'float'}}
local INTERNAL = {'attempt to ', 'stack overflow', 'a nil value', 'tensor was freed', "bad argument #"}

local function clean(who, err)
  local msg = tostring(err)
  if type(err) ~= 'string' or msg:sub(1, #who + 2) ~= who .. ': ' then
    error('an error not from ' .. who .. ': ' .. msg, 0)
  end
  if msg:find('%.lua:%d+: ') then error('an error with a Lua position: ' .. msg, 0) end
  for _, p in ipairs(INTERNAL) do
    if msg:find(p, 1, true) then error('a Lua-internal error: ' .. msg, 0) end
  end
end

local function check(set, shape, opts, batch, shuffle)
  local n = set:size()
  assert(torch.isTensor(set.data) and set.data:dim() == 4, 'data is not 4D')
  assert(set.data:size(1) == n and set.labels:nElement() == n, 'sample counts differ')
  for i = 1, 3 do
    assert(shape[i] == '*' or set.data:size(i + 1) == shape[i], 'sample shape')
  end
  if opts.n then assert(n <= opts.n, 'more samples than opts.n') end
  assert(torch.type(set.data) == (opts.type == 'float' and 'torch.FloatTensor' or 'torch.ByteTensor'), 'data type')
  if n == 0 then return end
  assert(set.labels:min() >= 1 and set.labels:max() <= 10, 'labels outside 1..10')
  local total = set.data:double():sum()
  local seen = 0
  local loader = dataset.Loader(set, {batchSize = batch, shuffle = shuffle})
  for inputs, targets in loader:run() do
    assert(inputs:size(1) == targets:size(1), 'a batch of unequal inputs and targets')
    seen = seen + inputs:size(1)
    total = total - inputs:double():sum()
  end
  assert(seen == n, 'the loader did not give every sample once')
  assert(math.abs(total) < 1e-6 * (1 + set.data:nElement() * 255), 'the loader changed the data')
end

local function run(_, bytes)
  local b1, b2 = bytes:byte(1) or 0, bytes:byte(2) or 0
  local cut = (bytes:byte(3) or 0) * 256 + (bytes:byte(4) or 0)
  local rest = bytes:sub(5)
  local a, b = rest:sub(1, cut), rest:sub(cut + 1)
  local opts = OPTS[(b1 >> 1) % 4 + 1]
  local copy = {}
  for k, v in pairs(opts) do copy[k] = v end
  local batch, shuffle = 1 + b2 % 8, (b2 & 8) ~= 0
  local ok, res, who, shape
  if b1 % 2 == 0 then
    who, shape = 'dataset.mnist.loadFiles', {1, '*', '*'}
    files = {['<images>'] = a, ['<labels>'] = b}
    ok, res = pcall(dataset.mnist.loadFiles, '<images>', '<labels>', copy)
  else
    who, shape = 'dataset.cifar.loadFiles', {3, 32, 32}
    files = cut == 0 and {['<batch1>'] = b} or {['<batch1>'] = a, ['<batch2>'] = b}
    ok, res = pcall(dataset.cifar.loadFiles, cut == 0 and {'<batch1>'} or {'<batch1>', '<batch2>'}, copy)
  end
  files = {}
  if not ok then
    clean(who, res)
    return false
  end
  torch.manualSeed(b2)
  check(res, shape, opts, batch, shuffle)
  return true
end

return setmetatable({}, {__call = run})
