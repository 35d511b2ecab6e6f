-- nn.SpatialLPPooling(nInputPlane, pnorm, kW, kH [, dW, dH]): LP pooling
-- over kW x kH windows (stride dW, dH, default the kernel) of a 3D or 4D
-- (batch) input: y = (sum over the window of x^p)^(1/p). Torch7 builds it
-- as an nn.Sequential of Square (or Power(p)), SpatialAveragePooling,
-- MulConstant(kW*kH) and Sqrt (or Power(1/p)), and prints as that
-- Sequential; here the same steps run as tensor ops around the average
-- pooling kernel (src/nn/th_nn_pool.c), with the same numbers and no
-- child modules. 'pnorm' is kept on the module (a Torch7 file, which lacks
-- it, gives it through its first child: Square or Power). No parameters.

local C = torch._C.nn
local SpatialLPPooling, parent = torch.class('nn.SpatialLPPooling', 'nn.Module')

function SpatialLPPooling:__init(nInputPlane, pnorm, kW, kH, dW, dH)
  parent.__init(self)
  local cls = 'nn.SpatialLPPooling'
  if type(pnorm) ~= 'number' or pnorm <= 0 then
    error(string.format('%s: pnorm must be a positive number, got %s', cls, tostring(pnorm)), 2)
  end
  for what, v in pairs{kW = kW, kH = kH, dW = dW or kW, dH = dH or kH} do
    if (type(v) ~= 'number' or math.tointeger(v) == nil) or v < 1 then
      error(string.format('%s: %s must be an integer >= 1, got %s', cls, what, tostring(v)), 2)
    end
  end
  self.nInputPlane = nInputPlane
  self.pnorm = pnorm
  self.kW = kW
  self.kH = kH
  self.dW = dW or kW
  self.dH = dH or kH
end

-- a module loaded from Torch7 holds its p in its first child
local function pnorm(self)
  if self.pnorm == nil and self.modules and self.modules[1] then
    self.pnorm = torch.type(self.modules[1]) == 'nn.Square' and 2 or self.modules[1].pow
  end
  return self.pnorm
end

function SpatialLPPooling:updateOutput(input)
  local p = pnorm(self)
  if not torch.isTensor(input) then
    error(string.format('%s:updateOutput: input must be a tensor, got %s', torch.type(self),
                        torch.type(input)), 2)
  end
  self._xp = self._xp or input.new()
  self._xp:resizeAs(input):copy(input)
  if p == 2 then self._xp:cmul(input) else self._xp:pow(p) end
  self._pooled = self._pooled or input.new()
  C.avgpool_updateOutput(self, self._xp, self._pooled)
  self._pooled:mul(self.kW * self.kH)
  self.output:resizeAs(self._pooled):copy(self._pooled)
  if p == 2 then self.output:sqrt() else self.output:pow(1 / p) end
  return self.output
end

function SpatialLPPooling:updateGradInput(input, gradOutput)
  local p = pnorm(self)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
    error(string.format('%s:updateGradInput: gradOutput must be the output size, got %s',
                        torch.type(self), torch.isTensor(gradOutput)
                          and table.concat(gradOutput:size():totable(), 'x') or torch.type(gradOutput)), 2)
  end
  -- back through the root: Sqrt's 0.5 go / y (0 where y is 0), or Power(1/p)
  self._g = self._g or input.new()
  if p == 2 then
    self._g:resizeAs(gradOutput):copy(gradOutput):cdiv(self.output):mul(0.5)
    self._g:maskedFill(self.output:eq(0), 0)
  else
    self._g:resizeAs(self._pooled):copy(self._pooled):pow(1 / p - 1):mul(1 / p):cmul(gradOutput)
  end
  self._g:mul(self.kW * self.kH)
  C.avgpool_updateGradInput(self, input, self._g, self.gradInput)
  -- and through the power: Square's 2 x, or Power(p)'s p x^(p-1)
  if p == 2 then
    self.gradInput:cmul(input):mul(2)
  else
    self._xp:resizeAs(input):copy(input):pow(p - 1):mul(p)
    self.gradInput:cmul(self._xp)
  end
  return self.gradInput
end

function SpatialLPPooling:memoryTraits()
  return {buffers = {_xp = 'both', _pooled = 'both', _g = 'backward'}, needsInput = true,
          needsOutput = true}
end

-- Torch7's module is a Sequential and prints as one
function SpatialLPPooling:__tostring__()
  local p = pnorm(self)
  local pool = string.format('nn.SpatialAveragePooling(%dx%d, %d,%d)', self.kW, self.kH, self.dW, self.dH)
  local steps = {p == 2 and 'nn.Square' or 'nn.Power', pool, 'nn.MulConstant',
                 p == 2 and 'nn.Sqrt' or 'nn.Power'}
  local s = 'nn.Sequential {\n  [input -> (1) -> (2) -> (3) -> (4) -> output]'
  for i, t in ipairs(steps) do s = s .. '\n  (' .. i .. '): ' .. t end
  return s .. '\n}'
end
