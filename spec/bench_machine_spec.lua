-- bench/machine.lua: what the benchmarks record of the machine (the CPU,
-- its caches, the sgemm blocking chosen) and how they read the FMA peak
-- probe (bench/fma_peak.c: "<GFLOP/s> <checksum>" on stdout, the vector
-- width on stderr, one pinned copy per core).
require 'torch'

local machine = dofile('bench/machine.lua')

describe('bench/machine.lua', function()
  it('describes the CPU, its caches and the sgemm blocking chosen', function()
    local c, g = torch.cpuInfo(), torch.gemmInfo()
    local text = machine.describe()
    for _, part in ipairs{
      c.model ~= '' and c.model or '?',
      string.format('family %d model %d stepping %d', c.family, c.modelNumber, c.stepping),
      string.format('L1d %d KiB', c.l1d // 1024),
      string.format('%d-bit vectors, %d FMA units per core (%d flops/cycle', c.vectorBits, c.fmaUnits,
                    c.flopsPerCycle),
      string.format('kc %d, mc %d, nc %d', g.kc, g.mc, g.nc),
    } do
      assert.truthy(text:find(part, 1, true), part .. ' not in: ' .. text)
    end
  end)

  it('sums one probe per core and reads the vector width it took', function()
    local probe = os.tmpname()
    local f = assert(io.open(probe, 'w'))
    f:write('#!/bin/sh\necho avx2 >&2\necho "100.5 3.25"\n')
    f:close()
    os.execute("chmod +x '" .. probe .. "'")
    local per, sum, isa = machine.fmaPeak(probe, 2)
    os.remove(probe)
    assert.same({100.5, 100.5}, per)
    assert.equal(201, sum)
    assert.equal('avx2', isa)
  end)

  it('builds a probe that measures a positive peak here', function()
    local ci = torch.cpuInfo()
    if not (ci.avx512 or (ci.avx2 and ci.fma)) then return pending('neither AVX-512 nor AVX2 + FMA') end
    local exe = os.tmpname()
    assert.is_true(os.execute("cc -O2 bench/fma_peak.c -o '" .. exe .. "' 2>/dev/null"))
    local per, sum, isa = machine.fmaPeak(exe, 1)
    os.remove(exe)
    assert.equal(1, #per)
    assert.is_true(sum > 0)
    assert.equal(ci.avx512 and 'avx512' or 'avx2', isa)
  end)
end)
