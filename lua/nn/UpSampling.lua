-- nn.UpSampling(scale | {[odepth,] oheight, owidth} [, mode]): up-sampling
-- of a 4D (batch x channels x h x w) or 5D (batch x channels x d x h x w)
-- input. mode 'nearest' (the default; any unknown mode too, as Torch7)
-- needs an integer scale: every spatial size times scale. 'linear' (also
-- 'bilinear', 'trilinear') interpolates with corners aligned, as
-- nn.SpatialUpSamplingBilinear, to size*scale or to the given size (5D
-- needs odepth). Kernel: src/nn/th_nn_upsample.c.

local C = torch._C.nn
local UpSampling, parent = torch.class('nn.UpSampling', 'nn.Module')

local function posint(v, what)
  if type(v) ~= 'number' or v < 1 or math.floor(v) ~= v then
    error(string.format('nn.UpSampling: %s must be an integer >= 1, got %s', what, tostring(v)), 3)
  end
  return v
end

function UpSampling:__init(params, mode)
  parent.__init(self)
  if mode == 'linear' or mode == 'bilinear' or mode == 'trilinear' then
    self.mode = 'linear'
  else
    self.mode = 'nearest'
  end
  self.odepth, self.owidth, self.oheight, self.scale_factor = nil, nil, nil, nil
  if torch.type(params) == 'table' then
    if self.mode == 'nearest' then
      error('nn.UpSampling: nearest neighbour upsampling requires a scale_factor', 2)
    end
    if params.owidth == nil or params.oheight == nil then
      error('nn.UpSampling: output height and width parameters are required', 2)
    end
    self.owidth = posint(params.owidth, 'owidth')
    self.oheight = posint(params.oheight, 'oheight')
    self.odepth = params.odepth ~= nil and posint(params.odepth, 'odepth') or nil
  else
    self.scale_factor = posint(params, 'scale_factor')
  end
  self.inputSize = torch.LongStorage(5):fill(0)
  self.outputSize = torch.LongStorage(5):fill(0)
end

local function checkInput(self, input, method)
  if not torch.isTensor(input) or input:dim() < 4 or input:dim() > 5 then
    local got = torch.isTensor(input)
      and string.format('%dD %s', input:dim(), table.concat(input:size():totable(), 'x'))
      or torch.type(input)
    error(string.format('%s:%s: input must be 4D (batch x channels x h x w) or 5D (volumes), got %s',
                        torch.type(self), method, got), 3)
  end
  return input:dim() - 2
end

function UpSampling:setSize(input)
  local n = input:dim()
  for i = 1, n do
    self.inputSize[i] = input:size(i)
    self.outputSize[i] = input:size(i)
  end
  if self.scale_factor ~= nil then
    for i = 3, n do self.outputSize[i] = input:size(i) * self.scale_factor end
  else
    if n == 5 then
      if self.odepth == nil then
        error(string.format('%s:updateOutput: no output depth (odepth) was given for volumetric upsampling',
                            torch.type(self)), 3)
      end
      self.outputSize[3] = self.odepth
    end
    self.outputSize[n - 1] = self.oheight
    self.outputSize[n] = self.owidth
  end
end

function UpSampling:updateOutput(input)
  local nsp = checkInput(self, input, 'updateOutput')
  self:setSize(input)
  if self.mode == 'nearest' then
    C.upnearest_updateOutput(self, input, self.output, nsp, self.scale_factor)
  else
    local s = self.outputSize
    if nsp == 2 then
      C.uplinear_updateOutput(self, input, self.output, 2, s[3], s[4])
    else
      C.uplinear_updateOutput(self, input, self.output, 3, s[3], s[4], s[5])
    end
  end
  return self.output
end

function UpSampling:updateGradInput(input, gradOutput)
  local nsp = checkInput(self, input, 'updateGradInput')
  if self.mode == 'nearest' then
    C.upnearest_updateGradInput(self, input, gradOutput, self.gradInput, nsp, self.scale_factor)
  else
    C.uplinear_updateGradInput(self, input, gradOutput, self.gradInput, nsp)
  end
  return self.gradInput
end

-- backward reads only the input's sizes
function UpSampling:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function UpSampling:__tostring__()
  if self.scale_factor ~= nil then
    return string.format('%s(%dx, %s)', torch.type(self), self.scale_factor, self.mode)
  elseif self.odepth ~= nil then
    return string.format('%s(%dx%dx%d, %s)', torch.type(self), self.odepth, self.oheight, self.owidth,
                         self.mode)
  end
  return string.format('%s(%dx%d, %s)', torch.type(self), self.oheight, self.owidth, self.mode)
end
