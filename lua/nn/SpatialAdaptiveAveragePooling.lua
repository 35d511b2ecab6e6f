-- nn.SpatialAdaptiveAveragePooling(W, H): average pooling of a 3D or 4D
-- (batch) input to a fixed W x H output whatever the input size: output
-- row i averages input rows floor(i * iH / H) .. ceil((i+1) * iH / H) - 1
-- (windows may overlap), as Torch7. Kernel: src/nn/th_nn_winpool.c.

local C = torch._C.nn
local SpatialAdaptiveAveragePooling, parent = torch.class('nn.SpatialAdaptiveAveragePooling', 'nn.Module')

local function size(v, what)
  if (type(v) ~= 'number' or math.tointeger(v) == nil) or v < 1 then
    error(string.format('nn.SpatialAdaptiveAveragePooling: %s must be an integer >= 1, got %s', what,
                        tostring(v)), 3)
  end
  return v
end

function SpatialAdaptiveAveragePooling:__init(W, H)
  parent.__init(self)
  self.W = size(W, 'W')
  self.H = size(H, 'H')
end

function SpatialAdaptiveAveragePooling:updateOutput(input)
  C.adaavgpool_updateOutput(self, input, self.output, self.W, self.H)
  return self.output
end

function SpatialAdaptiveAveragePooling:updateGradInput(input, gradOutput)
  C.adaavgpool_updateGradInput(self, input, gradOutput, self.gradInput)
  return self.gradInput
end

-- backward reads only the input's sizes
function SpatialAdaptiveAveragePooling:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function SpatialAdaptiveAveragePooling:empty()
  self:clearState()
end
