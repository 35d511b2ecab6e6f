-- nn.VolumetricFractionalMaxPooling(poolSizeT, poolSizeW, poolSizeH, outT, outW, outH)
-- or (poolSizeT, poolSizeW, poolSizeH, ratioT, ratioW, ratioH): fractional max
-- pooling (Graham 2014) in 3D. Input is Torch7's layout: 4D planes x H x W x T
-- or 5D (batch) - time last. Each output cell is the max of a
-- poolSizeT x poolSizeW x poolSizeH region whose starts are drawn per plane
-- from 3 uniform samples ('randomSamples', batch x planes x 3: T, W, H),
-- fresh at every forward unless :fixPoolingRegions(); the output is
-- outT x outW x outH, or floor(ratio * input size) with ratios in (0, 1).
-- 'indices' records the 1-based position (h*W + w)*T + t + 1 of each max.
-- Kernel: src/nn/th_nn_volpool.c.

local C = torch._C.nn
local VolumetricFractionalMaxPooling, parent =
  torch.class('nn.VolumetricFractionalMaxPooling', 'nn.Module')

function VolumetricFractionalMaxPooling:__init(poolSizeT, poolSizeW, poolSizeH, arg1, arg2, arg3)
  parent.__init(self)
  local cls = torch.type(self)
  for _, p in ipairs({{poolSizeT, 'poolSizeT'}, {poolSizeW, 'poolSizeW'}, {poolSizeH, 'poolSizeH'}}) do
    local i = math.tointeger(p[1])
    if i == nil or i < 2 then
      error(string.format('%s: %s must be an integer >= 2, got %s', cls, p[2], tostring(p[1])), 2)
    end
  end
  for _, a in ipairs({arg1, arg2, arg3}) do
    if type(a) ~= 'number' or a <= 0 then
      error(string.format('%s: the output sizes (integers >= 1) or ratios (in (0, 1)) must be positive numbers, got %s, %s, %s',
                          cls, tostring(arg1), tostring(arg2), tostring(arg3)), 2)
    end
  end
  self.poolSizeT = math.tointeger(poolSizeT)
  self.poolSizeW = math.tointeger(poolSizeW)
  self.poolSizeH = math.tointeger(poolSizeH)
  -- random samples are drawn anew at every forward unless fixed (for tests)
  self.randomSamples = nil
  self.newRandomPool = false
  if arg1 >= 1 and arg2 >= 1 and arg3 >= 1 then
    for _, a in ipairs({arg1, arg2, arg3}) do
      if math.tointeger(a) == nil then
        error(string.format('%s: output sizes must be integers, got %s, %s, %s', cls,
                            tostring(arg1), tostring(arg2), tostring(arg3)), 2)
      end
    end
    self.outT, self.outW, self.outH = math.tointeger(arg1), math.tointeger(arg2), math.tointeger(arg3)
  else
    if not (arg1 < 1 and arg2 < 1 and arg3 < 1) then
      error(string.format('%s: give three output sizes (>= 1) or three ratios (in (0, 1)), got %s, %s, %s',
                          cls, tostring(arg1), tostring(arg2), tostring(arg3)), 2)
    end
    self.ratioT, self.ratioW, self.ratioH = arg1, arg2, arg3
  end
end

local function sizestr(t)
  local s = {}
  for d = 1, t:dim() do s[d] = tostring(t:size(d)) end
  return #s > 0 and table.concat(s, 'x') or 'empty'
end

local function checkInput(self, input, method)
  if not torch.isTensor(input) then
    error(string.format('%s:%s: input must be a tensor, got %s', torch.type(self), method,
                        torch.type(input)), 3)
  end
  local t = torch.type(input)
  if t ~= 'torch.FloatTensor' and t ~= 'torch.DoubleTensor' then
    error(string.format('%s:%s: input must be a torch.FloatTensor or torch.DoubleTensor, got %s',
                        torch.type(self), method, t), 3)
  end
  if input:dim() ~= 4 and input:dim() ~= 5 then
    error(string.format('%s:%s: input must be 4D or 5D (batch), planes x H x W x T, got %dD %s',
                        torch.type(self), method, input:dim(), sizestr(input)), 3)
  end
end

-- one sample per plane and dimension, redrawn unless fixed
function VolumetricFractionalMaxPooling:initSampleBuffer_(input)
  local batch = input:dim() == 4 and 1 or input:size(1)
  local planes = input:size(input:dim() - 3)
  if self.randomSamples ~= nil and torch.type(self.randomSamples) ~= torch.type(input) then
    self.randomSamples = self.randomSamples:typeAs(input)   -- the same regions in the input's type
  end
  if self.randomSamples == nil then
    self.randomSamples = input.new():resize(batch, planes, 3):uniform()
  elseif self.randomSamples:size(1) ~= batch or self.randomSamples:size(2) ~= planes then
    self.randomSamples:resize(batch, planes, 3):uniform()
  elseif not self.newRandomPool then
    self.randomSamples:uniform()
  end
end

function VolumetricFractionalMaxPooling:getOutputSizes_(input, method)
  if self.ratioT == nil then return self.outT, self.outW, self.outH end
  local n = input:dim()
  local oT = math.floor(input:size(n) * self.ratioT)
  local oW = math.floor(input:size(n - 1) * self.ratioW)
  local oH = math.floor(input:size(n - 2) * self.ratioH)
  if oT < 1 or oW < 1 or oH < 1 then
    error(string.format('%s:%s: the reduction ratios %g,%g,%g (TxWxH) give an empty output for input %s',
                        torch.type(self), method, self.ratioT, self.ratioW, self.ratioH,
                        sizestr(input)), 3)
  end
  return oT, oW, oH
end

function VolumetricFractionalMaxPooling:fixPoolingRegions(val)
  if val == nil then val = true end
  self.newRandomPool = val
  return self
end

function VolumetricFractionalMaxPooling:updateOutput(input)
  checkInput(self, input, 'updateOutput')
  if torch.type(self.indices) ~= 'torch.LongTensor' then self.indices = torch.LongTensor() end
  self:initSampleBuffer_(input)
  local oT, oW, oH = self:getOutputSizes_(input, 'updateOutput')
  C.volfmp_updateOutput(self, input, self.output, self.indices, self.randomSamples, oT, oW, oH)
  return self.output
end

function VolumetricFractionalMaxPooling:updateGradInput(input, gradOutput)
  checkInput(self, input, 'updateGradInput')
  if self.randomSamples == nil or self.indices == nil then
    error(string.format('%s:updateGradInput: call updateOutput/forward first', torch.type(self)), 2)
  end
  local oT, oW, oH = self:getOutputSizes_(input, 'updateGradInput')
  C.volfmp_updateGradInput(self, input, gradOutput, self.gradInput, self.indices, oT, oW, oH)
  return self.gradInput
end

-- randomSamples places the regions (kept across calls when fixed);
-- backward reads only the input's sizes
function VolumetricFractionalMaxPooling:memoryTraits()
  return {buffers = {indices = 'both'}, needsInput = false, needsOutput = false,
          state = {randomSamples = true}}
end

function VolumetricFractionalMaxPooling:empty()
  self:clearState()
end

function VolumetricFractionalMaxPooling:clearState()
  if self.indices then self.indices:set() end
  self.randomSamples = nil
  return parent.clearState(self)
end

-- Torch7's text: ratios go through %d too, which truncates them to 0
function VolumetricFractionalMaxPooling:__tostring__()
  local function int(v) return math.tointeger(v) or math.floor(v) end
  return string.format('%s(%dx%dx%d, %d,%d,%d)', torch.type(self),
                       int(self.outT or self.ratioT), int(self.outW or self.ratioW),
                       int(self.outH or self.ratioH), self.poolSizeT, self.poolSizeW, self.poolSizeH)
end
