-- make_image_seeds.lua DIR: writes a starting corpus for fuzz_image into
-- DIR: small PNG (1 to 4 channels) and JPEG (gray and RGB) files, each
-- behind the byte that picks the codec (0 PNG, 1 JPEG), as fuzz_image.c reads it.
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
