-- make bench-winograd: per-layer times of 3x3 stride-1 convolutions,
-- Winograd F(2x2,3x3) against im2col + gemm (torch._C.nn.conv_winograd
-- 'on' / 'off'), float32, 2 threads, each phase alternating the two paths
-- call by call; prints the median ratio (Winograd / im2col) per phase.
--   bin/th bench/winograd.lua [reps]
require 'torch'
require 'nn'
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
local function median(t) table.sort(t); return t[(#t + 1) // 2] end
print(string.format('%-20s %3s %4s %4s %4s | %8s %8s %5s | %8s %8s %5s | %8s %8s %5s', 'layer', 'B', 'nIn', 'nOut', 'HxW',
  'fwd old', 'wino', 'ratio', 'gIn old', 'wino', 'ratio', 'gW old', 'wino', 'ratio'))
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
  for p, f in ipairs(phases) do
    local t = {off = {}, on = {}}
    for r = 1, reps + 1 do
      for _, mode in ipairs(r % 2 == 0 and {'off', 'on'} or {'on', 'off'}) do
        C.conv_winograd(mode)
        local t0 = clock(); f(); local ms = (clock() - t0) * 1000
        if r > 1 then table.insert(t[mode], ms) end
      end
    end
    local a, b = median(t.off), median(t.on)
    row[#row + 1] = string.format('%8.2f %8.2f %5.2f', a, b, b / a)
  end
  C.conv_winograd('auto')
  print(string.format('%-20s %3d %4d %4d %4d | %s', name, B, nIn, nOut, H, table.concat(row, ' | ')))
end
