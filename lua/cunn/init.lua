-- cunn on the CPU (docs/cuda.md): requires cutorch's stand-in, gives modules
-- and criterions :cuda() (the float type, as Torch7's cunn did with the CUDA
-- float type) and nn.DataParallelTable, which runs its one module on the
-- whole batch.
require 'nn'
require 'cutorch'

function nn.Module:cuda(...) return self:type('torch.CudaTensor', ...) end
function nn.Criterion:cuda(...) return self:type('torch.CudaTensor', ...) end

require 'cunn.DataParallelTable'

local cunn = {standIn = true}
_G.cunn = cunn
return cunn
