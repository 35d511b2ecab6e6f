-- nn.AddConstant(c [, inplace]): y = x + c, any shape; c may also be a 1D
-- tensor matched to the last dimension of a 1D or 2D input (Torch7). In
-- place, the input is shifted and the output is a view of it; backward
-- subtracts c again to restore the input.

local AddConstant, parent = torch.class('nn.AddConstant', 'nn.Module')

function AddConstant:__init(constant_scalar, ip)
  parent.__init(self)
  if type(constant_scalar) ~= 'number' and not torch.isTensor(constant_scalar) then
    error(string.format('nn.AddConstant: constant must be a number or a tensor, got %s',
                        torch.type(constant_scalar)), 2)
  end
  if ip ~= nil and type(ip) ~= 'boolean' then
    error(string.format('nn.AddConstant: in-place flag must be boolean, got %s', type(ip)), 2)
  end
  self.constant_scalar = constant_scalar
  self.inplace = ip or false
end

-- the constant in a form input:add() takes
local function constant(self, input)
  local c = self.constant_scalar
  if type(c) == 'number' then return c end
  local n = input:dim()
  if not (n == 1 or n == 2) or input:size(n) ~= c:nElement() then
    error(string.format("%s:updateOutput: input must be 1D or 2D with %d elements in its last dimension (the constant's size), got %s",
                        torch.type(self), c:nElement(), nn.utils.shapeString(input)), 3)
  end
  if n == 2 then return c:view(1, c:nElement()):expand(input:size(1), c:nElement()) end
  return c:view(c:nElement())
end

function AddConstant:updateOutput(input)
  local c = constant(self, input)
  if self.inplace then
    input:add(c)
    self.output:set(input)
  else
    self.output:resizeAs(input):copy(input):add(c)
  end
  return self.output
end

function AddConstant:updateGradInput(input, gradOutput)
  if self.inplace then
    self.gradInput:set(gradOutput)
    local c = constant(self, input)
    if type(c) == 'number' then input:add(-c) else input:add(-1, c) end  -- restore the input
  else
    self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  end
  return self.gradInput
end

-- in place, backward reads the input (to shift it back) and hands the
-- gradOutput storage on as gradInput, unwritten
function AddConstant:memoryTraits()
  return {buffers = {}, needsInput = self.inplace or false, needsOutput = false,
          inplace = 'inplace', writesGradOutput = false}
end

function AddConstant:inplaceAllowed()
  return true
end
