-- nn.CMul(size...): y = x .* w with a learnable weight of the given size
-- (numbers or a LongStorage). The input is either the weight's size (any
-- shape with as many elements), of the weight's dimension count with size
-- 1 weight dimensions broadcast, or a batch of the weight (first dimension
-- the batch). Initialised uniform(-1/sqrt(n), 1/sqrt(n)), n = weight
-- elements. '_repeat' and '_sum' are backward-only scratch (accGradParameters
-- when the weight is broadcast).

local CMul, parent = torch.class('nn.CMul', 'nn.Module')
local ep = require 'nn.elementparam'

function CMul:__init(...)
  parent.__init(self)
  self.size = ep.size('nn.CMul', 'weight', ...)
  self.weight = torch.Tensor(self.size)
  self.gradWeight = torch.Tensor(self.size)
  self.output:resize(self.size)
  self:reset()
end

function CMul:reset(stdv)
  if stdv then
    stdv = stdv * math.sqrt(3)
  else
    stdv = 1 / math.sqrt(self.weight:nElement())
  end
  self.weight:uniform(-stdv, stdv)
  return self
end

-- how the weight meets an input (nn/elementparam.lua)
local function mode(self, input, method)
  -- not a tail call: an error's level counts this frame
  local m = ep.mode(self, self.weight, 'weight', input, method, 3)
  return m
end

-- t (contiguous, input-shaped) .*= the weight, laid out for mode m
local function cmulWeight(self, t, m)
  if m == 'same' then
    t:cmul(self.weight)
  elseif m == 'broadcast' then
    t:cmul(self.weight:expandAs(t))
  else
    local b = t:size(1)
    local n = self.weight:nElement()
    t:view(b, n):cmul(self.weight:view(1, n):expand(b, n))
  end
end

function CMul:updateOutput(input)
  local m = mode(self, input, 'updateOutput')
  self.output:resizeAs(input):copy(input)
  cmulWeight(self, self.output, m)
  return self.output
end

function CMul:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local m = mode(self, input, 'updateGradInput')
  self.gradInput:resizeAs(input):copy(gradOutput)
  cmulWeight(self, self.gradInput, m)
  return self.gradInput
end

function CMul:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local m = mode(self, input, 'accGradParameters')
  if m == 'same' then
    self.gradWeight:addcmul(scale, input, gradOutput)
    return
  end
  self._repeat = self._repeat or self.weight.new()
  self._sum = self._sum or self.weight.new()
  self._repeat:resizeAs(input):copy(input):cmul(gradOutput)
  if m == 'batch' then
    local b, n = input:size(1), self.weight:nElement()
    self._sum:sum(self._repeat:view(b, n), 1)
  else
    -- sum over every broadcast dimension, ping-ponging between the buffers
    local from, into = self._repeat, self._sum
    local most = 0
    for i = 1, self.weight:dim() do
      if self.weight:size(i) ~= input:size(i) then
        into:sum(from, i)
        if into == self._sum and most == 0 then most = into:nElement() end
        from, into = into, from
      end
    end
    if from ~= self._sum then self._sum:resizeAs(from):copy(from) end
    self.gradWeight:add(scale, self._sum)
    -- each buffer left at the most it held in this call: the memory
    -- optimizer sizes a buffer by what it holds when the call returns
    self._repeat:resize(input:nElement())
    if most > 0 then self._sum:resize(most) end
    return
  end
  self.gradWeight:add(scale, self._sum)
end

function CMul:memoryTraits()
  return {buffers = {_repeat = 'backward', _sum = 'backward'}, needsInput = true,
          needsOutput = false}
end

