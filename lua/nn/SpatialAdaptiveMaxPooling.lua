-- nn.SpatialAdaptiveMaxPooling(W, H): max pooling of a 3D or 4D (batch)
-- input to a fixed W x H output whatever the input size: output row i
-- takes input rows floor(i/H * iH) .. ceil((i+1)/H * iH) - 1 (windows may
-- overlap), as Torch7. 'indices' (a LongTensor shaped like the output)
-- holds the 1-based position y * iW + x + 1 of each maximum in its plane
-- (Torch7 kept a 2 x ... tensor of window-relative rows and columns: a
-- buffer, rebuilt by every forward). Kernel: src/nn/th_nn_winpool.c.

local C = torch._C.nn
local SpatialAdaptiveMaxPooling, parent = torch.class('nn.SpatialAdaptiveMaxPooling', 'nn.Module')

local function size(v, what)
  if (type(v) ~= 'number' or math.tointeger(v) == nil) or v < 1 then
    error(string.format('nn.SpatialAdaptiveMaxPooling: %s must be an integer >= 1, got %s', what,
                        tostring(v)), 3)
  end
  return v
end

function SpatialAdaptiveMaxPooling:__init(W, H)
  parent.__init(self)
  self.W = size(W, 'W')
  self.H = size(H, 'H')
  self.indices = torch.LongTensor()
end

function SpatialAdaptiveMaxPooling:updateOutput(input)
  if torch.type(self.indices) ~= 'torch.LongTensor' then self.indices = torch.LongTensor() end
  C.adamaxpool_updateOutput(self, input, self.output, self.indices, self.W, self.H)
  return self.output
end

function SpatialAdaptiveMaxPooling:updateGradInput(input, gradOutput)
  C.indexmax_updateGradInput(self, input, gradOutput, self.gradInput, self.indices)
  return self.gradInput
end

-- backward reads only the input's sizes (and the indices)
function SpatialAdaptiveMaxPooling:memoryTraits()
  return {buffers = {indices = 'both'}, needsInput = false, needsOutput = false}
end

function SpatialAdaptiveMaxPooling:empty()
  self:clearState()
end

function SpatialAdaptiveMaxPooling:clearState()
  if self.indices then self.indices:set() end
  return parent.clearState(self)
end
