-- make bench-winograd: per-layer times of 3x3 stride-1 convolutions on
-- the four paths: im2col + gemm, Winograd F(2x2,3x3), F(4x4,3x3) and the direct
-- AVX-512 kernels (torch._C.nn.conv_winograd / conv_direct), float32, 2
-- threads, each phase alternating the paths call by call; per phase the
-- medians, the ratios to im2col, and which path the shape rules ('auto')
-- take. Prints the table and writes it to docs/benchmarks.md, section
-- "Winograd per layer". Without AVX-512 the direct column is im2col's.
--   bin/th bench/winograd.lua [reps]      (QUICK=1: four layers, no write)
require 'torch'
require 'nn'
-- the load guard (bench/loadguard.lua): docs/benchmarks.md is written only on a quiet machine
local meter = dofile((arg[0]:match('^(.*)/bench/winograd%.lua$') or '.') .. '/bench/loadguard.lua').start()
local C = torch._C.nn
local reps = tonumber(arg[1] or 7)
-- {name, batch, nIn, nOut, size}
local SHAPES = {
  {'resnet-56 16', 64, 16, 16, 32}, {'resnet-56 32', 64, 32, 32, 16}, {'resnet-56 64', 64, 64, 64, 8},
  {'densenet 48-12', 64, 48, 12, 32}, {'densenet 48-12', 64, 48, 12, 16}, {'densenet 48-12', 64, 48, 12, 8},
  {'resnet-18 64', 16, 64, 64, 56}, {'resnet-18 128', 16, 128, 128, 28}, {'resnet-18 256', 16, 256, 256, 14},
  {'resnet-18 512', 16, 512, 512, 7}, {'googlenet 96-128', 16, 96, 128, 28}, {'googlenet 112-224', 16, 112, 224, 14},
  {'googlenet 192-384', 16, 192, 384, 7},
  {'alexnet 192-384', 16, 192, 384, 13}, {'alexnet 256-256', 16, 256, 256, 13},
  {'vgg 64-128', 8, 64, 128, 112}, {'vgg 256-256', 8, 256, 256, 56}, {'vgg 512-512', 8, 512, 512, 28},
}
if os.getenv('QUICK') then SHAPES = {SHAPES[1], SHAPES[2], SHAPES[3], SHAPES[8]} end
torch.setnumthreads(2)
torch.setdefaulttensortype('torch.FloatTensor')
local clock = torch._C.clock
local md_cells
local function median(t) table.sort(t); return t[(#t + 1) // 2] end
local PATHS = {im2col = {'off', 'off'}, wino = {'on', 'off'}, wino4 = {'on4', 'off'}, direct = {'off', 'on'}}
local ORDERS = {{'im2col', 'wino', 'wino4', 'direct'}, {'direct', 'im2col', 'wino', 'wino4'},
                {'wino4', 'direct', 'im2col', 'wino'}, {'wino', 'wino4', 'direct', 'im2col'}}
local md = {
  '| layer | batch | nIn | nOut | HxW | fwd im2col ms | Winograd F2 | F4 | direct | gradInput im2col ms | F2 | F4 | direct '
    .. '| gradWeight im2col ms | F2 | F4 | direct | auto takes (fwd, gradInput, gradWeight) |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
}
print(string.format('%-20s %3s %4s %4s %4s | %s', 'layer', 'B', 'nIn', 'nOut', 'HxW',
  'fwd im2col/F2/F4/direct ms | gradInput ... | gradWeight ...'))
for _, s in ipairs(SHAPES) do
  local name, B, nIn, nOut, H = table.unpack(s)
  local m = nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, 1, 1):noBias()
  local x = torch.randn(B, nIn, H, H)
  local go = torch.randn(B, nOut, H, H)
  local phases = {
    function() m:updateOutput(x) end,
    function() m:updateGradInput(x, go) end,
    function() m:accGradParameters(x, go) end,
  }
  local row = {}
  md_cells = {}
  for p, f in ipairs(phases) do
    local t = {im2col = {}, wino = {}, wino4 = {}, direct = {}}
    for r = 1, reps + 1 do
      for _, path in ipairs(ORDERS[r % 4 + 1]) do
        C.conv_winograd(PATHS[path][1])
        C.conv_direct(PATHS[path][2])
        local t0 = clock(); f(); local ms = (clock() - t0) * 1000
        if r > 1 then table.insert(t[path], ms) end
      end
    end
    local a, b, b4, c = median(t.im2col), median(t.wino), median(t.wino4), median(t.direct)
    md_cells[p] = string.format('%.2f | %.2f | %.2f | %.2f', a, b, b4, c)
    row[#row + 1] = string.format('%7.2f %7.2f %7.2f %7.2f', a, b, b4, c)
  end
  C.conv_winograd('auto')
  C.conv_direct('auto')
  print(string.format('%-20s %3d %4d %4d %4d | %s', name, B, nIn, nOut, H, table.concat(row, ' | ')))
  local wino, direct = {C.conv_winogradChosen(m, x)}, {C.conv_directChosen(m, x)}
  local takes = {}
  for i = 1, 3 do takes[i] = direct[i] and 'direct' or wino[i] and ('Winograd F' .. wino[i]) or 'im2col' end
  md[#md + 1] = string.format('| %s | %d | %d | %d | %dx%d | %s | %s |', name, B, nIn, nOut, H, H,
    table.concat(md_cells, ' | '), table.concat(takes, ', '))
end

if not os.getenv('QUICK') then
  local here = arg[0]:match('^(.*)/bench/winograd%.lua$') or '.'
  local load = io.open('/proc/loadavg'):read('l'):match('^(%S+)')
  local text = table.concat({
    '## Winograd per layer', '',
    string.format('Written by `make bench-winograd` on %s UTC (load average %s at the end: on a shared machine '
      .. 'the times are noisy, the ratios less so). 3x3 stride-1 padding-1 convolutions of the zoo\'s nets, '
      .. 'float32, 2 threads, no bias; median of %d calls per path and phase, the four paths (im2col + gemm, '
      .. 'Winograd F(2x2,3x3) and F(4x4,3x3), the direct AVX-512 kernels) alternating call by call. The last column is what '
      .. 'the shape rules (`th_nn_convdirect_chosen`, then `th_nn_winograd_chosen`, modes auto) take.',
      os.date('!%Y-%m-%d %H:%M'), load, reps),
    '', table.concat(md, '\n'), ''}, '\n')
  dofile(here .. '/bench/loadguard.lua').write(here .. '/docs/benchmarks.md', 'Winograd per layer', text, meter:other())
end
