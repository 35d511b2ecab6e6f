-- nn.OneHot(outputSize): class numbers (1-based; a tensor of any shape, or
-- one number) to one-hot rows: output has the input's shape plus a last
-- dimension of outputSize, 1 at the class and 0 elsewhere (a number gives
-- a vector). Not differentiable in its input: gradInput is zeros of the
-- input's shape (0 for a number).

require 'nn.Module'
local torch = torch
local nn = nn
local utils = nn.utils

local OneHot, parent = torch.class('nn.OneHot', 'nn.Module')

function OneHot:__init(outputSize)
  parent.__init(self)
  if type(outputSize) ~= 'number' or outputSize % 1 ~= 0 or outputSize < 1 then
    error(string.format('nn.OneHot: outputSize must be a positive integer, got %s', tostring(outputSize)), 2)
  end
  self.outputSize = outputSize
end

local function longBuffer(self, field)
  local b = rawget(self, field)
  if torch.type(b) ~= 'torch.LongTensor' then
    b = torch.LongTensor()
    self[field] = b
  end
  return b
end

function OneHot:updateOutput(input)
  local who = 'nn.OneHot:updateOutput'
  local size
  if type(input) == 'number' then
    local single = longBuffer(self, '_single'):resize(1)
    single[1] = input
    input, size = single, {}
  elseif torch.isTensor(input) then
    size = input:size():totable()
  else
    utils.error(who, 'input must be a tensor of class numbers or a number, got %s', torch.type(input))
  end
  if input:nElement() > 0 then
    local lo, hi = input:min(), input:max()
    if lo < 1 or hi > self.outputSize then
      utils.error(who, 'class numbers must be between 1 and %d, got %s', self.outputSize,
                  tostring(lo < 1 and lo or hi))
    end
  end
  size[#size + 1] = self.outputSize
  self.output:resize(torch.LongStorage(size)):zero()
  if input:nElement() == 0 then return self.output end
  size[#size] = 1
  local index = input
  if torch.type(input) ~= 'torch.LongTensor' then
    index = longBuffer(self, '_input'):resize(input:size()):copy(input)
  end
  index = utils.contiguousView(nil, index, torch.LongStorage(size))
  self.output:scatter(self.output:dim(), index, 1)
  return self.output
end

function OneHot:updateGradInput(input, gradOutput)
  if type(input) == 'number' then return 0 end
  utils.checkTensor(input, 'nn.OneHot:updateGradInput')
  self.gradInput:resize(input:size()):zero()
  return self.gradInput
end

-- backward reads only the input's shape
function OneHot:memoryTraits()
  return {buffers = {_single = 'forward', _input = 'forward'}, needsInput = false, needsOutput = false}
end

return OneHot
