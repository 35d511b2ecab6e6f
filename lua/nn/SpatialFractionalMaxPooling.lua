-- nn.SpatialFractionalMaxPooling(poolSizeW, poolSizeH, outW, outH) or
-- (poolSizeW, poolSizeH, ratioW, ratioH): fractional max pooling (Graham,
-- 2014) of a 3D or 4D (batch) input: poolSizeW x poolSizeH windows whose
-- starts follow a pseudo-random increasing sequence per plane, to an
-- outW x outH output, or floor(W * ratioW) x floor(H * ratioH) with
-- ratios in (0, 1). As Torch7, 'randomSamples' (batch x planes x 2,
-- uniform in [0, 1), the input's type) is drawn again by every forward
-- unless :fixPoolingRegions() was called (then kept while the batch and
-- plane counts stay; set it to choose the regions). 'indices' holds the
-- 1-based plane position of each maximum. Kernel: src/nn/th_nn_winpool.c.

local C = torch._C.nn
local SpatialFractionalMaxPooling, parent = torch.class('nn.SpatialFractionalMaxPooling', 'nn.Module')

local cls = 'nn.SpatialFractionalMaxPooling'

function SpatialFractionalMaxPooling:__init(poolSizeW, poolSizeH, arg1, arg2)
  parent.__init(self)
  for what, v in pairs{poolSizeW = poolSizeW, poolSizeH = poolSizeH} do
    if (type(v) ~= 'number' or math.tointeger(v) == nil) or v < 2 then
      error(string.format('%s: %s must be an integer >= 2, got %s', cls, what, tostring(v)), 2)
    end
  end
  if type(arg1) ~= 'number' or type(arg2) ~= 'number' then
    error(string.format('%s: output size or ratio must be numbers, got %s and %s', cls,
                        torch.type(arg1), torch.type(arg2)), 2)
  end
  self.poolSizeW = poolSizeW
  self.poolSizeH = poolSizeH
  self.randomSamples = nil
  self.newRandomPool = false
  if arg1 >= 1 and arg2 >= 1 then
    if (type(arg1) ~= 'number' or math.tointeger(arg1) == nil) or math.tointeger(arg2) == nil then
      error(string.format('%s: output size must be integers, got %s, %s', cls, arg1, arg2), 2)
    end
    self.outW = arg1
    self.outH = arg2
  else
    if not (arg1 > 0 and arg1 < 1 and arg2 > 0 and arg2 < 1) then
      error(string.format('%s: ratios must lie in (0, 1), got %s, %s', cls, arg1, arg2), 2)
    end
    self.ratioW = arg1
    self.ratioH = arg2
  end
  self.indices = torch.LongTensor()
end

local function shape(t)
  return torch.isTensor(t) and string.format('%dD %s', t:dim(), table.concat(t:size():totable(), 'x'))
         or torch.type(t)
end

local function checkInput(self, input, method)
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4) then
    error(string.format('%s:%s: input must be 3D or 4D (batch), got %s', torch.type(self), method,
                        shape(input)), 3)
  end
end

function SpatialFractionalMaxPooling:getBufferSize_(input)
  if input:dim() == 3 then return torch.LongStorage({1, input:size(1), 2}) end
  return torch.LongStorage({input:size(1), input:size(2), 2})
end

-- a 3D input uses a 1 x planes x 2 sample tensor, as Torch7
function SpatialFractionalMaxPooling:initSampleBuffer_(input)
  local size = self:getBufferSize_(input)
  local s = self.randomSamples
  if s == nil or torch.type(s) ~= torch.type(input) then
    self.randomSamples = input.new():resize(size):uniform()
  elseif s:dim() ~= 3 or s:size(1) ~= size[1] or s:size(2) ~= size[2] then
    s:resize(size):uniform()
  elseif not self.newRandomPool then
    s:uniform()
  end
end

function SpatialFractionalMaxPooling:getOutputSizes_(input)
  local outW, outH = self.outW, self.outH
  if self.ratioW ~= nil and self.ratioH ~= nil then
    local d = input:dim()
    outW = math.floor(input:size(d) * self.ratioW)
    outH = math.floor(input:size(d - 1) * self.ratioH)
    if outW < 1 or outH < 1 then
      error(string.format('%s: reduction ratio %g,%g too small for the input %s', torch.type(self),
                          self.ratioW, self.ratioH, shape(input)), 3)
    end
  end
  return outW, outH
end

function SpatialFractionalMaxPooling:fixPoolingRegions(val)
  if val == nil then val = true end
  self.newRandomPool = val
  return self
end

function SpatialFractionalMaxPooling:updateOutput(input)
  checkInput(self, input, 'updateOutput')
  if torch.type(self.indices) ~= 'torch.LongTensor' then self.indices = torch.LongTensor() end
  self:initSampleBuffer_(input)
  local outW, outH = self:getOutputSizes_(input)
  local samples = self.randomSamples
  if input:dim() == 3 then samples = samples[1] end
  C.fracmaxpool_updateOutput(self, input, self.output, self.indices, samples, outW, outH,
                             self.poolSizeW, self.poolSizeH)
  return self.output
end

function SpatialFractionalMaxPooling:updateGradInput(input, gradOutput)
  checkInput(self, input, 'updateGradInput')
  if self.randomSamples == nil then
    error(string.format('%s:updateGradInput: must call updateOutput/forward first', torch.type(self)), 2)
  end
  C.indexmax_updateGradInput(self, input, gradOutput, self.gradInput, self.indices)
  return self.gradInput
end

-- randomSamples outlives a pass (fixed regions): state, not a buffer
function SpatialFractionalMaxPooling:memoryTraits()
  return {buffers = {indices = 'both'}, needsInput = false, needsOutput = false,
          state = {randomSamples = true}}
end

function SpatialFractionalMaxPooling:empty()
  self:clearState()
end

function SpatialFractionalMaxPooling:clearState()
  if self.indices then self.indices:set() end
  self.randomSamples = nil
  return parent.clearState(self)
end

-- Torch7 prints ratios with %d too (as 0 under LuaJIT; an error in Lua
-- 5.4): here they print with %g
function SpatialFractionalMaxPooling:__tostring__()
  local w = self.outW and string.format('%d', self.outW) or string.format('%g', self.ratioW)
  local h = self.outH and string.format('%d', self.outH) or string.format('%g', self.ratioH)
  return string.format('%s(%sx%s, %d,%d)', torch.type(self), w, h, self.poolSizeW, self.poolSizeH)
end
