-- Module:cuda and Criterion:cuda/cudaHalf/cudaDouble (Torch7's nn names).
-- Without the CUDA stand-in they raise an error that says the engine is
-- CPU-only and how to run the script anyway, at the user's line; with the
-- stand-in (docs/cuda.md) they convert to its types, and cunn's own
-- definitions are the ones in place once it is required.
require 'nn'

local MSG = 'this engine is CPU-only; see docs/cuda.md (TH_CUDA_STANDIN=1 runs cunn scripts on the CPU)'

local function th(env, src)
  local p = io.popen(env .. ' bin/th -e "' .. src .. '" 2>&1')
  local out = p:read('a')
  p:close()
  return out
end

describe('nn :cuda() without the CUDA stand-in', function()
  it('Module:cuda raises naming the call, the engine and the way out, at the caller', function()
    local net = nn.Sequential():add(nn.Linear(2, 3))
    local ok, err = pcall(function() net:cuda() end)
    assert.is_false(ok)
    assert.matches('nn.Module:cuda: ' .. MSG, err, 1, true)
    assert.matches('nn_cuda_error_spec.lua:%d+:', err)
    ok, err = pcall(function() nn.ReLU():cuda() end)
    assert.matches('nn.Module:cuda: ' .. MSG, err, 1, true)
    assert.are.equal('torch.DoubleTensor', torch.type(net:get(1).weight))   -- left as it was
  end)

  it('Criterion:cuda, cudaHalf and cudaDouble raise the same way', function()
    for _, m in ipairs{'cuda', 'cudaHalf', 'cudaDouble'} do
      local c = nn.MSECriterion()
      local ok, err = pcall(function() c[m](c) end)
      assert.is_false(ok)
      assert.matches('nn.Criterion:' .. m .. ': ' .. MSG, err, 1, true)
    end
  end)
end)

describe('nn :cuda() with the CUDA stand-in', function()
  it('converts to the stand-in types with cutorch alone', function()
    local out = th('TH_CUDA_STANDIN=1', "require 'cutorch'; local n = nn.Sequential():add(nn.Linear(2, 3)); "
      .. "print(torch.type(n:cuda():get(1).weight), torch.type(nn.MSECriterion():cudaDouble().gradInput), "
      .. "torch.type(nn.MSECriterion():cudaHalf().gradInput))")
    assert.matches('torch.FloatTensor\ttorch.DoubleTensor\ttorch.FloatTensor', out, 1, true)
  end)

  it("cunn's definitions win once it is required", function()
    local out = th('TH_CUDA_STANDIN=1', "local before = (require 'nn').Module.cuda; require 'cunn'; "
      .. "print(nn.Module.cuda ~= before, nn.Linear.cuda == nn.Module.cuda, "
      .. "torch.type(nn.Linear(2, 2):cuda():forward(torch.ones(2):cuda())))")
    assert.matches('true\ttrue\ttorch.FloatTensor', out, 1, true)
  end)
end)
