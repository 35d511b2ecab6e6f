-- md5: the MD5 digest (RFC 1321), the API of the `md5` rock that Torch7
-- packages require (torchnet's tnt.utils.sys.md5):
--   md5.sum(message)          -> the 16-byte binary digest
--   md5.sumhexa(message)      -> the digest as 32 lowercase hex digits
--   md5.exor(a, b)            -> a xor b, byte by byte (strings of one length)
-- Pure Lua 5.4 (64-bit integers, bit operators): MD5 is for identifying
-- content, not for security.
local md5 = {}

local M32 = 0xffffffff

-- the sines table: K[i] = floor(2^32 * |sin(i)|)
local K = {}
for i = 1, 64 do K[i] = math.floor(math.abs(math.sin(i)) * 2 ^ 32) & M32 end

-- per-round left rotations
local S = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
           5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21}

local function rotl(x, n)
  return ((x << n) | (x >> (32 - n))) & M32
end

-- one 64-byte block at position p of s into the state h (4 words)
local function block(h, s, p)
  local X = {string.unpack('<I4I4I4I4I4I4I4I4I4I4I4I4I4I4I4I4', s, p)}
  local a, b, c, d = h[1], h[2], h[3], h[4]
  for i = 0, 63 do
    local f, g
    if i < 16 then
      f, g = (b & c) | (~b & d), i
    elseif i < 32 then
      f, g = (d & b) | (~d & c), (5 * i + 1) % 16
    elseif i < 48 then
      f, g = b ~ c ~ d, (3 * i + 5) % 16
    else
      f, g = c ~ (b | ~d), (7 * i) % 16
    end
    f = (f + a + K[i + 1] + X[g + 1]) & M32
    a, d, c = d, c, b
    b = (b + rotl(f & M32, S[i + 1])) & M32
  end
  h[1], h[2], h[3], h[4] = (h[1] + a) & M32, (h[2] + b) & M32, (h[3] + c) & M32, (h[4] + d) & M32
end

function md5.sum(message)
  if type(message) ~= 'string' then
    error(string.format('md5.sum: a string expected, got %s', type(message)), 2)
  end
  local n = #message
  -- padding: a 1 bit, zeros to 56 mod 64 bytes, the length in bits (64-bit little endian)
  local padded = message .. '\128' .. string.rep('\0', (55 - n) % 64) .. string.pack('<I8', (n * 8) & 0xffffffffffffffff)
  local h = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}
  for p = 1, #padded, 64 do block(h, padded, p) end
  return string.pack('<I4I4I4I4', h[1], h[2], h[3], h[4])
end

function md5.sumhexa(message)
  if type(message) ~= 'string' then
    error(string.format('md5.sumhexa: a string expected, got %s', type(message)), 2)
  end
  return (md5.sum(message):gsub('.', function(ch) return string.format('%02x', ch:byte()) end))
end

function md5.exor(a, b)
  if type(a) ~= 'string' or type(b) ~= 'string' or #a ~= #b then
    error(string.format('md5.exor: two strings of one length expected, got %s (%s) and %s (%s)', type(a),
      type(a) == 'string' and #a or '-', type(b), type(b) == 'string' and #b or '-'), 2)
  end
  local out = {}
  for i = 1, #a do out[i] = string.char(a:byte(i) ~ b:byte(i)) end
  return table.concat(out)
end

return md5
