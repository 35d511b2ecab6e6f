-- torch.cpuInfo (src/tensor/th_cpuinfo.c) against what Linux shows of the
-- same CPU (/proc/cpuinfo, sysfs), its overrides (TH_CPU_CACHES,
-- TH_CPU_FMA_UNITS), and torch.gemmInfo: the sgemm blocking the model
-- derives from a CPU's caches, as exact values for five machines, the one
-- in use here and under TH_GEMM_* overrides, and products computed right
-- under an emulated small-cache machine.
require 'torch'

local helpers = require 'spec.support.helpers'
local K, M = 1024, 1024 * 1024

-- bin/th of the build the specs run against, with 'env' before it; its
-- stdout and stderr
local function th(env, src)
  local core = package.searchpath('torch.core', package.cpath)
  local build = core and core:match('^(.*)/torch/core%.so$') or 'build'
  local p = io.popen(string.format("%s TH_BUILD='%s' bin/th -e \"%s\" 2>&1", env, build, src))
  local out = p:read('a')
  p:close()
  return out
end

local function readfile(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read('a')
  f:close()
  return s
end

-- /proc/cpuinfo's first processor as a table of its fields
local function proc()
  local s = readfile('/proc/cpuinfo')
  if not s then return nil end
  local t = {}
  for line in (s:match('^(.-)\n\n') or s):gmatch('[^\n]+') do
    local k, v = line:match('^(.-)%s*:%s*(.*)$')
    if k then t[k] = v end
  end
  return t
end

-- sysfs's data and unified caches of cpu0: {[level] = {bytes, shared CPUs}}
local function sysfs()
  local caches = {}
  for i = 0, 15 do
    local d = '/sys/devices/system/cpu/cpu0/cache/index' .. i .. '/'
    local level = readfile(d .. 'level')
    if not level then break end
    if not readfile(d .. 'type'):find('Instruction') then
      local n, unit = readfile(d .. 'size'):match('(%d+)(%a?)')
      local shared = 0
      for a, b in readfile(d .. 'shared_cpu_list'):gmatch('(%d+)%-?(%d*)') do
        shared = shared + (b ~= '' and tonumber(b) - tonumber(a) + 1 or 1)
      end
      caches[tonumber(level)] = {tonumber(n) * (unit == 'M' and M or unit == 'K' and K or 1), shared}
    end
  end
  return next(caches) and caches or nil
end

describe('torch.cpuInfo', function()
  local ci = torch.cpuInfo()

  it('names the CPU as /proc/cpuinfo does', function()
    local p = proc()
    if not p or not p.vendor_id then return pending('no x86 /proc/cpuinfo') end
    assert.equal(p.vendor_id, ci.vendor)
    assert.equal(p['model name'], ci.model)
    assert.equal(tonumber(p['cpu family']), ci.family)
    assert.equal(tonumber(p.model), ci.modelNumber)
    assert.equal(tonumber(p.stepping), ci.stepping)
  end)

  it('reports the ISA flags /proc/cpuinfo lists', function()
    local p = proc()
    if not p or not p.flags then return pending('no x86 /proc/cpuinfo') end
    local flags = {}
    for f in p.flags:gmatch('%S+') do flags[f] = true end
    assert.equal(flags.avx512f == true, ci.avx512)
    assert.equal(flags.avx512bw == true, ci.avx512bw)
    assert.equal(flags.avx512vl == true, ci.avx512vl)
    assert.equal(flags.avx2 == true, ci.avx2)
    assert.equal(flags.fma == true, ci.fma)
    assert.equal(flags.amx_tile == true, ci.amx)
    assert.equal(flags.amx_bf16 == true, ci.amxBf16)
  end)

  it('reads the cache sizes and sharing sysfs shows', function()
    local s = sysfs()
    if not s then return pending('no sysfs cache directory') end
    assert.same({s[1][1], s[1][2]}, {ci.l1d, ci.l1dShared})
    assert.same({s[2][1], s[2][2]}, {ci.l2, ci.l2Shared})
    if s[3] then
      assert.same({s[3][1], s[3][2]}, {ci.l3, ci.l3Shared})
      assert.equal(s[3][1] // s[3][2], ci.l3Share)
    end
  end)

  it('derives the vector width and flops per cycle from the ISA and FMA units', function()
    assert.equal(ci.avx512 and 512 or (ci.avx2 and ci.fma) and 256 or 128, ci.vectorBits)
    assert.equal(ci.fmaUnits * ci.vectorBits // 16, ci.flopsPerCycle)
    if ci.vendor == 'AuthenticAMD' and ci.family == 26 and ci.modelNumber < 0x20 then
      assert.equal(2, ci.fmaUnits)  -- Zen 5 server: two 512-bit FMA pipes
    end
    local n = tonumber(io.popen('nproc'):read('a'))
    if n then assert.equal(n, ci.logicalCpus) end
  end)

  it('returns a new table on every call', function()
    local a = torch.cpuInfo()
    a.l1d = 0
    assert.equal(ci.l1d, torch.cpuInfo().l1d)
  end)

  it('takes caches and FMA units from TH_CPU_CACHES and TH_CPU_FMA_UNITS', function()
    local out = th("TH_CPU_CACHES='l1d=32K,l2=1M,l3=11M,l3shared=8' TH_CPU_FMA_UNITS=1", [[
      local c, g = torch.cpuInfo(), torch.gemmInfo()
      print(c.l1d, c.l2, c.l3, c.l3Shared, c.l3Share, c.cacheSource, c.fmaUnits, g.kc, g.mc, g.nc)]])
    assert.equal('32768\t1048576\t11534336\t8\t1441792\tTH_CPU_CACHES\t1\t320\t96\t528\n', out)
  end)

  it('ignores a malformed TH_CPU_CACHES whole, with a warning naming the item', function()
    local out = th("TH_CPU_CACHES='l1d=32K,l4=1M'", 'print(torch.cpuInfo().l1d == ' .. ci.l1d .. ')')
    assert.equal('warning: TH_CPU_CACHES: expected l1d, l2, l3, l1dshared, l2shared or l3shared, got ' ..
                 "'l4' (TH_CPU_CACHES ignored)\ntrue\n", out)
    out = th("TH_CPU_CACHES='l2=big'", 'print(torch.cpuInfo().l2 == ' .. ci.l2 .. ')')
    assert.equal("warning: TH_CPU_CACHES: l2 expects a size such as 32K or 1.5M, got 'big' " ..
                 '(TH_CPU_CACHES ignored)\ntrue\n', out)
  end)
end)

describe('torch.gemmInfo', function()
  -- the model (th_gemm_derive) on the machines of docs/dev/cpuinfo.md: L1d,
  -- L2, L3 and the logical CPUs sharing it -> kc, mc, nc, dotBT
  local machines = {
    {'Zen 3', 32 * K, 512 * K, 32 * M, 8, 320, 48, 960, 52428},
    {'Zen 4', 32 * K, M, 32 * M, 8, 320, 96, 960, 104857},
    {'Zen 5', 48 * K, M, 32 * M, 8, 512, 64, 960, 104857},
    {'Skylake-X', 32 * K, M, 1441792, 1, 320, 96, 528, 104857},
    {'Sapphire Rapids', 48 * K, 2 * M, 1966080, 1, 512, 128, 480, 209715},
    {'no L3, small caches', 4 * K, 64 * K, 0, 1, 128, 16, 192, 6553},
  }
  for _, m in ipairs(machines) do
    it('derives the blocking for ' .. m[1], function()
      local g = torch.gemmInfo{l1d = m[2], l2 = m[3], l3 = m[4], l3Shared = m[5]}
      assert.same({m[6], m[7], m[8], m[9]}, {g.kc, g.mc, g.nc, g.dotBT})
      assert.same({8, 48, 512, 16384, 144}, {g.mr, g.nr, g.directM, g.dotMN, g.flipM})
    end)
  end

  it('uses the blocking derived from this CPU unless TH_GEMM_* overrides it', function()
    if os.getenv('TH_GEMM_KC') or os.getenv('TH_GEMM_MC') or os.getenv('TH_GEMM_NC') then
      return pending('TH_GEMM_* set')
    end
    local ci, g = torch.cpuInfo(), torch.gemmInfo()
    local d = torch.gemmInfo{l1d = ci.l1d, l2 = ci.l2, l3 = ci.l3, l3Shared = ci.l3Shared}
    assert.same({d.kc, d.mc, d.nc, d.dotBT}, {g.kc, g.mc, g.nc, g.dotBT})
    assert.equal(select(2, torch._C.gemm_backend()) and 'avx512 8x48' or 'openblas', g.kernel)
    local out = th('TH_GEMM_KC=100 TH_GEMM_MC=20 TH_GEMM_NC=100', 'local g = torch.gemmInfo(); print(g.kc, g.mc, g.nc)')
    assert.equal('100\t24\t144\n', out)  -- mc and nc rounded up to MR and NR
  end)

  it('computes products right with an emulated small-cache machine', function()
    -- kc 128, mc 16, nc 192: K, M and N all span several blocks
    local out = th("TH_CPU_CACHES='l1d=4K,l2=64K,l3=0'", [[
      torch.manualSeed(1)
      local g = torch.gemmInfo()
      local worst = 0
      for _, s in ipairs{{100, 500, 300}, {37, 1000, 260}, {200, 50, 700}} do
        local a, b = torch.FloatTensor(s[1], s[3]):uniform(-1, 1), torch.FloatTensor(s[3], s[2]):uniform(-1, 1)
        for _, t in ipairs{{a, b}, {a:t():contiguous():t(), b}, {a, b:t():contiguous():t()}} do
          local c = torch.mm(t[1], t[2]):double()
          local e = torch.mm(a:double(), b:double())
          worst = math.max(worst, (c - e):abs():max() / (s[3] * 2^-23))
        end
      end
      print(g.kc, g.mc, g.nc, worst < 4)]])
    assert.equal('128\t16\t192\ttrue\n', out)
  end)

  it('leaves the convolutions right with an emulated small-cache machine', function()
    -- direct (16 planes), Winograd (64 -> 128 at 28x28) and im2col + gemm
    -- (stride 2, K = 576 over kc 128) paths, whose cache targets
    -- (th_nn_convdirect.c, th_nn_winograd.c, th_gemm.c) follow the caches
    local src = [[
      require 'nn'
      torch.manualSeed(3)
      local out = {}
      for _, s in ipairs{{16, 16, 32, 1}, {64, 128, 28, 1}, {64, 64, 16, 2}} do
        local m = nn.SpatialConvolution(s[1], s[2], 3, 3, s[4], s[4], 1, 1):float()
        local x = torch.FloatTensor(4, s[1], s[3], s[3]):uniform(-1, 1)
        local y = m:forward(x)
        local gy = y:clone():uniform(-1, 1)
        m:zeroGradParameters()
        m:backward(x, gy)
        out[#out + 1] = {y:clone(), m.gradInput:clone(), m.gradWeight:clone()}
      end
      torch.save(arg[1], out)]]
    local file = os.tmpname()
    local script = os.tmpname()
    local f = assert(io.open(script, 'w'))
    f:write(src)
    f:close()
    local core = package.searchpath('torch.core', package.cpath)
    local build = core and core:match('^(.*)/torch/core%.so$') or 'build'
    local function run(env)
      local p = io.popen(string.format("%s TH_BUILD='%s' bin/th '%s' '%s' 2>&1", env, build, script, file))
      local o = p:read('a')
      p:close()
      assert.equal('', o)
      return torch.load(file)
    end
    local small, here = run("TH_CPU_CACHES='l1d=4K,l2=64K,l3=256K'"), run('')
    os.remove(file)
    os.remove(script)
    for i = 1, 3 do
      for j = 1, 3 do
        local scale = here[i][j]:clone():abs():max()
        assert.is_true((small[i][j] - here[i][j]):abs():max() <= 1e-5 * scale, i .. ',' .. j)
      end
    end
  end)

  it('names the function, the field and what came for bad caches', function()
    helpers.errors(function() torch.gemmInfo{l1d = 'big'} end,
                   "bad argument #1 to 'torch.gemmInfo' (field 'l1d' must be an integer >= 1, got string)")
    helpers.errors(function() torch.gemmInfo{l3Shared = 0} end,
                   "bad argument #1 to 'torch.gemmInfo' (field 'l3Shared' must be an integer >= 1, got 0)")
    helpers.errors(function() torch.gemmInfo(5) end, 'table expected, got number')
  end)
end)
