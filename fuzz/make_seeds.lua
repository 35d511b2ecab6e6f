-- make_seeds.lua DIR [KIND]: writes a starting corpus into DIR.
-- KIND 'load' (default, for fuzz_load): every kind of object torch.save
-- writes, in both modes (the first byte of each input is the mode: 0
-- binary, 1 ascii, as load_driver.lua reads it). 'ascii' (fuzz_ascii): the
-- ascii files alone. 'modload' (fuzz_modload): short flip programs over
-- each of modload_driver.lua's fixture nets; 'ckpt' (fuzz_ckpt): the same
-- over ckpt_driver.lua's fixture checkpoints. 'dataset' (fuzz_dataset):
-- MNIST and CIFAR-10 files in dataset_driver.lua's input format.
require 'torch'
require 'nn'
local dir = assert(arg[1], 'usage: make_seeds.lua DIR [load|ascii|modload|ckpt|dataset]')
local kind = arg[2] or 'load'
if kind == 'modload' or kind == 'ckpt' then
  local nets = require('fuzz.' .. kind .. '_driver').nfixtures
  for i = 0, nets - 1 do
    -- the net alone, then the net with one and with three bytes flipped
    for k, prog in ipairs({string.char(i), string.char(i, 0, 1, 7, 3), string.char(i, 0, 0, 40, 1, 0, 2, 9, 0, 0, 0, 60, 255)}) do
      local f = assert(io.open(string.format('%s/seed-net%d-%d', dir, i, k), 'wb'))
      f:write(prog)
      f:close()
    end
  end
  print(string.format('make_seeds: %d seeds in %s', 3 * nets, dir))
  return
end
if kind == 'dataset' then
  -- dataset_driver.lua's inputs: small MNIST idx pairs and CIFAR-10
  -- batches (one 3073-byte record fits libFuzzer's 4096-byte inputs)
  local function idx(sizes, body)
    local parts = {string.pack('>I4', 0x800 + #sizes)}
    for i, n in ipairs(sizes) do parts[i + 1] = string.pack('>I4', n) end
    return table.concat(parts) .. body
  end
  local function bytes(n, f)
    local t = {}
    for i = 1, n do t[i] = string.char(f(i) % 256) end
    return table.concat(t)
  end
  local function input(b1, b2, a, b)
    return string.char(b1, b2) .. string.pack('>I2', #a) .. a .. b
  end
  local seeds = {}
  for _, s in ipairs({{3, 5, 5}, {1, 28, 28}, {4, 2, 3}, {0, 7, 7}}) do
    local n, h, w = s[1], s[2], s[3]
    local images = idx({n, h, w}, bytes(n * h * w, function(i) return i * 37 end))
    local labels = idx({n}, bytes(n, function(i) return i % 10 end))
    seeds[#seeds + 1] = input(0, 3, images, labels)
    seeds[#seeds + 1] = input(6, 9, images, labels)        -- type = 'float', shuffled
  end
  local record = function(label) return string.char(label) .. bytes(3072, function(i) return i * 13 + label end) end
  seeds[#seeds + 1] = string.char(1, 0, 0, 0) .. record(3)
  seeds[#seeds + 1] = string.char(3, 12, 0, 0) .. record(9)
  seeds[#seeds + 1] = input(5, 1, record(1):sub(1, 500), record(2):sub(1, 500))   -- two cut records
  for i, s in ipairs(seeds) do
    local f = assert(io.open(string.format('%s/seed-dataset-%d', dir, i), 'wb'))
    f:write(s)
    f:close()
  end
  print(string.format('make_seeds: %d seeds in %s', #seeds, dir))
  return
end
torch.manualSeed(1)
local x = torch.FloatTensor(2, 3):uniform()
local shared = torch.DoubleTensor(4):fill(2)
local objects = {
  n = 42, f = 1.5, s = 'hello', b = true,
  tbl = {1, 2, {a = 'x'}},
  float = x, double = torch.DoubleTensor(3):zero(), long = torch.LongTensor({1, 2, 3}),
  byte = torch.ByteTensor(2, 2):fill(1), empty = torch.FloatTensor(),
  view = x:t(), narrow = x:narrow(2, 2, 2), storage = torch.FloatStorage(3):fill(1),
  sharedpair = {shared, shared:narrow(1, 2, 2)},
  linear = nn.Linear(3, 2),
  seq = nn.Sequential():add(nn.Linear(2, 2)):add(nn.ReLU()):add(nn.SoftMax()),
  conv = nn.SpatialConvolution(1, 2, 3, 3),
  bn = nn.BatchNormalization(3),
}
local k = 0
for name, obj in pairs(objects) do
  for mode, tag in pairs({binary = '\0', ascii = '\1'}) do
    if kind == 'ascii' then
      if mode == 'binary' then goto next end
      tag = ''
    end
    local f = assert(io.open(string.format('%s/seed-%s-%s', dir, name, mode), 'wb'))
    f:write(tag, torch.serialize(obj, mode))
    f:close()
    k = k + 1
    ::next::
  end
end
print(string.format('make_seeds: %d seeds in %s', k, dir))
