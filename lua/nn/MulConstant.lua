-- nn.MulConstant(c [, inplace]): y = c x, any shape. In place, the input is
-- scaled and the output is a view of it; backward scales gradOutput in
-- place and divides the input back (so c must not be 0 in place).

local MulConstant, parent = torch.class('nn.MulConstant', 'nn.Module')

function MulConstant:__init(constant_scalar, ip)
  parent.__init(self)
  if type(constant_scalar) ~= 'number' then
    error(string.format('nn.MulConstant: constant must be a number, got %s',
                        torch.type(constant_scalar)), 2)
  end
  if ip ~= nil and type(ip) ~= 'boolean' then
    error(string.format('nn.MulConstant: in-place flag must be boolean, got %s', type(ip)), 2)
  end
  self.constant_scalar = constant_scalar
  self.inplace = ip or false
  if self.inplace and constant_scalar == 0 then
    error('nn.MulConstant: in-place processing needs a non-zero constant (backward divides the input back by it)', 2)
  end
end

function MulConstant:updateOutput(input)
  if self.inplace then
    input:mul(self.constant_scalar)
    self.output:set(input)
  else
    -- one pass (x * c, as copy then mul gives)
    self.output:resizeAs(input):mul(input, self.constant_scalar)
  end
  return self.output
end

function MulConstant:updateGradInput(input, gradOutput)
  if self.gradInput then
    if self.inplace then
      gradOutput:mul(self.constant_scalar)
      self.gradInput:set(gradOutput)
      input:div(self.constant_scalar)  -- restore the input
    else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput):mul(self.constant_scalar)
    end
    return self.gradInput
  end
end

-- in place, backward rewrites the input back
function MulConstant:memoryTraits()
  return {buffers = {}, needsInput = self.inplace or false, needsOutput = false,
          inplace = 'inplace'}
end

-- in place, backward divides the input back by the constant
function MulConstant:inplaceAllowed()
  if self.constant_scalar == 0 then
    return false, 'in-place processing needs a non-zero constant (backward divides the input back by it)'
  end
  return true
end

