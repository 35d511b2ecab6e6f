-- Printing tensors and storages in Torch7's format (lua/torch/print.lua).
require 'torch'

-- a tensor of the given sizes holding 1, 2, 3, ... times 'scale' in
-- row-major order
local function seq(sizes, scale, tname)
  local t = torch[tname or 'DoubleTensor'](table.unpack(sizes))
  local s = t:storage()
  for i = 1, t:nElement() do s[i] = i * (scale or 1) end
  return t
end

describe('tensor printing', function()
  it('prints a 1D tensor as a column with its size', function()
    assert.are.equal(' 1.5000\n 2.0000\n 3.0000\n[torch.DoubleTensor of size 3]\n',
                     tostring(torch.Tensor({1.5, 2, 3})))
  end)

  it('prints integral values without decimals, width from the largest', function()
    assert.are.equal(' 1\n 2\n-3\n[torch.LongTensor of size 3]\n', tostring(torch.LongTensor({1, 2, -3})))
    assert.are.equal('   1\n 200\n[torch.ByteTensor of size 2]\n', tostring(torch.ByteTensor({1, 200})))
    assert.are.equal('       1\n 1000000\n[torch.DoubleTensor of size 2]\n', tostring(torch.Tensor({1, 1e6})))
    -- zeros: Torch7 gives them one digit
    assert.are.equal(' 0  0\n[torch.DoubleTensor of size 1x2]\n', tostring(torch.Tensor(1, 2):zero()))
  end)

  it('prints a matrix with a space between columns', function()
    assert.are.equal(' 1  2  3\n 4  5  6\n[torch.DoubleTensor of size 2x3]\n', tostring(seq({2, 3})))
    -- the Torch7 documentation's 4x5 example
    assert.are.equal(
      '  1   2   3   4   5\n  6   7   8   9  10\n 11  12  13  14  15\n 16  17  18  19  20\n' ..
      '[torch.DoubleTensor of size 4x5]\n', tostring(seq({4, 5})))
  end)

  it('prints views through their strides: transposed and narrowed', function()
    assert.are.equal(' 1  4\n 2  5\n 3  6\n[torch.DoubleTensor of size 3x2]\n', tostring(seq({2, 3}):t()))
    -- the format depends only on the view's own values (9 is not in it)
    local v = seq({3, 3}):narrow(1, 2, 1)
    assert.are.equal(' 4  5  6\n[torch.DoubleTensor of size 1x3]\n', tostring(v))
    local col = seq({3, 3}):select(2, 2)
    assert.are.equal(' 2\n 5\n 8\n[torch.DoubleTensor of size 3]\n', tostring(col))
  end)

  it('factors out a common scale for small or large magnitudes', function()
    assert.are.equal('1e-05 *\n 1.0000\n 2.0000\n 3.3000\n[torch.DoubleTensor of size 3]\n',
                     tostring(torch.Tensor({1e-5, 2e-5, 3.3e-5})))
    assert.are.equal('1e-05 *\n  1.0000  2.0000\n  3.3000  0.1000\n[torch.DoubleTensor of size 2x2]\n',
                     tostring(torch.Tensor({{1e-5, 2e-5}, {3.3e-5, 1e-6}})))
    assert.are.equal('100000 *\n 1.2346\n 2.3457\n[torch.DoubleTensor of size 2]\n',
                     tostring(torch.Tensor({123456.5, 234567.25})))
    assert.are.equal('\n1e-07 *\n 1.0000\n 3.0000\n[torch.FloatStorage of size 2]\n',
                     tostring(torch.FloatStorage({1e-7, 3e-7})))
  end)

  it('switches to %e when magnitudes differ widely or integers are huge', function()
    assert.are.equal(' 1.0000e-01\n 1.2346e+05\n[torch.DoubleTensor of size 2]\n',
                     tostring(torch.Tensor({0.1, 123456.7})))
    assert.are.equal(' 1.0000e+10\n 1.0000e+00\n[torch.DoubleTensor of size 2]\n',
                     tostring(torch.Tensor({1e10, 1})))
    -- three-digit exponents get one more column
    assert.are.equal(' 1.0000e+200\n 1.0000e-200\n[torch.DoubleTensor of size 2]\n',
                     tostring(torch.Tensor({1e200, 1e-200})))
  end)

  it('prints single precision values rounded to 4 decimals', function()
    assert.are.equal(' 0.1000\n 0.2000\n[torch.FloatTensor of size 2]\n', tostring(torch.FloatTensor({0.1, 0.2})))
    assert.are.equal('-1.5000\n 0.2500\n[torch.DoubleTensor of size 2]\n', tostring(torch.Tensor({-1.5, 0.25})))
  end)

  it('wraps columns to 80 characters under "Columns a to b" headers', function()
    local expected = table.concat({
      'Columns 1 to 8\n',
      '  1.5000   3.0000   4.5000   6.0000   7.5000   9.0000  10.5000  12.0000\n',
      ' 31.5000  33.0000  34.5000  36.0000  37.5000  39.0000  40.5000  42.0000\n',
      '\n',
      'Columns 9 to 16\n',
      ' 13.5000  15.0000  16.5000  18.0000  19.5000  21.0000  22.5000  24.0000\n',
      ' 43.5000  45.0000  46.5000  48.0000  49.5000  51.0000  52.5000  54.0000\n',
      '\n',
      'Columns 17 to 20\n',
      ' 25.5000  27.0000  28.5000  30.0000\n',
      ' 55.5000  57.0000  58.5000  60.0000\n',
      '[torch.DoubleTensor of size 2x20]\n'})
    assert.are.equal(expected, tostring(seq({2, 20}, 1.5)))
    for line in tostring(seq({2, 20}, 1.5)):gmatch('[^\n]+') do assert.is_true(#line <= 80) end
  end)

  it('repeats the scale in each column block', function()
    local expected = table.concat({
      'Columns 1 to 10\n',
      '0.0001 *\n',
      '  0.1000  0.2000  0.3000  0.4000  0.5000  0.6000  0.7000  0.8000  0.9000  1.0000\n',
      '  1.3000  1.4000  1.5000  1.6000  1.7000  1.8000  1.9000  2.0000  2.1000  2.2000\n',
      '\n',
      'Columns 11 to 12\n',
      '0.0001 *\n',
      '  1.1000  1.2000\n',
      '  2.3000  2.4000\n',
      '[torch.DoubleTensor of size 2x12]\n'})
    assert.are.equal(expected, tostring(seq({2, 12}, 1e-5)))
  end)

  it('prints higher dimensions as (i,j,.,.) slices, first index fastest', function()
    assert.are.equal(table.concat({
      '(1,.,.) = \n', '   1   2\n', '   3   4\n', '   5   6\n', '\n',
      '(2,.,.) = \n', '   7   8\n', '   9  10\n', '  11  12\n',
      '[torch.DoubleTensor of size 2x3x2]\n'}), tostring(seq({2, 3, 2})))
    assert.are.equal(table.concat({
      '(1,1,.,.) = \n', '  1  2\n', '\n',
      '(2,1,.,.) = \n', '  5  6\n', '\n',
      '(1,2,.,.) = \n', '  3  4\n', '\n',
      '(2,2,.,.) = \n', '  7  8\n',
      '[torch.DoubleTensor of size 2x2x1x2]\n'}), tostring(seq({2, 2, 1, 2})))
  end)

  it('uses one format for all slices, chosen from the whole tensor', function()
    local t = torch.Tensor({{{1, 2}}, {{300, 400}}})
    assert.are.equal('(1,.,.) = \n    1    2\n\n(2,.,.) = \n  300  400\n[torch.DoubleTensor of size 2x1x2]\n',
                     tostring(t))
  end)

  it('prints empty tensors', function()
    assert.are.equal('[torch.DoubleTensor with no dimension]\n', tostring(torch.Tensor()))
    assert.are.equal('[torch.FloatTensor with no dimension]\n', tostring(torch.FloatTensor()))
    -- Torch7 had no size-0 dimensions: any tensor without elements printed so
    assert.are.equal('[torch.DoubleTensor with no dimension]\n', tostring(torch.Tensor(0)))
    assert.are.equal('[torch.LongTensor with no dimension]\n', tostring(torch.LongTensor(2, 0)))
  end)

  it('writes nan and inf in the column width', function()
    assert.are.equal('    nan\n    inf\n   -inf\n 1.5000\n[torch.DoubleTensor of size 4]\n',
                     tostring(torch.Tensor({0 / 0, 1 / 0, -1 / 0, 1.5})))
    -- integers: the width grows to the 4 characters of '-inf'
    assert.are.equal(' inf\n   1\n[torch.DoubleTensor of size 2]\n', tostring(torch.Tensor({1 / 0, 1})))
    assert.are.equal('-inf\n[torch.DoubleTensor of size 1]\n', tostring(torch.Tensor({-1 / 0})))
  end)

  it('prints storages with a leading newline, as Torch7', function()
    assert.are.equal('\n 1.5000\n-2.0000\n[torch.DoubleStorage of size 2]\n', tostring(torch.DoubleStorage({1.5, -2})))
    assert.are.equal('\n 2\n 3\n[torch.LongStorage of size 2]\n', tostring(torch.Tensor(2, 3):size()))
    assert.are.equal('\n[torch.DoubleStorage of size 0]\n', tostring(torch.DoubleStorage(0)))
  end)

  it('says so for a freed tensor instead of failing', function()
    local t = torch.Tensor({1, 2})
    t:free()
    assert.are.equal('[torch.DoubleTensor (freed)]\n', tostring(t))
  end)

  it('is the __tostring metamethod (what print writes) and Torch7\'s __tostring__', function()
    local t = torch.Tensor({1, 2})
    assert.are.equal(' 1\n 2\n[torch.DoubleTensor of size 2]\n', tostring(t))
    assert.are.equal(tostring(t), getmetatable(t).__tostring(t))
    assert.are.equal(tostring(t), t:__tostring__())
    assert.are.equal(tostring(t:storage()), t:storage():__tostring__())
  end)

  it('prints every element of a large tensor in reasonable time under profile full', function()
    local t = torch.FloatTensor(1000, 100):fill(0.5)
    torch.setprintoptions{profile = 'full'}
    local ok, s = pcall(tostring, t)
    torch.setprintoptions{profile = 'default'}
    assert(ok, s)
    local _, rows = s:gsub('\n', '\n')
    -- 100 columns of width 7 make 10 blocks of 1000 rows, 10 headers, 9 blank lines, 1 footer
    assert.are.equal(10 * 1000 + 10 + 9 + 1, rows)
    assert.is_truthy(s:find('[torch.FloatTensor of size 1000x100]', 1, true))
  end)

  describe('summary beyond the threshold', function()
    after_each(function() torch.setprintoptions{profile = 'default'} end)

    it('prints the first and last 3 entries of a long 1D tensor', function()
      assert.are.equal('    1\n    2\n    3\n  ...\n 1999\n 2000\n 2001\n[torch.DoubleTensor of size 2001]\n',
                       tostring(torch.range(1, 2001)))
      -- 1000 elements is not beyond the default threshold
      local _, lines = tostring(torch.range(1, 1000)):gsub('\n', '')
      assert.are.equal(1001, lines)
    end)

    it('prints corners of a matrix, its format from the shown values only', function()
      local t = seq({40, 30})
      t[20][15] = 1e9   -- not shown: it does not change the format
      assert.are.equal(table.concat({
        '    1     2     3   ...    28    29    30',
        '   31    32    33   ...    58    59    60',
        '   61    62    63   ...    88    89    90',
        '  ...   ...   ...   ...   ...   ...   ...',
        ' 1111  1112  1113   ...  1138  1139  1140',
        ' 1141  1142  1143   ...  1168  1169  1170',
        ' 1171  1172  1173   ...  1198  1199  1200',
        '[torch.DoubleTensor of size 40x30]', ''}, '\n'), tostring(t))
    end)

    it('prints a non-contiguous view in summary as its contiguous copy', function()
      local t = seq({30, 40})
      local v = t:t()
      assert.is_false(v:isContiguous())
      assert.are.equal(tostring(v:contiguous()), tostring(v))
      local n = t:narrow(2, 5, 30):narrow(1, 2, 28)
      assert.are.equal(tostring(n:clone()), tostring(n))
      assert.is_truthy(tostring(v):find('^    1    41    81   ...  1081  1121  1161\n'))
    end)

    it('prints one ... for the skipped slices of a 3D tensor', function()
      local s = tostring(seq({10, 2, 60}))
      assert.is_truthy(s:find('(3,.,.) = \n   241   242   243   ...   298   299   300\n' ..
                              '   301   302   303   ...   358   359   360\n\n...\n\n(8,.,.) = \n', 1, true), s)
      local _, n = s:gsub('\n%.%.%.\n', '')
      assert.are.equal(1, n)   -- one line for the skipped slices
      local _, cells = s:gsub(' %.%.%. ', '')
      assert.are.equal(6 * 2, cells)   -- a column of '...' in the 2 rows of the 6 shown slices
    end)

    it('follows threshold, edgeitems, precision and linewidth', function()
      torch.setprintoptions{threshold = 4, edgeitems = 1}
      assert.are.equal(' 1\n...\n 5\n[torch.DoubleTensor of size 5]\n', tostring(torch.range(1, 5)))
      torch.setprintoptions{profile = 'default', precision = 2}
      assert.are.equal(' 0.50  1.25\n[torch.DoubleTensor of size 1x2]\n', tostring(torch.Tensor({{0.5, 1.25}})))
      torch.setprintoptions{precision = 4, linewidth = 20}
      assert.is_truthy(tostring(seq({2, 8})):find('^Columns 1 to 5\n'))
      local o = torch.getprintoptions()
      assert.are.same({threshold = 1000, edgeitems = 3, precision = 4, linewidth = 20}, o)
      -- storages follow the threshold too
      torch.setprintoptions{threshold = 4}
      torch.setprintoptions{threshold = 4, edgeitems = 3}
      assert.are.equal('\n 1\n 2\n 3\n...\n 6\n 7\n 8\n[torch.DoubleStorage of size 8]\n',
                       tostring(torch.range(1, 8):storage()))
    end)

    it('refuses bad options naming the function', function()
      assert.has_error(function() torch.setprintoptions{edgeitems = 0} end,
                       'torch.setprintoptions: edgeitems must be an integer >= 1, got 0')
      assert.has_error(function() torch.setprintoptions{treshold = 5} end,
                       'torch.setprintoptions: unknown option treshold (threshold, edgeitems, precision, linewidth, profile)')
      assert.has_error(function() torch.setprintoptions(5) end,
                       'torch.setprintoptions: table of options expected, got number')
      assert.has_error(function() torch.setprintoptions{profile = 'short'} end,
                       "torch.setprintoptions: profile 'default' or 'full' expected, got short")
    end)
  end)
end)
