-- modload_driver.lua: what fuzz_modload runs on each input (fuzz_load.c
-- built with this driver), and what spec/fuzz_regression_spec.lua runs on
-- the saved inputs in fuzz/regressions/modload/.
-- A table, callable with the input bytes. Byte 1 picks one of the fixture
-- nets below (saved once, binary); the rest is a list of 4-byte flips:
-- a 3-byte position (big-endian, modulo the file's length) and a byte
-- XORed into the file there. The damaged file is loaded; a load error must
-- be torch.deserialize's own (load_driver.lua's rules). A net that loads
-- runs forward on its fixture input, then backward with a gradOutput of
-- the output's shape: any error there must come from a module's own
-- checks, never from Lua itself ("attempt to index a nil value", "attempt
-- to perform arithmetic", a freed tensor...): validation at load time
-- must have caught what forward and backward rely on.
require 'torch'
require 'nn'

local load = require 'fuzz.load_driver'

local function fixtures()
  torch.manualSeed(7)
  local list = {}
  local function add(net, input) list[#list + 1] = {net = net, input = input} end
  add(nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU()):add(nn.Linear(3, 2)):add(nn.LogSoftMax()),
      torch.randn(2, 4))
  add(nn.Sequential():add(nn.SpatialConvolution(1, 2, 3, 3)):add(nn.SpatialBatchNormalization(2))
        :add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2)):add(nn.View(-1)):add(nn.Linear(8, 2)),
      torch.randn(1, 6, 6))
  add(nn.Sequential():add(nn.ConcatTable():add(nn.Linear(3, 3)):add(nn.Identity()))
        :add(nn.CAddTable()):add(nn.Tanh()):add(nn.BatchNormalization(3)),
      torch.randn(4, 3))
  add(nn.Sequential():add(nn.LookupTable(10, 4)):add(nn.Sum(1)):add(nn.Mul()):add(nn.Add(4)),
      torch.LongTensor({1, 5, 9}))
  add(nn.Sequential():add(nn.Concat(2):add(nn.Linear(3, 2)):add(nn.Sigmoid())):add(nn.PReLU())
        :add(nn.Dropout(0.5)):add(nn.CMul(5)):add(nn.Reshape(5, 1)),
      torch.randn(2, 3))
  add(nn.Sequential():add(nn.TemporalConvolution(3, 4, 2)):add(nn.HardTanh()):add(nn.Transpose({1, 2}))
        :add(nn.SplitTable(1)):add(nn.JoinTable(1)),
      torch.randn(5, 3))
  add(nn.Sequential():add(nn.SpatialFullConvolution(2, 1, 2, 2)):add(nn.SpatialAveragePooling(2, 2))
        :add(nn.SpatialZeroPadding(1, 1, 1, 1)):add(nn.MulConstant(2)),
      torch.randn(2, 3, 3))
  add(nn.ParallelTable():add(nn.Linear(2, 2)):add(nn.Bilinear(2, 2, 1)),
      {torch.randn(3, 2), {torch.randn(3, 2), torch.randn(3, 2)}})
  -- fb.resnet.torch's shape: a first convolution without bias and without
  -- gradInput (its backward returns nil), a residual block
  local res = nn.Sequential():add(nn.SpatialConvolution(1, 2, 3, 3, 1, 1, 1, 1):noBias())
    :add(nn.SpatialBatchNormalization(2)):add(nn.ReLU(true))
    :add(nn.ConcatTable():add(nn.Sequential():add(nn.SpatialConvolution(2, 2, 3, 3, 1, 1, 1, 1))
                                 :add(nn.SpatialBatchNormalization(2)))
                         :add(nn.Identity()))
    :add(nn.CAddTable(true)):add(nn.ReLU(true)):add(nn.SpatialAveragePooling(4, 4)):add(nn.View(2)):add(nn.Linear(2, 2))
  res:get(1).gradInput = nil
  add(res, torch.randn(2, 1, 4, 4))
  -- an nngraph gModule inside a Sequential, saved after a forward
  require 'nngraph'
  local gi = nn.Identity()()
  local g = nn.gModule({gi}, {nn.Linear(3, 2)(nn.Tanh()(nn.Linear(3, 3)(gi)))})
  local gs = nn.Sequential():add(g):add(nn.LogSoftMax())
  gs:forward(torch.randn(2, 3))
  add(gs, torch.randn(2, 3))
  for _, f in ipairs(list) do
    f.bytes = torch.serialize(f.net)
    f.net = nil
  end
  return list
end

local nets = fixtures()

-- an error from Lua itself, or from a freed tensor: not a module's own check
local internal = {'attempt to ', 'stack overflow', 'tensor was freed', 'a nil value'}

local function clean(where, err)
  local msg = tostring(err)
  for _, pat in ipairs(internal) do
    if msg:find(pat, 1, true) then error(where .. ': unclear error: ' .. msg, 0) end
  end
end

local function gradLike(out)
  if torch.isTensor(out) then return out:clone():fill(0.5) end
  if type(out) == 'table' then
    local g = {}
    for k, v in pairs(out) do g[k] = gradLike(v) end
    return g
  end
  return out
end

local function run(_, bytes)
  local f = nets[(bytes:byte(1) or 0) % #nets + 1]
  local file = f.bytes
  local parts, n = {}, #file
  local flipped = {}
  for i = 2, #bytes - 3, 4 do
    local a, b, c, v = bytes:byte(i, i + 3)
    local pos = (a * 65536 + b * 256 + c) % n + 1
    flipped[pos] = (flipped[pos] or 0) ~ v
  end
  local last = 1
  local keys = {}
  for pos in pairs(flipped) do keys[#keys + 1] = pos end
  table.sort(keys)
  for _, pos in ipairs(keys) do
    parts[#parts + 1] = file:sub(last, pos - 1)
    parts[#parts + 1] = string.char(file:byte(pos) ~ flipped[pos])
    last = pos + 1
  end
  parts[#parts + 1] = file:sub(last)
  local damaged = table.concat(parts)
  -- load: load_driver's checks (binary mode: a leading '\0')
  if not load('\0' .. damaged) then return false end
  local net = torch.deserialize(damaged)
  if not torch.isTypeOf(net, 'nn.Module') then return false end
  local ok, out = pcall(net.forward, net, f.input)
  if not ok then
    clean('forward', out)
    return false
  end
  local ok2, err = pcall(net.backward, net, f.input, gradLike(out))
  if not ok2 then
    clean('backward', err)
    return false
  end
  return true
end

return setmetatable({nfixtures = #nets, fixtures = nets}, {__call = run})
