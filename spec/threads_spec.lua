-- Thread safety of the kernels with the threads we start (OpenMP) and
-- OpenBLAS's: forward and backward of conv, linear, batch normalization
-- and friends with torch.setnumthreads(1) and (2) must agree.
--   * bit-identical where the work splits into independent outputs (every
--     output element computed by one thread, in one order): pointwise
--     layers, softmax, pooling, batch norm (per-feature sums, one feature
--     per thread), conv output and gradInput (per-image GEMMs), full conv;
--   * within rounding where a sum is split between threads: conv and full
--     conv gradWeight (each thread sums its images, then the partials are added: the order
--     depends on the thread count, though it is fixed for a given count, so
--     two runs with 2 threads agree bit for bit), and everything computed
--     by a threaded OpenBLAS GEMM/GEMV (Linear), whose blocking changes
--     with the thread count.
require 'torch'
require 'nn'

local saved
local function pass(nt, tname, make, x)
  torch.setnumthreads(nt)
  torch.manualSeed(7)
  local m = make():type(tname)
  m:zeroGradParameters()
  local out = m:forward(x):clone()
  torch.manualSeed(8)
  local g = out:clone():uniform(-1, 1)
  local gin = m:backward(x, g):clone()
  local _, grads = m:parameters()
  local gp = {}
  for i, p in ipairs(grads or {}) do gp[i] = p:clone() end
  return {output = out, gradInput = gin, gradParams = gp}
end

local function maxdiff(a, b) return (a - b):abs():max() end
local function scale(a) return math.max(1, a:abs():max()) end

-- exact: which results must match bit for bit between 1 and 2 threads.
-- Sizes are above the kernels' thresholds for going parallel
-- (TH_NN_PAR_MIN_ELEMS elements, TH_NN_PARALLEL_MIN_WORK operations).
local cases = {
  {'ReLU', function() return nn.ReLU() end, {64, 2400}, {output = true, gradInput = true}},
  {'Tanh', function() return nn.Tanh() end, {64, 2400}, {output = true, gradInput = true}},
  {'LogSoftMax', function() return nn.LogSoftMax() end, {64, 2400}, {output = true, gradInput = true}},
  {'SpatialMaxPooling', function() return nn.SpatialMaxPooling(2, 2) end, {16, 8, 34, 34}, {output = true, gradInput = true}},
  {'BatchNormalization', function() return nn.BatchNormalization(160) end, {1024, 160},
   {output = true, gradInput = true, gradParams = true}},
  {'SpatialBatchNormalization', function() return nn.SpatialBatchNormalization(8) end, {16, 8, 34, 34},
   {output = true, gradInput = true, gradParams = true}},
  {'SpatialConvolution', function() return nn.SpatialConvolution(8, 16, 3, 3, 1, 1, 1, 1) end, {8, 8, 12, 12},
   {output = true, gradInput = true}},
  -- 1x1: no im2col scratch, only the partial gradWeights of threads > 0
  {'SpatialConvolution 1x1', function() return nn.SpatialConvolution(16, 32, 1, 1) end, {8, 16, 12, 12},
   {output = true, gradInput = true}},
  {'SpatialFullConvolution', function() return nn.SpatialFullConvolution(8, 8, 3, 3) end, {16, 8, 12, 12},
   {output = true, gradInput = true}},
  {'Linear', function() return nn.Linear(200, 300) end, {64, 200}, {}},
}

describe('kernels agree with 1 and 2 threads', function()
  setup(function() saved = torch.getnumthreads() end)
  teardown(function() torch.setnumthreads(saved) end)

  it('setnumthreads takes effect', function()
    torch.setnumthreads(2)
    assert.are.equal(2, torch.getnumthreads())
    torch.setnumthreads(1)
    assert.are.equal(1, torch.getnumthreads())
  end)

  for _, tname in ipairs({'torch.FloatTensor', 'torch.DoubleTensor'}) do
    local tol = tname == 'torch.FloatTensor' and 1e-5 or 1e-12
    for _, c in ipairs(cases) do
      local name, make, size, exact = c[1], c[2], c[3], c[4]
      it(name .. ' (' .. tname .. ')', function()
        torch.manualSeed(5)
        local x = torch.Tensor(table.unpack(size)):type(tname):uniform(-1, 1)
        local r1 = pass(1, tname, make, x)
        local r2 = pass(2, tname, make, x)
        local function compare(what, a, b)
          local d = maxdiff(a, b)
          if exact[what] then
            assert(d == 0, string.format('%s %s: %g apart with 1 and 2 threads, expected bit-identical', name, what, d))
          else
            assert(d <= tol * scale(a), string.format('%s %s: %g apart (tolerance %g)', name, what, d, tol * scale(a)))
          end
        end
        compare('output', r1.output, r2.output)
        compare('gradInput', r1.gradInput, r2.gradInput)
        assert.are.equal(#r1.gradParams, #r2.gradParams)
        for i = 1, #r1.gradParams do compare('gradParams', r1.gradParams[i], r2.gradParams[i]) end
        -- a fixed thread count gives a fixed answer, split sums included
        local r3 = pass(2, tname, make, x)
        assert.are.equal(0, maxdiff(r2.output, r3.output))
        assert.are.equal(0, maxdiff(r2.gradInput, r3.gradInput))
        for i = 1, #r2.gradParams do assert.are.equal(0, maxdiff(r2.gradParams[i], r3.gradParams[i])) end
      end)
    end
  end
end)
