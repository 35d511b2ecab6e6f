-- nn.SpatialUpSamplingBilinear(scale) or ({oheight = h, owidth = w}):
-- bilinear up-sampling of the last two dimensions of a 3D or 4D (batch)
-- input, corners aligned (output y reads input y * (H - 1) / (oH - 1)), as
-- Torch7. With an integer scale the output is H*scale x W*scale (Torch7's
-- code, not the (H-1)*(scale-1)+H its comment states); with a table, the
-- given size. 'inputSize' / 'outputSize' record the last sizes.
-- Kernel: src/nn/th_nn_upsample.c.

local C = torch._C.nn
local SpatialUpSamplingBilinear, parent = torch.class('nn.SpatialUpSamplingBilinear', 'nn.Module')

local function posint(v, what)
  if type(v) ~= 'number' or v < 1 or math.floor(v) ~= v then
    error(string.format('nn.SpatialUpSamplingBilinear: %s must be an integer >= 1, got %s', what,
                        tostring(v)), 3)
  end
  return v
end

function SpatialUpSamplingBilinear:__init(params)
  parent.__init(self)
  self.owidth, self.oheight, self.scale_factor = nil, nil, nil
  if torch.type(params) == 'table' then
    self.owidth = posint(params.owidth, 'owidth')
    self.oheight = posint(params.oheight, 'oheight')
  else
    self.scale_factor = posint(params, 'scale_factor')
  end
  self.inputSize = torch.LongStorage(4)
  self.outputSize = torch.LongStorage(4)
end

function SpatialUpSamplingBilinear:setSize(input)
  local xdim = input:dim()
  local ydim = xdim - 1
  for i = 1, input:dim() do
    self.inputSize[i] = input:size(i)
    self.outputSize[i] = input:size(i)
  end
  if self.scale_factor ~= nil then
    self.outputSize[ydim] = self.outputSize[ydim] * self.scale_factor
    self.outputSize[xdim] = self.outputSize[xdim] * self.scale_factor
  else
    self.outputSize[ydim] = self.oheight
    self.outputSize[xdim] = self.owidth
  end
end

function SpatialUpSamplingBilinear:updateOutput(input)
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4) then
    local got = torch.isTensor(input)
      and string.format('%dD %s', input:dim(), table.concat(input:size():totable(), 'x'))
      or torch.type(input)
    error(string.format('%s:updateOutput: input must be 3D or 4D (batch), got %s', torch.type(self), got), 2)
  end
  self:setSize(input)
  local d = input:dim()
  C.uplinear_updateOutput(self, input, self.output, 2, self.outputSize[d - 1], self.outputSize[d])
  return self.output
end

function SpatialUpSamplingBilinear:updateGradInput(input, gradOutput)
  C.uplinear_updateGradInput(self, input, gradOutput, self.gradInput, 2)
  return self.gradInput
end

-- backward reads only the input's sizes
function SpatialUpSamplingBilinear:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function SpatialUpSamplingBilinear:__tostring__()
  if self.scale_factor ~= nil then
    return string.format('%s(%d)', torch.type(self), self.scale_factor)
  end
  return string.format('%s(%d, %d)', torch.type(self), self.oheight, self.owidth)
end
