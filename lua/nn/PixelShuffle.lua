-- nn.PixelShuffle(r): sub-pixel rearrangement (Shi et al., ESPCN): a
-- [batch x] C*r^2 x H x W input becomes [batch x] C x H*r x W*r, with
-- output (c, y*r + i, x*r + j) = input (c*r^2 + i*r + j, y, x). Backward
-- is the inverse rearrangement. Lua over views and one copy each way
-- (Torch7's permutation; no buffers).

local PixelShuffle, parent = torch.class('nn.PixelShuffle', 'nn.Module')

function PixelShuffle:__init(upscaleFactor)
  parent.__init(self)
  if (type(upscaleFactor) ~= 'number' or math.tointeger(upscaleFactor) == nil) or upscaleFactor < 1 then
    error(string.format('nn.PixelShuffle: upscaleFactor must be an integer >= 1, got %s',
                        tostring(upscaleFactor)), 2)
  end
  self.upscaleFactor = upscaleFactor
  self.upscaleFactorSquared = upscaleFactor * upscaleFactor
end

local function shape(t)
  return torch.isTensor(t) and string.format('%dD %s', t:dim(), table.concat(t:size():totable(), 'x'))
         or torch.type(t)
end

-- batch, channels out, height, width of the input
local function geometry(self, input, method)
  local r2 = self.upscaleFactorSquared
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4)
     or input:size(input:dim() - 2) % r2 ~= 0 then
    -- %s: the factor squared may be a float (a factor beyond 2^31.5)
    error(string.format('%s:%s: input must be 3D or 4D (batch) with channels a multiple of %s, got %s',
                        torch.type(self), method, r2, shape(input)), 3)
  end
  local b = input:dim() == 4 and input:size(1) or 1
  local d = input:dim()
  return b, input:size(d - 2) // r2, input:size(d - 1), input:size(d)
end

function PixelShuffle:updateOutput(input)
  local b, c, h, w = geometry(self, input, 'updateOutput')
  local r = self.upscaleFactor
  if input:dim() == 4 then
    self.output:resize(b, c, h * r, w * r)
  else
    self.output:resize(c, h * r, w * r)
  end
  local src = input:contiguous():view(b, c, r, r, h, w)
  self.output:view(b, c, h, r, w, r):copy(src:permute(1, 2, 5, 3, 6, 4))
  return self.output
end

function PixelShuffle:updateGradInput(input, gradOutput)
  local b, c, h, w = geometry(self, input, 'updateGradInput')
  local r = self.upscaleFactor
  local nOut = b * c * h * r * w * r
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= nOut or gradOutput:dim() ~= input:dim() then
    error(string.format('%s:updateGradInput: gradOutput must have the output size (%d elements, %dD), got %s',
                        torch.type(self), nOut, input:dim(), shape(gradOutput)), 2)
  end
  self.gradInput:resizeAs(input)
  local src = gradOutput:contiguous():view(b, c, h, r, w, r)
  self.gradInput:view(b, c, r, r, h, w):copy(src:permute(1, 2, 4, 6, 3, 5))
  return self.gradInput
end

-- backward reads only the input's sizes
function PixelShuffle:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end
