-- md5 (lua/md5/init.lua): RFC 1321's test suite, lengths around the
-- padding boundaries against Python's hashlib digests, and bad arguments
local md5 = require 'md5'

describe('md5', function()
  it('gives RFC 1321\'s digests', function()
    local cases = {
      [''] = 'd41d8cd98f00b204e9800998ecf8427e',
      ['a'] = '0cc175b9c0f1b6a831c399e269772661',
      ['abc'] = '900150983cd24fb0d6963f7d28e17f72',
      ['message digest'] = 'f96b697d7cb7938d525a2f31aaf161d0',
      ['abcdefghijklmnopqrstuvwxyz'] = 'c3fcd3d76192e4007dfb496cca67e13b',
      ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'] = 'd174ab98d277d9f5a5611c2c9f419d9f',
      [string.rep('1234567890', 8)] = '57edf4a22be3c955ac49da2e2107b67a',
    }
    for msg, hex in pairs(cases) do
      assert.are.equal(hex, md5.sumhexa(msg), msg)
      assert.are.equal(16, #md5.sum(msg))
    end
  end)

  it('pads every length right: 55, 56, 63, 64, 65 and 1000 bytes', function()
    -- digests from Python's hashlib.md5(b'x' * n)
    local want = {
      [55] = '04364420e25c512fd958a70738aa8f72', [56] = '668a72d5ba17f08e62dabcafad6db14b',
      [63] = '7dc2ca208106a2f703567bdff99d8981', [64] = 'c1bb4f81d892b2d57947682aeb252456',
      [65] = '1bc932052302d074bdec39795fe00cf6', [1000] = '398533d48111e9f664b1f64cb10c4b63',
    }
    for n, hex in pairs(want) do assert.are.equal(hex, md5.sumhexa(string.rep('x', n)), n .. ' bytes') end
  end)

  it('exor and bad arguments', function()
    assert.are.equal('\3\0', md5.exor('ab', 'bb'))
    assert.has_error(function() md5.sumhexa(12) end, 'md5.sumhexa: a string expected, got number')
    assert.has_error(function() md5.sum(nil) end, 'md5.sum: a string expected, got nil')
    assert.has_error(function() md5.exor('a', 'bc') end,
      'md5.exor: two strings of one length expected, got string (1) and string (2)')
  end)
end)
