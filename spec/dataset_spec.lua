-- dataset: the MNIST idx and CIFAR-10 binary formats written and read back
-- byte for byte, clear errors for missing and malformed files, synthetic
-- sets a simple classifier can learn, and dataset.Loader's epochs (every
-- sample once, reproducible shuffles, batchSize, dropLast, type, transform,
-- the reused prefetch buffers).
require 'torch'
local dataset = require 'dataset'
local H = require 'spec.support.helpers'

local function sh(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function slurp(p)
  local f = assert(io.open(p, 'rb'))
  local s = f:read('a')
  f:close()
  return s
end
local function spit(p, s)
  local f = assert(io.open(p, 'wb'))
  f:write(s)
  f:close()
end
local function exists(p)
  local f = io.open(p, 'rb')
  if f then f:close() end
  return f ~= nil
end

local tmp
before_each(function()
  tmp = os.tmpname()
  os.remove(tmp)
  os.execute('mkdir -p ' .. sh(tmp))
end)
after_each(function() os.execute('rm -rf ' .. sh(tmp)) end)

-- nearest class mean on the raw pixels: the fraction of 'test' it gets right
local function nearestMean(train, test)
  local d = train.data:double():view(train:size(), -1)
  local means = torch.DoubleTensor(10, d:size(2)):zero()
  local counts = torch.DoubleTensor(10):zero()
  for i = 1, train:size() do
    means[train.labels[i]]:add(d[i])
    counts[train.labels[i]] = counts[train.labels[i]] + 1
  end
  for k = 1, 10 do means[k]:div(math.max(counts[k], 1)) end
  local t = test.data:double():view(test:size(), -1)
  local hits = 0
  for i = 1, test:size() do
    local best, bestk = math.huge, 0
    for k = 1, 10 do
      local dist = (t[i] - means[k]):pow(2):sum()
      if dist < best then best, bestk = dist, k end
    end
    if bestk == test.labels[i] then hits = hits + 1 end
  end
  return hits / test:size()
end

describe('dataset.mnist', function()
  it('writes idx files byte-exact and reads them back', function()
    torch.manualSeed(1)
    local sets = dataset.mnist.writeSynthetic(tmp, 50, {nTest = 12})
    local s = slurp(tmp .. '/train-images-idx3-ubyte')
    assert.are.equal(16 + 50 * 784, #s)
    assert.are.same({0x803, 50, 28, 28, 17}, {string.unpack('>I4I4I4I4', s)})
    assert.are.equal(sets.train.data[1][1][1][1], s:byte(17))
    assert.are.equal(sets.train.data[2][1][3][5], s:byte(17 + 784 + 2 * 28 + 4))
    local l = slurp(tmp .. '/train-labels-idx1-ubyte')
    assert.are.equal(8 + 50, #l)
    assert.are.same({0x801, 50, 9}, {string.unpack('>I4I4', l)})
    assert.are.equal(sets.train.labels[7] - 1, l:byte(8 + 7))
    assert.are.equal(16 + 12 * 784, #slurp(tmp .. '/t10k-images-idx3-ubyte'))

    local train = dataset.mnist.load(tmp, 'train')
    assert.are.equal('torch.ByteTensor', train.data:type())
    assert.are.equal('torch.LongTensor', train.labels:type())
    assert.are.same({50, 1, 28, 28}, train.data:size():totable())
    assert.are.equal(50, train:size())
    assert.is_true(train.data:equal(sets.train.data))
    assert.is_true(train.labels:equal(sets.train.labels))
    assert.is_true(train.labels:min() >= 1 and train.labels:max() <= 10)
    local test = dataset.mnist.load(tmp, 'test')
    assert.is_true(test.data:equal(sets.test.data))
    -- set[i] as nn.StochasticGradient reads it
    assert.is_true(train[3][1]:equal(train.data[3]))
    assert.are.equal(train.labels[3], train[3][2])
    -- the same bytes give the same file
    dataset.mnist.write(tmp .. '/again', train, 'train')
    assert.are.equal(s, slurp(tmp .. '/again/train-images-idx3-ubyte'))
  end)

  it('reads gzipped files through gzip -dc, a prefix of n, floats', function()
    torch.manualSeed(2)
    local sets = dataset.mnist.writeSynthetic(tmp, 30, {gzip = true})
    assert.is_true(exists(tmp .. '/train-images-idx3-ubyte.gz'))
    assert.is_false(exists(tmp .. '/train-images-idx3-ubyte'))
    local train = dataset.mnist.load(tmp, 'train')
    assert.is_true(train.data:equal(sets.train.data))
    local part = dataset.mnist.load(tmp, 'train', {n = 7, type = 'float'})
    assert.are.equal('torch.FloatTensor', part.data:type())
    assert.are.same({7, 1, 28, 28}, part.data:size():totable())
    assert.is_true(part.data:equal(sets.train.data:narrow(1, 1, 7):float()))
    assert.is_true(part.labels:equal(sets.train.labels:narrow(1, 1, 7)))
    local byFiles = dataset.mnist.loadFiles(tmp .. '/t10k-images-idx3-ubyte.gz', tmp .. '/t10k-labels-idx1-ubyte.gz')
    assert.is_true(byFiles.labels:equal(sets.test.labels))
  end)

  it('gives clear errors for missing and malformed files', function()
    H.fails({'dataset.mnist.load: file not found: train-images-idx3-ubyte', tmp .. '/train-images-idx3-ubyte.gz'},
            dataset.mnist.load, tmp, 'train')
    torch.manualSeed(3)
    dataset.mnist.writeSynthetic(tmp, 20)
    local img, lab = tmp .. '/train-images-idx3-ubyte', tmp .. '/train-labels-idx1-ubyte'
    local s, l = slurp(img), slurp(lab)
    -- a labels file where the images should be
    spit(img, l)
    H.fails({'dataset.mnist.load: ' .. img .. ': not an idx image file (magic number 0x00000803 expected, got 0x00000801)'},
            dataset.mnist.load, tmp)
    spit(img, s:sub(1, 100))
    H.fails({img .. ': truncated (20x28x28: 15680 bytes of data expected, got 84)'}, dataset.mnist.load, tmp)
    -- sizes whose product wraps to 0 in 64-bit integers (issue 36: failed in view with 'size overflows')
    spit(img, string.pack('>I4I4I4I4', 0x803, 4, 2 ^ 31, 2 ^ 31) .. 'abcd')
    assert.are.equal('dataset.mnist.load: ' .. img .. ': truncated (4x2147483648x2147483648: 18446744073709551616 '
                     .. 'bytes of data expected, got 4)', H.errmsg(dataset.mnist.load, tmp))
    spit(img, string.pack('>I4I4I4I4', 0x803, 0, 2 ^ 20, 2 ^ 20))
    spit(lab, string.pack('>I4I4', 0x801, 0))
    assert.are.equal(0, dataset.mnist.load(tmp):size())   -- no images: empty
    -- no images, but each too large for a tensor's strides (fuzz_dataset)
    spit(img, string.pack('>I4I4I4I4', 0x803, 0, 2 ^ 32 - 1, 2 ^ 31))
    assert.are.equal('dataset.mnist.load: ' .. img .. ': samples of 4294967295x2147483648 elements are too large '
                     .. '(sizes 0x4294967295x2147483648)', H.errmsg(dataset.mnist.load, tmp))
    spit(lab, l)
    spit(img, s:sub(1, 10))
    H.fails({img .. ': truncated idx header (16 bytes expected, got 10)'}, dataset.mnist.load, tmp)
    spit(img, 'ab')
    H.fails({'not an idx image file (2 bytes, too short for a header)'}, dataset.mnist.load, tmp)
    spit(img, s)
    spit(lab, l:sub(1, 8) .. string.rep('\12', 20))
    H.fails({lab .. ': label 12 at sample 1 (digits 0..9 expected)'}, dataset.mnist.load, tmp)
    spit(lab, string.pack('>I4I4', 0x801, 19) .. l:sub(9, 27))
    H.fails({'dataset.mnist.load: ' .. img .. ' has 20 images but ' .. lab .. ' has 19 labels'}, dataset.mnist.load, tmp)
    spit(lab .. '.gz', 'not gzip')
    os.remove(lab)
    H.fails({'dataset.mnist.load: cannot decompress ' .. lab .. '.gz with gzip -dc (exit 1): ', 'not in gzip format'},
            dataset.mnist.load, tmp)
    H.fails({'dataset.mnist.loadFiles: cannot open ' .. tmp .. '/none.gz: No such file or directory'},
            dataset.mnist.loadFiles, tmp .. '/none.gz', lab .. '.gz')
    H.fails({"dataset.mnist.load: split 'train' or 'test' expected, got valid"}, dataset.mnist.load, tmp, 'valid')
    H.fails({"dataset.mnist.load: opts.type must be 'byte' or 'float', got double"}, dataset.mnist.load, tmp, 'test',
            {type = 'double'})
    H.fails({'dataset.mnist.load: a directory (string) expected, got nil'}, dataset.mnist.load)
    H.fails({'dataset.mnist.writeSynthetic: a number of training samples (integer >= 1) expected, got 0'},
            dataset.mnist.writeSynthetic, tmp, 0)
  end)

  it('makes a learnable stand-in, not a trivial one (nearest class mean well above chance, well below 100%)',
     function()
    torch.manualSeed(4)
    local train, test = dataset.mnist.synthetic(300), dataset.mnist.synthetic(100)
    for k = 1, 10 do assert.is_true(train.labels:eq(k):sum() > 0) end
    local acc = nearestMean(train, test)
    assert.is_true(acc > 0.5 and acc < 0.9, tostring(acc))
    assert.is_true(dataset.mnist.LABEL_NOISE > 0 and dataset.mnist.LABEL_NOISE < 0.1)
  end)

  it('draws the stand-in from torch\'s generator: the same seed, the same set', function()
    torch.manualSeed(11)
    local a = dataset.mnist.synthetic(40)
    torch.manualSeed(11)
    local b = dataset.mnist.synthetic(40)
    assert.is_true(a.data:equal(b.data) and a.labels:equal(b.labels))
    torch.manualSeed(12)
    assert.is_false(dataset.mnist.synthetic(40).data:equal(a.data))
  end)
end)

describe('dataset.cifar', function()
  it('writes 3073-byte records byte-exact over five batch files and reads them back', function()
    torch.manualSeed(5)
    local sets = dataset.cifar.writeSynthetic(tmp, 23, {nTest = 10})
    local sizes = {}
    for i = 1, 5 do sizes[i] = #slurp(tmp .. '/data_batch_' .. i .. '.bin') // 3073 end
    assert.are.same({5, 5, 5, 4, 4}, sizes)
    local s = slurp(tmp .. '/data_batch_2.bin')
    assert.are.equal(5 * 3073, #s)
    local d, lab = sets.train.data, sets.train.labels
    -- record 2 of file 2 is sample 7: its label byte, red (1,1), green (1,1), blue (32,32)
    assert.are.equal(lab[7] - 1, s:byte(3073 + 1))
    assert.are.equal(d[7][1][1][1], s:byte(3073 + 2))
    assert.are.equal(d[7][2][1][1], s:byte(3073 + 2 + 1024))
    assert.are.equal(d[7][3][32][32], s:byte(2 * 3073))
    assert.are.equal(10 * 3073, #slurp(tmp .. '/test_batch.bin'))

    local train = dataset.cifar.load(tmp, 'train')
    assert.are.same({23, 3, 32, 32}, train.data:size():totable())
    assert.is_true(train.data:equal(d))
    assert.is_true(train.labels:equal(lab))
    local test = dataset.cifar.load(tmp, 'test', {type = 'float'})
    assert.are.equal('torch.FloatTensor', test.data:type())
    assert.is_true(test.data:equal(sets.test.data:float()))
    local part = dataset.cifar.load(tmp, 'train', {n = 8})
    assert.is_true(part.data:equal(d:narrow(1, 1, 8)))
    assert.are.equal(10, #dataset.cifar.CLASSES)
  end)

  it('finds the files in cifar-10-batches-bin, as the archive unpacks', function()
    torch.manualSeed(6)
    local sets = dataset.cifar.writeSynthetic(tmp .. '/cifar-10-batches-bin', 10)
    local test = dataset.cifar.load(tmp, 'test')
    assert.is_true(test.labels:equal(sets.test.labels))
    local one = dataset.cifar.loadFiles(tmp .. '/cifar-10-batches-bin/test_batch.bin')
    assert.is_true(one.data:equal(sets.test.data))
  end)

  it('gives clear errors for missing and malformed files', function()
    H.fails({'dataset.cifar.load: file not found: data_batch_1.bin', tmp .. '/data_batch_1.bin'},
            dataset.cifar.load, tmp, 'train')
    torch.manualSeed(7)
    dataset.cifar.writeSynthetic(tmp, 10)
    local p = tmp .. '/test_batch.bin'
    local s = slurp(p)
    spit(p, s:sub(1, 3073 * 2 + 100))
    H.fails({'dataset.cifar.load: ' .. p .. ': 6246 bytes is not a whole number of 3073-byte CIFAR-10 records'},
            dataset.cifar.load, tmp, 'test')
    spit(p, '')
    H.fails({p .. ': 0 bytes is not a whole number'}, dataset.cifar.load, tmp, 'test')
    spit(p, s:sub(1, 3073) .. '\200' .. s:sub(3075))
    H.fails({p .. ': label byte 200 in record 2 (classes 0..9 expected)'}, dataset.cifar.load, tmp, 'test')
    os.remove(tmp .. '/data_batch_4.bin')
    H.fails({'file not found: data_batch_4.bin'}, dataset.cifar.load, tmp, 'train')
    H.fails({'dataset.cifar.write: a set {data = N x 3 x 32 x 32, labels = N} expected, got 4x1x28x28 data'},
            dataset.cifar.write, tmp, dataset.mnist.synthetic(4), 'train')
  end)

  it('makes a learnable stand-in, not a trivial one (nearest class mean well above chance, below 100%)', function()
    torch.manualSeed(8)
    local acc = nearestMean(dataset.cifar.synthetic(200), dataset.cifar.synthetic(100))
    assert.is_true(acc > 0.5 and acc < 0.95, tostring(acc))
    assert.is_true(dataset.cifar.LABEL_NOISE > 0 and dataset.cifar.LABEL_NOISE < 0.1)
    torch.manualSeed(9)
    local a = dataset.cifar.synthetic(20)
    torch.manualSeed(9)
    assert.is_true(dataset.cifar.synthetic(20).data:equal(a.data))
  end)
end)

describe('dataset.Loader', function()
  -- sample i holds the value i, its label is 100 + i
  local function numbered(n)
    return dataset.set(torch.range(1, n):view(n, 1), torch.range(101, 100 + n):long())
  end
  local function epoch(loader)
    local seen, sizes = {}, {}
    for x, y in loader:run() do
      sizes[#sizes + 1] = x:size(1)
      for i = 1, x:size(1) do
        assert.are.equal(100 + x[i][1], y[i])
        seen[#seen + 1] = math.tointeger(x[i][1])
      end
    end
    return seen, sizes
  end

  it('gives every sample once per epoch, in order without shuffle', function()
    local L = dataset.Loader(numbered(10), {batchSize = 4})
    assert.are.equal('dataset.Loader', torch.type(L))
    assert.are.equal('dataset.Loader: 10 samples, 3 batches of 4', tostring(L))
    assert.are.equal(3, L:size())
    local seen, sizes = epoch(L)
    assert.are.same({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, seen)
    assert.are.same({4, 4, 2}, sizes)
    assert.are.same(seen, (epoch(L)))
  end)

  it('drops the short last batch with dropLast', function()
    local L = dataset.Loader(numbered(10), {batchSize = 4, dropLast = true})
    assert.are.equal(2, L:size())
    local seen, sizes = epoch(L)
    assert.are.same({4, 4}, sizes)
    assert.are.same({1, 2, 3, 4, 5, 6, 7, 8}, seen)
    assert.are.equal(10, dataset.Loader(numbered(10), {}):size())
    assert.are.equal(1, dataset.Loader(numbered(10), {batchSize = 10, dropLast = true}):size())
  end)

  it('reshuffles every epoch from torch generator, reproducibly', function()
    local L = dataset.Loader(numbered(50), {batchSize = 8, shuffle = true})
    torch.manualSeed(9)
    local e1, sizes = epoch(L)
    local e2 = epoch(L)
    assert.are.same({8, 8, 8, 8, 8, 8, 2}, sizes)
    assert.are_not.same(e1, e2)
    for _, e in ipairs{e1, e2} do
      local sorted = {table.unpack(e)}
      table.sort(sorted)
      for i = 1, 50 do assert.are.equal(i, sorted[i]) end
    end
    local inOrder = true
    for i = 1, 50 do inOrder = inOrder and e1[i] == i end
    assert.is_false(inOrder)
    torch.manualSeed(9)
    local L2 = dataset.Loader(numbered(50), {batchSize = 8, shuffle = true})
    assert.are.same(e1, (epoch(L2)))
    assert.are.same(e2, (epoch(L2)))
  end)

  it('applies the transform to every batch, in place or by its results', function()
    local calls = 0
    local L = dataset.Loader(numbered(6), {batchSize = 4, transform = function(x, y)
      calls = calls + 1
      x:mul(10)
    end})
    local got = {}
    for x in L:run() do for i = 1, x:size(1) do got[#got + 1] = x[i][1] end end
    assert.are.same({10, 20, 30, 40, 50, 60}, got)
    assert.are.equal(2, calls)
    local L2 = dataset.Loader(numbered(6), {batchSize = 3, transform = function(x, y)
      return x:view(x:size(1)), y - 100
    end})
    for x, y in L2:run() do
      assert.are.equal(1, x:dim())
      assert.is_true(x:long():equal(y))
    end
  end)

  it('converts inputs to the type asked, labels kept', function()
    local set = dataset.mnist.synthetic(5)
    local L = dataset.Loader(set, {batchSize = 2, type = 'torch.FloatTensor'})
    local x, y = L:run()()
    assert.are.equal('torch.FloatTensor', x:type())
    assert.are.equal('torch.LongTensor', y:type())
    assert.is_true(x:equal(set.data:narrow(1, 1, 2):float()))
  end)

  it('prefetches into two buffer sets used in turn', function()
    local L = dataset.Loader(numbered(20), {batchSize = 5})
    local it = L:run()
    -- batch 2 is ready before batch 1 is returned: both exist at once
    local x1 = it()
    assert.are.equal(1, x1[1][1])
    local x2 = it()
    assert.are_not.equal(x1, x2)
    assert.are.equal(6, x2[1][1])
    assert.are.equal(11, x1[1][1])      -- batch 1's buffers now hold batch 3
    local x3 = it()
    assert.are.equal(x1, x3)            -- the same tensor, reused
    assert.are.equal(11, x3[1][1])
    assert.are.equal(16, x2[1][1])
    assert.are.equal(x2, it())
    assert.is_nil(it())
  end)

  it('refuses bad arguments with messages that name them', function()
    local set = numbered(4)
    H.fails({'dataset.Loader: a set {data = tensor, labels = tensor} expected, got number'}, dataset.Loader, 3)
    H.fails({'dataset.Loader: batchSize must be a positive integer, got 0'}, dataset.Loader, set, {batchSize = 0})
    H.fails({'dataset.Loader: transform must be a function(inputs, targets), got string'}, dataset.Loader, set,
            {transform = 'x'})
    H.fails({"dataset.Loader: type must be a tensor type name such as 'torch.FloatTensor', got float"},
            dataset.Loader, set, {type = 'float'})
    H.fails({'dataset.Loader: dropLast with batchSize 5 leaves no batch of 4 samples'}, dataset.Loader, set,
            {batchSize = 5, dropLast = true})
    H.fails({'dataset.Loader: data and labels must have the same number of samples (>= 1), got 4x1 and 3'},
            dataset.Loader, {data = set.data, labels = torch.LongTensor(3)})
  end)
end)
