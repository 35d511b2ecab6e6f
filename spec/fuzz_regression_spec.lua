-- Inputs the fuzzers found (fuzz/regressions/<harness>/), replayed through
-- the Lua API on every `make test` (and under ASan in `make test-asan`).
-- Each was a crash, an undefined-behaviour report or a view outside its
-- storage before its fix; now each must run to the end with only clean
-- Lua errors. The drivers are the harnesses' programs in Lua.
require 'torch'

local function inputs(dir)
  local list = {}
  local p = io.popen('ls ' .. dir .. ' 2>/dev/null')
  for name in p:lines() do list[#list + 1] = name end
  p:close()
  table.sort(list)
  return list
end

local function slurp(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('a')
  f:close()
  return s
end

describe('fuzz regressions', function()
  local view = dofile('fuzz/view_driver.lua')
  local load = dofile('fuzz/load_driver.lua')

  it('has regression inputs for both harnesses', function()
    assert.is_true(#inputs('fuzz/regressions/view') >= 10)
    assert.is_true(#inputs('fuzz/regressions/load') >= 1)
  end)

  for _, name in ipairs(inputs('fuzz/regressions/view')) do
    it('view: ' .. name, function()
      local n = view(slurp('fuzz/regressions/view/' .. name))
      assert.is_true(n >= 0)
    end)
  end

  for _, name in ipairs(inputs('fuzz/regressions/load')) do
    it('load: ' .. name, function()
      local ok = load(slurp('fuzz/regressions/load/' .. name))
      assert.is_boolean(ok)
    end)
  end

  -- the ascii reader and the loaded-net harnesses (fuzz_ascii, fuzz_modload)
  local ascii = require 'fuzz.ascii_driver'
  for _, name in ipairs(inputs('fuzz/regressions/ascii')) do
    it('ascii: ' .. name, function()
      assert.is_boolean(ascii(slurp('fuzz/regressions/ascii/' .. name)))
    end)
  end
  local modload = require 'fuzz.modload_driver'
  for _, name in ipairs(inputs('fuzz/regressions/modload')) do
    it('modload: ' .. name, function()
      assert.is_boolean(modload(slurp('fuzz/regressions/modload/' .. name)))
    end)
  end

  -- dataparallel's checkpoint reader (fuzz_ckpt)
  local ckpt = require 'fuzz.ckpt_driver'
  for _, name in ipairs(inputs('fuzz/regressions/ckpt')) do
    it('ckpt: ' .. name, function()
      assert.is_boolean(ckpt(slurp('fuzz/regressions/ckpt/' .. name)))
    end)
  end

  it('the ckpt driver resumes and steps every intact fixture checkpoint', function()
    assert.are.equal(4, ckpt.nfixtures)
    for i = 0, ckpt.nfixtures - 1 do assert.is_true(ckpt(string.char(i))) end
  end)

  -- the dataset readers (fuzz_dataset): MNIST idx and CIFAR-10 files
  local data = require 'fuzz.dataset_driver'
  for _, name in ipairs(inputs('fuzz/regressions/dataset')) do
    it('dataset: ' .. name, function()
      assert.is_boolean(data(slurp('fuzz/regressions/dataset/' .. name)))
    end)
  end

  it('the dataset driver loads its seeds and refuses broken files cleanly', function()
    local dir = os.tmpname()
    os.remove(dir)
    os.execute('mkdir -p ' .. dir)
    -- fuzz/make_seeds.lua's 'dataset' seeds: 10 sets load, 1 pair of cut CIFAR files is refused
    local p = io.popen('lua5.4 fuzz/make_seeds.lua ' .. dir .. ' dataset')
    p:read('a')
    p:close()
    local loaded, refused = 0, 0
    for _, name in ipairs(inputs(dir)) do
      if data(slurp(dir .. '/' .. name)) then loaded = loaded + 1 else refused = refused + 1 end
    end
    os.execute('rm -rf ' .. dir)
    assert.are.same({10, 1}, {loaded, refused})
  end)

  it('the view driver decodes programs as fuzz_view does', function()
    -- storage of 16, set() with size 3 stride 1 at offset 0: a valid view, so
    -- at least that operation succeeds and is checked
    local prog = string.char(0, 16, 1, 3, 1, 0, 1)
    assert.are.equal(1, view(prog))
    -- then narrow(1, 2, 2) (op 0, dim 1, first 1 -> 2, len 2) succeeds too
    assert.are.equal(2, view(prog .. string.char(0, 1, 1, 2)))
  end)
end)
