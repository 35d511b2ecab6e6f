-- nn.SpatialUpSamplingNearest(scale): nearest-neighbour up-sampling of
-- the last two dimensions of a 3D or 4D (batch) input by an integer
-- factor: output H*scale x W*scale, output (y, x) = input (y/scale, x/scale)
-- (integer division). Backward sums each scale x scale block.
-- 'inputSize' / 'outputSize' (LongStorages) record the last sizes, as
-- Torch7. Kernel: src/nn/th_nn_upsample.c.

local C = torch._C.nn
local SpatialUpSamplingNearest, parent = torch.class('nn.SpatialUpSamplingNearest', 'nn.Module')

function SpatialUpSamplingNearest:__init(scale)
  parent.__init(self)
  if type(scale) ~= 'number' or scale < 1 or math.floor(scale) ~= scale then
    error(string.format('nn.SpatialUpSamplingNearest: scale_factor must be an integer >= 1, got %s',
                        tostring(scale)), 2)
  end
  self.scale_factor = scale
  self.inputSize = torch.LongStorage(4)
  self.outputSize = torch.LongStorage(4)
end

function SpatialUpSamplingNearest:updateOutput(input)
  C.upnearest_updateOutput(self, input, self.output, 2, self.scale_factor)
  for i = 1, input:dim() do
    self.inputSize[i] = input:size(i)
    self.outputSize[i] = self.output:size(i)
  end
  return self.output
end

function SpatialUpSamplingNearest:updateGradInput(input, gradOutput)
  C.upnearest_updateGradInput(self, input, gradOutput, self.gradInput, 2, self.scale_factor)
  return self.gradInput
end

-- backward reads only the input's sizes
function SpatialUpSamplingNearest:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end
