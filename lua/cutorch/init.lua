-- cutorch on the CPU: this engine has no GPU (docs/cuda.md). Scripts written
-- for Torch7's cutorch run unchanged: the CUDA tensor types are other names
-- of the CPU types of the same element type (torch.CudaTensor is
-- torch.FloatTensor, torch.CudaDoubleTensor torch.DoubleTensor, ...), the
-- one "device" is the CPU, and the device calls do what they mean there:
-- synchronize returns (every kernel has finished when it returns), seeds seed
-- the one generator, memory figures are the machine's.
-- The stand-in is asked for (TH_CUDA_STANDIN=1, or torch.cudaStandIn = true
-- before the require): by default require 'cutorch' fails with a message
-- that says why, so that a script or test suite probing for a GPU with
-- pcall(require, 'cunn') takes its CPU path (torch/nn's own OneHot test
-- asserts torch.type(x) == 'torch.CudaTensor' once cunn loads).
require 'torch'

if os.getenv('TH_CUDA_STANDIN') ~= '1' and rawget(torch, 'cudaStandIn') ~= true then
  error("cutorch: this engine is CPU-only and has no GPU; to run a script written for CUDA on the CPU, "
        .. "set TH_CUDA_STANDIN=1 (cutorch, cunn and cudnn then stand in with CPU types: docs/cuda.md)", 0)
end

local cutorch = {}
local device = 1

-- CUDA type name -> CPU element type; torch.CudaHalfTensor has no CPU half
-- type here: it is a float tensor (twice the bytes, the same values or better)
local aliases = {Cuda = 'Float', CudaDouble = 'Double', CudaHalf = 'Float', CudaLong = 'Long',
                 CudaInt = 'Int', CudaShort = 'Short', CudaChar = 'Char', CudaByte = 'Byte'}
torch._typeAliases = torch._typeAliases or {}   -- read by nn's type conversions
cutorch.typeAliases = torch._typeAliases
torch._loadAliases = torch._loadAliases or {}  -- read by torch.load

for cuda, cpu in pairs(aliases) do
  local tname, sname = 'torch.' .. cuda .. 'Tensor', 'torch.' .. cuda .. 'Storage'
  torch[cuda .. 'Tensor'] = torch[cpu .. 'Tensor']
  torch[cuda .. 'Storage'] = torch[cpu .. 'Storage']
  torch._tensortypes[tname] = cpu
  cutorch.typeAliases[tname] = 'torch.' .. cpu .. 'Tensor'
  cutorch.typeAliases[sname] = 'torch.' .. cpu .. 'Storage'
  -- files: a CUDA tensor's payload is its CPU type's, but for halves (2 bytes)
  if cuda ~= 'CudaHalf' then
    torch._loadAliases[tname] = 'torch.' .. cpu .. 'Tensor'
    torch._loadAliases[sname] = 'torch.' .. cpu .. 'Storage'
  end
end

-- cutorch's index functions took a CudaTensor of indices as well as a
-- CudaLongTensor (dpnn's NCEModule indexes its CUDA weights with one, rnn's
-- modules gather with one): as torch.CudaTensor is the float type here, the
-- float type's index methods take a float tensor of indices, the tensor that
-- follows the dimension (index, indexCopy, indexAdd, indexFill, gather, scatter)
do
  local fmt = torch._metatables['torch.FloatTensor']
  for _, m in ipairs{'index', 'indexCopy', 'indexAdd', 'indexFill', 'gather', 'scatter'} do
    local long = fmt[m]
    fmt[m] = function(self, ...)
      local args = table.pack(...)
      for i = 1, args.n - 1 do
        if type(args[i]) == 'number' then
          if torch.type(args[i + 1]) == 'torch.FloatTensor' then args[i + 1] = args[i + 1]:long() end
          break
        end
      end
      return long(self, table.unpack(args, 1, args.n))
    end
  end
end

-- torch.getmetatable('torch.CudaTensor') and the Lua registry (luaT's
-- name -> metatable map) give the metatable of the CPU type the name
-- stands for: torch-autograd, which requires cudnn when it can, patches
-- torch.getmetatable('torch.' .. name) for every tensor type it sees
do
  local getmt = torch.getmetatable
  function torch.getmetatable(name)
    local mt = getmt(name)
    if mt == nil and type(name) == 'string' and cutorch.typeAliases[name] then
      return getmt(cutorch.typeAliases[name])
    end
    return mt
  end
  local REG = debug.getregistry()
  for alias, cpu in pairs(cutorch.typeAliases) do
    if REG[alias] == nil then REG[alias] = getmt(cpu) end
  end
end

-- x:cuda(), x:cudaDouble(), ... on tensors and storages: the CPU type; the
-- one device is 1
local methods = {cuda = 'Float', cudaDouble = 'Double', cudaHalf = 'Float', cudaLong = 'Long',
                 cudaInt = 'Int', cudaShort = 'Short', cudaChar = 'Char', cudaByte = 'Byte'}
for _, name in ipairs(torch._typenames) do
  local tmt = torch._metatables['torch.' .. name .. 'Tensor']
  local smt = torch._metatables['torch.' .. name .. 'Storage']
  for m, cpu in pairs(methods) do
    tmt[m] = function(self) return self:type('torch.' .. cpu .. 'Tensor') end
    smt[m] = function(self)
      if name == cpu then return self end
      local t = torch[name .. 'Tensor'](self)
      return t:type('torch.' .. cpu .. 'Tensor'):storage()
    end
  end
  tmt.getDevice = function() return device end
  smt.getDevice = function() return device end
end

local function checkDevice(fname, d)
  if math.type(d) ~= 'integer' then
    error(string.format('cutorch.%s: device number expected, got %s', fname, torch.typename(d) or type(d)), 3)
  end
  if d ~= 1 then
    error(string.format('cutorch.%s: device %d out of range: this engine has one device, the CPU (docs/cuda.md)',
                        fname, d), 3)
  end
end

function cutorch.getDeviceCount() return 1 end
function cutorch.getDevice() return device end
function cutorch.setDevice(d) checkDevice('setDevice', d) end
function cutorch.withDevice(d, f)
  checkDevice('withDevice', d)
  if type(f) ~= 'function' then
    error(string.format('cutorch.withDevice: function expected as argument 2, got %s', type(f)), 2)
  end
  return f()
end
-- every kernel has finished when its call returns
function cutorch.synchronize() end
function cutorch.synchronizeAll() end
function cutorch.deviceReset() end

-- one generator: the CPU's
function cutorch.manualSeed(s) torch.manualSeed(s) end
function cutorch.manualSeedAll(s) torch.manualSeed(s) end
function cutorch.seed() return torch.seed() end
function cutorch.seedAll() return torch.seed() end
function cutorch.initialSeed() return torch.initialSeed() end
function cutorch.getRNGState() return torch.getRNGState() end
function cutorch.setRNGState(s) torch.setRNGState(s) end

-- the machine's memory, in bytes: free (MemAvailable), total (MemTotal)
local function meminfo()
  local f = io.open('/proc/meminfo', 'r')
  if not f then return 0, 0 end
  local text = f:read('a')
  f:close()
  local total = tonumber(text:match('MemTotal:%s*(%d+)')) or 0
  local avail = tonumber(text:match('MemAvailable:%s*(%d+)')) or 0
  return avail * 1024, total * 1024
end

function cutorch.getMemoryUsage(d)
  if d ~= nil then checkDevice('getMemoryUsage', d) end
  return meminfo()
end

function cutorch.getDeviceProperties(d)
  if d ~= nil then checkDevice('getDeviceProperties', d) end
  local free, total = meminfo()
  return {name = 'CPU (cutorch stand-in: no GPU, docs/cuda.md)', totalGlobalMem = total,
          freeGlobalMem = free, major = 0, minor = 0, multiProcessorCount = torch.getnumthreads(),
          warpSize = 1, maxThreadsPerBlock = 1, canMapHostMemory = 1}
end

-- pinned host tensors are CPU tensors
function cutorch.createCudaHostTensor(...) return torch.FloatTensor(...) end
function cutorch.createCudaHostDoubleTensor(...) return torch.DoubleTensor(...) end
function cutorch.createCudaHostHalfTensor(...) return torch.FloatTensor(...) end

-- streams and peer access: one device, one stream
function cutorch.reserveStreams() end
function cutorch.reserveBlasHandles() end
function cutorch.getStream() return 0 end
function cutorch.setStream(s) end
function cutorch.getNumStreams() return 0 end
function cutorch.streamSynchronize() end
function cutorch.setKernelPeerToPeerAccess() end
function cutorch.getKernelPeerToPeerAccess() return false end
function cutorch.setPeerToPeerAccess() end
function cutorch.getPeerToPeerAccess() return false end

-- what a script can test to know it runs on the stand-in
cutorch.standIn = true
cutorch.hasHalf = false

_G.cutorch = cutorch
return cutorch
