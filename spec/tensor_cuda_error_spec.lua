-- x:cuda() and cutorch's other conversions without the CUDA stand-in: an
-- error at the user's line that says the engine is CPU-only and how to run
-- a CUDA script anyway; with the stand-in (docs/cuda.md) its own methods win.
require 'torch'
local helpers = require 'spec.support.helpers'

local names = {'cuda', 'cudaDouble', 'cudaHalf', 'cudaLong', 'cudaInt', 'cudaShort', 'cudaChar', 'cudaByte'}

describe('Tensor:cuda without the CUDA stand-in', function()
  it('raises an error naming the method, the reason and the way out, on every tensor type', function()
    for _, tn in ipairs{'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double', 'Half'} do
      local x = torch[tn .. 'Tensor'](2)
      for _, m in ipairs(names) do
        local ok, err = pcall(function() return x[m](x) end)
        assert.is_false(ok)
        assert.are.equal('Tensor:' .. m .. ': this engine is CPU-only; see docs/cuda.md '
                         .. '(TH_CUDA_STANDIN=1 runs cutorch scripts on the CPU)', tostring(err):gsub('^[^:]*:%d+: ', ''))
      end
    end
  end)

  it("places the error at the caller's line", function()
    local out = helpers.th("local x = torch.ones(2)\nlocal y = x:cuda()\n")
    assert.matches(":2: Tensor:cuda: this engine is CPU-only", out, 1, true)
  end)

  it("gives way to the stand-in's conversions once cutorch is required", function()
    local out = helpers.th([[
torch.cudaStandIn = true
require 'cutorch'
local x = torch.DoubleTensor{1.5, 2}
print(torch.type(x:cuda()), torch.type(x:cudaDouble()), torch.type(x:cudaHalf()), torch.type(x:cudaLong()))
]])
    assert.matches('torch.FloatTensor\ttorch.DoubleTensor\ttorch.FloatTensor\ttorch.LongTensor', out, 1, true)
  end)
end)
