-- make_image_seeds.lua DIR: writes a starting corpus for fuzz_image into
-- DIR: small PNG (1 to 4 channels), JPEG (gray and RGB) and PGM/PPM files,
-- each behind the byte that picks the codec (0 PNG, 1 JPEG, 2 PGM/PPM), as
-- fuzz_image.c reads it.
require 'torch'
local image = require 'image'
local dir = assert(arg[1], 'usage: make_image_seeds.lua DIR')
torch.manualSeed(1)
local function write(name, mode, bytes)
  local t = {string.char(mode)}
  for i = 1, bytes:size(1) do t[#t + 1] = string.char(bytes[i]) end
  local f = assert(io.open(dir .. '/' .. name, 'wb'))
  f:write(table.concat(t))
  f:close()
end
for c = 1, 4 do write('png' .. c, 0, image.compressPNG(torch.rand(c, 5, 7))) end
write('jpg1', 1, image.compressJPG(torch.rand(1, 9, 8)))
write('jpg3', 1, image.compressJPG(image.scale(image.lena(), 24, 16), 60))
local function writestr(name, mode, s)
  local f = assert(io.open(dir .. '/' .. name, 'wb'))
  f:write(string.char(mode), s)
  f:close()
end
writestr('pgm-ascii', 2, 'P2\n# comment\n3 2\n15\n0 3 15\n7 8 1\n')
writestr('ppm-ascii', 2, 'P3 1 2 255 10 20 30 40 50 60')
writestr('pgm16', 2, 'P5 2 1 1000\n' .. string.pack('>I2I2', 1000, 333))
writestr('ppm', 2, 'P6\n2 1\n255\n' .. string.char(1, 2, 3, 250, 251, 252))
