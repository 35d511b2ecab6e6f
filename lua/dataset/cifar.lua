-- dataset.cifar: CIFAR-10 in its binary version (cifar-10-binary.tar.gz,
-- unpacked): files of 3073-byte records, one label byte (0..9) then 3072
-- pixel bytes (1024 red, 1024 green, 1024 blue, rows of 32 each).
--   load(dir, 'train' | 'test' [, opts]) reads data_batch_1.bin ..
--     data_batch_5.bin (train) or test_batch.bin (test) from dir, or from
--     dir/cifar-10-batches-bin as the archive unpacks
--   loadFiles(paths [, opts]) the records of a list of files, in order
--   opts.n: only the first n samples; opts.type: 'byte' (default) or 'float'
--   returns {data = N x 3 x 32 x 32, labels = LongTensor of N in 1..10
--     (class + 1)} with size() (dataset.set)
--   CLASSES: the ten class names in label order
--   write(dir, set, 'train' | 'test') writes a set back (training sets
--     split over the five batch files as evenly as possible)
--   writeSynthetic(dir, n [, opts]) writes n training and opts.nTest
--     (default n // 5, at least 10) test samples of a learnable stand-in and
--     returns {train = set, test = set} as written.
-- The format has no header: a size that is not a whole number of records,
-- an empty file or a label byte above 9 are errors naming the file.
require 'torch'
local file = require 'dataset.file'

local M = {}

M.CLASSES = {'airplane', 'automobile', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck'}

local RECORD = 3073
local TRAIN = {'data_batch_1.bin', 'data_batch_2.bin', 'data_batch_3.bin', 'data_batch_4.bin', 'data_batch_5.bin'}
local TEST = {'test_batch.bin'}

local checkOpts = file.checkOpts

-- the records of one file as an n x 3073 ByteTensor
local function records(path, who, limit)
  local s = file.read(path, who)
  if #s == 0 or #s % RECORD ~= 0 then
    error(string.format('%s: %s: %d bytes is not a whole number of %d-byte CIFAR-10 records (truncated or not '
                        .. 'a CIFAR-10 binary file)', who, path, #s, RECORD), 0)
  end
  local n = math.min(#s // RECORD, limit)
  local r = file.tensor(s, 1, n * RECORD):view(n, RECORD)
  local labels = r:select(2, 1)
  if labels:max() > 9 then
    local _, at = labels:long():max(1)
    error(string.format('%s: %s: label byte %d in record %d (classes 0..9 expected)', who, path, labels:max(),
                        at[1]), 0)
  end
  return r
end

local function loadFiles(paths, opts, who)
  local parts, total = {}, 0
  local limit = opts.n or math.huge
  for i, p in ipairs(paths) do
    if total >= limit then break end
    parts[i] = records(p, who, limit - total)
    total = total + parts[i]:size(1)
  end
  local data = torch.ByteTensor(total, 3, 32, 32)
  local labels = torch.LongTensor(total)
  local at = 1
  for _, r in ipairs(parts) do
    local n = r:size(1)
    data:narrow(1, at, n):copy(r:narrow(2, 2, 3072))
    labels:narrow(1, at, n):copy(r:select(2, 1))
    at = at + n
  end
  labels:add(1)
  if opts.type == 'float' then data = data:float() end
  return file.set(data, labels, who)
end

function M.loadFiles(paths, opts)
  local who = 'dataset.cifar.loadFiles'
  if type(paths) == 'string' then paths = {paths} end
  if type(paths) ~= 'table' or #paths == 0 then
    error(string.format('%s: a list of file names expected, got %s', who, torch.type(paths)), 2)
  end
  return loadFiles(paths, checkOpts(opts, who), who)
end

local function exists(p)
  local f = io.open(p, 'rb')
  if f then f:close() end
  return f ~= nil
end

function M.load(dir, split, opts)
  local who = 'dataset.cifar.load'
  if type(dir) ~= 'string' then error(string.format('%s: a directory (string) expected, got %s', who, torch.type(dir)), 2) end
  split = split or 'train'
  if split ~= 'train' and split ~= 'test' then
    error(string.format("%s: split 'train' or 'test' expected, got %s", who, tostring(split)), 2)
  end
  opts = checkOpts(opts, who)
  local names = split == 'train' and TRAIN or TEST
  if not exists(dir .. '/' .. names[1]) and exists(dir .. '/cifar-10-batches-bin/' .. names[1]) then
    dir = dir .. '/cifar-10-batches-bin'
  end
  local paths = {}
  for i, name in ipairs(names) do paths[i] = file.find(dir, {name}, who) end
  return loadFiles(paths, opts, who)
end

function M.write(dir, set, split)
  local who = 'dataset.cifar.write'
  if type(dir) ~= 'string' then error(string.format('%s: a directory (string) expected, got %s', who, torch.type(dir)), 2) end
  if type(set) ~= 'table' or not torch.isTensor(set.data) or set.data:dim() ~= 4 or set.data:size(2) ~= 3
      or set.data:size(3) ~= 32 or set.data:size(4) ~= 32 then
    error(string.format('%s: a set {data = N x 3 x 32 x 32, labels = N} expected, got %s', who,
                        type(set) == 'table' and torch.isTensor(set.data)
                        and table.concat(set.data:size():totable(), 'x') .. ' data' or torch.type(set)), 2)
  end
  if split ~= 'train' and split ~= 'test' then
    error(string.format("%s: split 'train' or 'test' expected, got %s", who, tostring(split)), 2)
  end
  local n = set.data:size(1)
  if n > 0 and (set.labels:min() < 1 or set.labels:max() > 10) then
    error(string.format('%s: labels 1..10 expected, got %d..%d', who, set.labels:min(), set.labels:max()), 2)
  end
  local names = split == 'train' and TRAIN or TEST
  if n < #names then
    error(string.format('%s: at least %d samples expected (one per file), got %d', who, #names, n), 2)
  end
  file.mkdir(dir, who)
  local r = torch.ByteTensor(n, RECORD)
  r:select(2, 1):copy(set.labels - 1)
  r:narrow(2, 2, 3072):copy(set.data:byte():view(n, 3072))
  local paths, at = {}, 1
  for i, name in ipairs(names) do
    local count = n // #names + ((i <= n % #names) and 1 or 0)
    paths[i] = dir .. '/' .. name
    file.write(paths[i], file.bytes(r:narrow(1, at, count)), who)
    at = at + count
  end
  return paths
end

-- class k (1..10): stripes at angle (k-1)*18 degrees in a hue of its own
-- (2*pi*k/10). Each sample draws its own: the angle off by a Gaussian of 3
-- degrees, the hue off by one of 7 degrees (neighbouring classes overlap
-- in both), the stripes' period (5 to 7 pixels), phase and contrast, a
-- rectangle of a random colour over part of the picture, brightness and
-- Gaussian noise; and LABEL_NOISE of the samples get a random label. So a
-- convnet learns it over several epochs and stays below 100%.
M.LABEL_NOISE = 0.03

-- n samples drawn from torch's generator
function M.synthetic(n)
  local data = torch.ByteTensor(n, 3, 32, 32)
  local labels = torch.LongTensor(n)
  local X = torch.range(1, 32):float():view(1, 32):expand(32, 32):contiguous()
  local Y = X:t():contiguous()
  local wave, x = torch.FloatTensor(32, 32), torch.FloatTensor(3, 32, 32)
  local noise = torch.FloatTensor(3, 32, 32)
  for i = 1, n do
    local k = torch.random(1, 10)
    local a = (k - 1) * math.pi / 10 + torch.normal(0, 3) * math.pi / 180
    local ca, sa = math.cos(a), math.sin(a)
    local period, phase = torch.uniform(5, 7), torch.uniform(0, 2 * math.pi)
    -- cos(2 pi (x cos a + y sin a) / period + phase), scaled by the contrast
    wave:copy(X):mul(ca):add(sa, Y):mul(2 * math.pi / period):add(phase):cos():mul(0.3 * torch.uniform(0.5, 1)):add(0.7)
    local h = 2 * math.pi * k / 10 + torch.normal(0, 7) * math.pi / 180
    for c = 1, 3 do x[c]:copy(wave):mul(170 * (0.5 + 0.5 * math.cos(h + 2.1 * (c - 1)))):add(40) end
    -- a rectangle of a random colour
    local rh, rw = torch.random(4, 10), torch.random(4, 10)
    local r0, c0 = torch.random(1, 33 - rh), torch.random(1, 33 - rw)
    for c = 1, 3 do x[c]:narrow(1, r0, rh):narrow(2, c0, rw):fill(torch.uniform(20, 230)) end
    x:mul(torch.uniform(0.6, 1)):add(noise:normal(0, 35)):add(0.5):clamp(0, 255)
    data[i]:copy(x:byte())
    if torch.uniform() < M.LABEL_NOISE then k = torch.random(1, 10) end
    labels[i] = k
  end
  return file.set(data, labels, 'dataset.cifar.synthetic')
end

function M.writeSynthetic(dir, n, opts)
  local who = 'dataset.cifar.writeSynthetic'
  if type(dir) ~= 'string' then error(string.format('%s: a directory (string) expected, got %s', who, torch.type(dir)), 2) end
  if math.type(n) ~= 'integer' or n < #TRAIN then
    error(string.format('%s: a number of training samples (integer >= 5) expected, got %s', who, tostring(n)), 2)
  end
  opts = opts or {}
  local sets = {train = M.synthetic(n), test = M.synthetic(opts.nTest or math.max(10, n // 5))}
  M.write(dir, sets.train, 'train')
  M.write(dir, sets.test, 'test')
  return sets
end

return M
