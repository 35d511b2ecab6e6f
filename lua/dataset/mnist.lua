-- dataset.mnist: MNIST in its idx files, as LeCun distributes them.
--   load(dir, 'train' | 'test' [, opts]) reads dir/train-images-idx3-ubyte
--     and dir/train-labels-idx1-ubyte (test: t10k-...), each plain or .gz
--     (read through `gzip -dc`); names with '.idx' (train-images.idx3-ubyte)
--     are found too
--   loadFiles(imagesPath, labelsPath [, opts]) the same from two paths
--   opts.n: only the first n samples; opts.type: 'byte' (default, values
--     0..255 as stored) or 'float' (FloatTensor of the same values)
--   returns {data = N x 1 x 28 x 28, labels = LongTensor of N in 1..10
--     (digit + 1)} with size() (dataset.set)
--   write(dir, set, 'train' | 'test' [, gzip]) writes a set back in the
--     same format (labels 1..10 stored as digits 0..9)
--   writeSynthetic(dir, n [, opts]) writes n training and opts.nTest
--     (default n // 5, at least 10) test samples of a learnable stand-in and
--     returns {train = set, test = set} as written; opts.gzip compresses.
-- idx: a big-endian 4-byte magic 0x000008DD (08: unsigned bytes, DD: the
-- number of dimensions), DD big-endian 4-byte sizes, then the bytes in
-- row-major order. Images are 0x00000803 (N, rows, cols), labels
-- 0x00000801 (N). A wrong magic, a truncated file, counts that disagree or a
-- label above 9 are errors naming the file.
require 'torch'
local file = require 'dataset.file'

local M = {}

local NAMES = {
  train = {images = {'train-images-idx3-ubyte', 'train-images.idx3-ubyte'},
           labels = {'train-labels-idx1-ubyte', 'train-labels.idx1-ubyte'}},
  test = {images = {'t10k-images-idx3-ubyte', 't10k-images.idx3-ubyte'},
          labels = {'t10k-labels-idx1-ubyte', 't10k-labels.idx1-ubyte'}},
}

-- the sizes of an idx file of unsigned bytes with 'ndim' dimensions and the
-- position of its first element
local function header(s, path, ndim, what, who)
  local magic = 0x800 + ndim
  if #s < 4 then
    error(string.format('%s: %s: not an idx %s file (%d bytes, too short for a header)', who, path, what, #s), 0)
  end
  local got = string.unpack('>I4', s)
  if got ~= magic then
    error(string.format('%s: %s: not an idx %s file (magic number 0x%08X expected, got 0x%08X)',
                        who, path, what, magic, got), 0)
  end
  if #s < 4 + 4 * ndim then
    error(string.format('%s: %s: truncated idx header (%d bytes expected, got %d)', who, path, 4 + 4 * ndim, #s), 0)
  end
  -- the product in floating point: 4 x 2^31 x 2^31 wraps to 0 in integers
  -- (and then passed for an empty file); below the file's length it is exact
  local sizes, count = {}, 1.0
  for i = 1, ndim do
    sizes[i] = string.unpack('>I4', s, 1 + 4 * i)
    count = count * sizes[i]
  end
  local pos = 5 + 4 * ndim
  if #s - pos + 1 < count then
    error(string.format('%s: %s: truncated (%s: %.0f bytes of data expected, got %d)', who, path,
                        table.concat(sizes, 'x'), count, #s - pos + 1), 0)
  end
  -- no images, each of rows x cols beyond what a tensor can index: the
  -- (empty) tensor's strides would overflow
  local sample = 1.0
  for i = 2, ndim do sample = sample * sizes[i] end
  if sample >= 2.0 ^ 53 then
    error(string.format('%s: %s: samples of %s elements are too large (sizes %s)', who, path,
                        table.concat(sizes, 'x', 2), table.concat(sizes, 'x')), 0)
  end
  return sizes, pos
end

local checkOpts = file.checkOpts

local function loadFiles(imagesPath, labelsPath, opts, who)
  local s = file.read(imagesPath, who)
  local isz, ipos = header(s, imagesPath, 3, 'image', who)
  local l = file.read(labelsPath, who)
  local lsz, lpos = header(l, labelsPath, 1, 'label', who)
  if isz[1] ~= lsz[1] then
    error(string.format('%s: %s has %d images but %s has %d labels', who, imagesPath, isz[1], labelsPath, lsz[1]), 0)
  end
  local n = math.min(isz[1], opts.n or isz[1])
  local data = file.tensor(s, ipos, n * isz[2] * isz[3]):view(n, 1, isz[2], isz[3])
  local labels = file.tensor(l, lpos, n):long()
  if n > 0 and labels:max() > 9 then
    local _, at = labels:max(1)
    error(string.format('%s: %s: label %d at sample %d (digits 0..9 expected)', who, labelsPath,
                        labels:max(), at[1]), 0)
  end
  labels:add(1)
  if opts.type == 'float' then data = data:float() end
  return file.set(data, labels, who)
end

function M.loadFiles(imagesPath, labelsPath, opts)
  local who = 'dataset.mnist.loadFiles'
  if type(imagesPath) ~= 'string' or type(labelsPath) ~= 'string' then
    error(string.format('%s: two file names (strings) expected, got %s and %s', who, torch.type(imagesPath),
                        torch.type(labelsPath)), 2)
  end
  return loadFiles(imagesPath, labelsPath, checkOpts(opts, who), who)
end

function M.load(dir, split, opts)
  local who = 'dataset.mnist.load'
  if type(dir) ~= 'string' then error(string.format('%s: a directory (string) expected, got %s', who, torch.type(dir)), 2) end
  split = split or 'train'
  if not NAMES[split] then error(string.format("%s: split 'train' or 'test' expected, got %s", who, tostring(split)), 2) end
  opts = checkOpts(opts, who)
  local names = NAMES[split]
  return loadFiles(file.find(dir, names.images, who), file.find(dir, names.labels, who), opts, who)
end

local function idx(sizes, data)
  local parts = {string.pack('>I4', 0x800 + #sizes)}
  for i, sz in ipairs(sizes) do parts[i + 1] = string.pack('>I4', sz) end
  parts[#parts + 1] = file.bytes(data)
  return table.concat(parts)
end

function M.write(dir, set, split, gzip)
  local who = 'dataset.mnist.write'
  if type(dir) ~= 'string' then error(string.format('%s: a directory (string) expected, got %s', who, torch.type(dir)), 2) end
  if type(set) ~= 'table' or not torch.isTensor(set.data) or set.data:dim() ~= 4 or set.data:size(2) ~= 1 then
    error(string.format('%s: a set {data = N x 1 x H x W, labels = N} expected, got %s', who,
                        type(set) == 'table' and torch.isTensor(set.data)
                        and table.concat(set.data:size():totable(), 'x') .. ' data' or torch.type(set)), 2)
  end
  if not NAMES[split] then error(string.format("%s: split 'train' or 'test' expected, got %s", who, tostring(split)), 2) end
  local n, h, w = set.data:size(1), set.data:size(3), set.data:size(4)
  if n > 0 and (set.labels:min() < 1 or set.labels:max() > 10) then
    error(string.format('%s: labels 1..10 expected, got %d..%d', who, set.labels:min(), set.labels:max()), 2)
  end
  file.mkdir(dir, who)
  local ipath = dir .. '/' .. NAMES[split].images[1]
  local lpath = dir .. '/' .. NAMES[split].labels[1]
  file.write(ipath, idx({n, h, w}, set.data:byte()), who)
  file.write(lpath, idx({n}, (set.labels - 1):byte()), who)
  if gzip then ipath, lpath = file.gzip(ipath, who), file.gzip(lpath, who) end
  return ipath, lpath
end

-- class k (1..10): a stroke through the middle at angle (k-1)*18 degrees
-- and a ring whose radius grows with k. Each sample draws its own: the
-- angle off by a Gaussian of 7 degrees (neighbouring classes overlap), the
-- ring's radius off by 0.7 pixel, stroke and ring widths, the stroke's
-- length, a shift of up to 3 pixels, a short stray stroke, brightness and
-- Gaussian noise; and LABEL_NOISE of the samples get a random label. So a
-- convnet learns it over several epochs and stays below 100%.
M.LABEL_NOISE = 0.03

-- n samples (size x size pixels, default 28) drawn from torch's generator
function M.synthetic(n, size)
  size = size or 28
  local data = torch.ByteTensor(n, 1, size, size)
  local labels = torch.LongTensor(n)
  local c = (size + 1) / 2
  local X = torch.range(1, size):float():add(-c):view(1, size):expand(size, size):contiguous()
  local Y = X:t():contiguous()
  local x, y, along, across, img, t = {}, {}, {}, {}, {}, {}
  for _, v in ipairs{x, y, along, across, img, t} do v[1] = torch.FloatTensor(size, size) end
  x, y, along, across, img, t = x[1], y[1], along[1], across[1], img[1], t[1]
  local noise = torch.FloatTensor(size, size)
  for i = 1, n do
    local k = torch.random(1, 10)
    local a = (k - 1) * math.pi / 10 + torch.normal(0, 4) * math.pi / 180
    local ca, sa = math.cos(a), math.sin(a)
    local r = 3 + (k - 1) * 0.8 + torch.normal(0, 0.35)
    local w, rw = torch.uniform(0.7, 2), torch.uniform(0.5, 1.2)
    local len = size / 2 - torch.uniform(2, 6)
    x:copy(X):add(-torch.uniform(-3, 3))
    y:copy(Y):add(-torch.uniform(-3, 3))
    -- the stroke: |across| <= w and |along| <= len
    along:copy(x):mul(ca):add(sa, y)
    across:copy(y):mul(ca):add(-sa, x)
    img:copy(across:abs():le(w):float()):cmul(along:abs():le(len):float()):mul(255)
    -- the ring: | |(x, y)| - r | <= rw, at 160
    t:copy(x):cmul(x):addcmul(y, y):sqrt():add(-r):abs()
    img:cmax(t:le(rw):float():mul(160))
    -- a stray stroke: short, anywhere, at any angle
    local b = torch.uniform(0, math.pi)
    local cb, sb = math.cos(b), math.sin(b)
    local ox, oy = torch.uniform(-8, 8), torch.uniform(-8, 8)
    along:copy(x):add(-ox):mul(cb):add(sb, y):add(-sb * oy)
    across:copy(y):add(-oy):mul(cb):add(-sb, x):add(sb * ox)
    img:cmax(across:abs():le(0.9):float():cmul(along:abs():le(torch.uniform(2, 5)):float()):mul(200))
    img:mul(torch.uniform(0.5, 1)):add(noise:normal(0, 50)):add(0.5):clamp(0, 255)
    data[i][1]:copy(img:byte())
    if torch.uniform() < M.LABEL_NOISE then k = torch.random(1, 10) end
    labels[i] = k
  end
  return file.set(data, labels, 'dataset.mnist.synthetic')
end

function M.writeSynthetic(dir, n, opts)
  local who = 'dataset.mnist.writeSynthetic'
  if type(dir) ~= 'string' then error(string.format('%s: a directory (string) expected, got %s', who, torch.type(dir)), 2) end
  if math.type(n) ~= 'integer' or n < 1 then
    error(string.format('%s: a number of training samples (integer >= 1) expected, got %s', who, tostring(n)), 2)
  end
  opts = opts or {}
  local nTest = opts.nTest or math.max(10, n // 5)
  local sets = {train = M.synthetic(n), test = M.synthetic(nTest)}
  M.write(dir, sets.train, 'train', opts.gzip)
  M.write(dir, sets.test, 'test', opts.gzip)
  return sets
end

return M
