-- make bench-convlayers (and the first half of make bench-layers): every
-- convolution shape of the model zoo (the conv nets of bench/speed.lua at
-- its batch sizes), forward, gradInput and gradWeight of one
-- nn.SpatialConvolution alone, float32, 2 threads: ms (median call),
-- GFLOP/s (counted as direct convolution: 2 B nOut nIn kH kW oH oW per
-- phase), % of the machine's FMA peak (bench/fma_peak.c, one pinned copy
-- per core, summed, measured before and after in the same run) and the
-- variant the engine took (direct, Winograd F4 / F2 for F(4x4,3x3) /
-- F(2x2,3x3), 1x1 gemm, im2col+gemm). Then
-- per model: its convolutions' share of the peak over a training step
-- (every occurrence of every shape; the first layer without gradInput, as
-- the nets run), so the table shows where the rest goes. The three phases
-- of a shape alternate call by call, so load from other processes falls on
-- all alike. Records the machine (bench/machine.lua).
--   bin/th bench/convlayers.lua [fma_peak binary]
-- Environment: MODELS (comma list), QUICK=1 (5 calls per phase),
-- NO_WRITE=1 (print only). Writes docs/benchmarks.md, section
-- "Convolution layers against the FMA peak" (bench/loadguard.lua).
require 'torch'
require 'nn'

local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/bench/[^/]*$') or '.'
local guard = dofile(here .. '/bench/loadguard.lua')
local meter = guard.start()
local machine = dofile(here .. '/bench/machine.lua')
local probe = arg[1] or (here .. '/build/fma_peak')
local C = torch._C.nn
local quick = os.getenv('QUICK') == '1'
local THREADS = 2

-- the conv nets of bench/speed.lua: name, batch, models/ constructor and options
local ZOO = {
  {'alexnet', 16, 'alexnet', {}},
  {'vgg-A', 8, 'vgg', {modelType = 'A'}},
  {'resnet-18', 16, 'resnet', {dataset = 'imagenet', depth = 18}},
  {'resnet-50', 16, 'resnet', {dataset = 'imagenet', depth = 50}},
  {'googlenet', 16, 'googlenet', {aux = false}},
  {'resnet-56', 64, 'resnet', {dataset = 'cifar10', depth = 56}},
  {'densenet', 64, 'densenet', {dataset = 'cifar10', depth = 100, growthRate = 12}},
}
if os.getenv('MODELS') then
  local want, keep = {}, {}
  for m in os.getenv('MODELS'):gmatch('[^,]+') do want[m] = true end
  for _, z in ipairs(ZOO) do if want[z[1]] then keep[#keep + 1] = z; want[z[1]] = nil end end
  if next(want) then error('bench/convlayers.lua: unknown model in MODELS: ' .. next(want)) end
  ZOO = keep
end

torch.setdefaulttensortype('torch.FloatTensor')
torch.manualSeed(0)

-- the convolutions of one net, in the order they run: a forward with a
-- hook on every nn.SpatialConvolution records its input's size
local function convsOf(z)
  local opts = {batch = z[2], type = 'float'}
  for k, v in pairs(z[4]) do opts[k] = v end
  local net, input = require('models.' .. z[3])(opts)
  local found, handles = {}, {}
  for _, m in ipairs(net:listModules()) do
    if torch.typename(m) == 'nn.SpatialConvolution' then
      handles[#handles + 1] = m:hook('updateOutput', function(nextf, self, x)
        found[#found + 1] = {self.nInputPlane, self.nOutputPlane, self.kH, self.kW, self.dH, self.dW,
                             self.padH, self.padW, x:size(1), x:size(3), x:size(4)}
        return nextf(self, x)
      end)
    end
  end
  net:evaluate()
  net:forward(input)
  for _, h in ipairs(handles) do h:remove() end
  return found
end

local shapes, byKey, perModel = {}, {}, {}
for _, z in ipairs(ZOO) do
  local occ = {}
  for i, s in ipairs(convsOf(z)) do
    local key = table.concat(s, ',')
    if not byKey[key] then
      byKey[key] = {s = s, models = {}, n = 0}
      shapes[#shapes + 1] = byKey[key]
    end
    local e = byKey[key]
    if not e.models[z[1]] then e.models[z[1]] = 0; e.models[#e.models + 1] = z[1] end
    e.models[z[1]] = e.models[z[1]] + 1
    occ[#occ + 1] = {e = e, first = i == 1}
  end
  perModel[#perModel + 1] = {name = z[1], batch = z[2], occ = occ}
  collectgarbage()
end

local function median(t)
  local c = {table.unpack(t)}
  table.sort(c)
  return c[(#c + 1) // 2]
end

local function variant(m, x, p)
  local d, w = {C.conv_directChosen(m, x)}, {C.conv_winogradChosen(m, x)}
  if d[p] then return 'direct' end
  if w[p] then return w[p] == 4 and 'Winograd F4' or 'Winograd F2' end
  if m.kW == 1 and m.kH == 1 and m.dW == 1 and m.dH == 1 and m.padW == 0 and m.padH == 0 then return '1x1 gemm' end
  return 'im2col+gemm'
end

-- the three phases of one shape, alternating call by call
local function measure(e)
  local nIn, nOut, kH, kW, dH, dW, padH, padW, B, iH, iW = table.unpack(e.s)
  local m = nn.SpatialConvolution(nIn, nOut, kW, kH, dW, dH, padW, padH):float()
  local x = torch.FloatTensor(B, nIn, iH, iW):uniform(-1, 1)
  local y = m:forward(x)
  local gy = y:clone():uniform(-1, 1)
  local oH, oW = y:size(3), y:size(4)
  e.flop = 2 * B * nOut * nIn * kH * kW * oH * oW
  local phases = {
    function() m:updateOutput(x) end,
    function() m:updateGradInput(x, gy) end,
    function() m:accGradParameters(x, gy, 1) end,
  }
  for _, f in ipairs(phases) do f() end
  local rounds = quick and 5 or math.max(5, math.min(31, math.floor(0.25 / (e.flop / 150e9))))
  local t, clock = {{}, {}, {}}, torch._C.clock
  for r = 1, rounds do
    for j = 1, 3 do
      local p = (r + j) % 3 + 1
      local t0 = clock()
      phases[p]()
      t[p][#t[p] + 1] = clock() - t0
    end
  end
  e.ms, e.variant, e.rounds = {}, {}, rounds
  for p = 1, 3 do
    e.ms[p] = 1000 * median(t[p])
    e.variant[p] = variant(m, x, p)
  end
  e.oH, e.oW = oH, oW
end

torch.setnumthreads(THREADS)
local havePeak = io.open(probe) ~= nil
local function peak()
  if not havePeak then return nil end
  local _, sum, isa = machine.fmaPeak(probe, THREADS)
  return sum, isa
end
local peak0, isa = peak()
io.stderr:write(string.format('%d shapes from %d models\n', #shapes, #perModel))
for i, e in ipairs(shapes) do
  measure(e)
  io.stderr:write(string.format('\r[%d/%d]', i, #shapes))
  collectgarbage()
end
io.stderr:write('\n')
local peak1 = peak()
local fma = math.max(peak0 or 0, peak1 or 0)

local function pct(gf) return fma > 0 and string.format('%.0f%%', 100 * gf / fma) or '-' end
local NAMES = {'forward', 'gradInput', 'gradWeight'}
local header = '| models (layers) | input B x C x H x W | out, kernel, stride, pad |'
local rule = '|---|---|---|'
for _, n in ipairs(NAMES) do
  header = header .. string.format(' %s ms | GFLOP/s | %% FMA peak | variant |', n)
  rule = rule .. '--:|--:|--:|---|'
end
local rows = {header, rule}
for _, e in ipairs(shapes) do
  local nIn, nOut, kH, kW, dH, dW, padH, padW, B, iH, iW = table.unpack(e.s)
  local used = {}
  for _, name in ipairs(e.models) do used[#used + 1] = string.format('%s (%d)', name, e.models[name]) end
  local line = string.format('| %s | %dx%dx%dx%d | %d, %dx%d, %d, %d |', table.concat(used, ', '), B, nIn, iH,
                             iW, nOut, kH, kW, dH, padH)
  for p = 1, 3 do
    local gf = e.flop / e.ms[p] / 1e6
    line = line .. string.format(' %.3f | %.0f | %s | %s |', e.ms[p], gf, pct(gf), e.variant[p])
  end
  rows[#rows + 1] = line
end

-- per model: a training step's convolution work and time, and by variant
local sumRows = {'| model | batch | conv GFLOP per step | conv ms per step | GFLOP/s | % FMA peak | time by variant |',
                 '|---|--:|--:|--:|--:|--:|---|'}
for _, pm in ipairs(perModel) do
  local flop, ms, by = 0, 0, {}
  for _, o in ipairs(pm.occ) do
    for p = 1, 3 do
      if not (p == 2 and o.first) then
        flop, ms = flop + o.e.flop, ms + o.e.ms[p]
        by[o.e.variant[p]] = (by[o.e.variant[p]] or 0) + o.e.ms[p]
      end
    end
  end
  local parts = {}
  for _, v in ipairs{'direct', 'Winograd F4', 'Winograd F2', '1x1 gemm', 'im2col+gemm'} do
    if by[v] then parts[#parts + 1] = string.format('%s %.0f%%', v, 100 * by[v] / ms) end
  end
  local gf = flop / ms / 1e6
  sumRows[#sumRows + 1] = string.format('| %s | %d | %.2f | %.1f | %.0f | %s | %s |', pm.name, pm.batch, flop / 1e9,
                                        ms, gf, pct(gf), table.concat(parts, ', '))
end

local text = string.format([[
## Convolution layers against the FMA peak

Written by `make bench-layers` (bench/convlayers.lua) on %s UTC.
%s

Every convolution shape of the conv nets of the speed table, at their batch
sizes, as one nn.SpatialConvolution, float32, %d threads: ms = the median
call (the three phases alternate call by call), GFLOP/s counted as direct
convolution (2 B nOut nIn kH kW oH oW per phase), %% FMA peak = that over
the FMA peak of the %d cores (bench/fma_peak.c, %s, one pinned copy per
core, summed: %s GFLOP/s before, %s after; the larger divides), variant =
the path the engine took. The model rows sum every occurrence of every
shape over a training step (forward, gradInput but for the first layer,
gradWeight): the convolutions' own share of the peak, without the layers
between them.

%s

%s
]], os.date('!%Y-%m-%d %H:%M'), machine.describe(), THREADS, THREADS, isa or '?',
  peak0 and string.format('%.0f', peak0) or '-', peak1 and string.format('%.0f', peak1) or '-',
  table.concat(sumRows, '\n'), table.concat(rows, '\n'))
print(text)
if os.getenv('NO_WRITE') ~= '1' then
  guard.write(here .. '/docs/benchmarks.md', 'Convolution layers against the FMA peak', text, meter:other())
end
