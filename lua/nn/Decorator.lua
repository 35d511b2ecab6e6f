-- nn.Decorator(module): a container of one module that it runs unchanged;
-- the base of modules that add something around another (nn.Bottle,
-- nn.DontCast, nn.Profile). Its output and gradInput are the module's
-- (aliases, as nn.Sequential's), parameters(), type(), clone, training()/
-- evaluate() and clearState reach the module as in any container.
-- Decorator.decorate(class) gives another class these methods.

require 'nn.Container'
local torch = torch
local nn = nn

local Decorator, parent = torch.class('nn.Decorator', 'nn.Container')

function Decorator:__init(module)
  parent.__init(self)
  if not torch.isTypeOf(module, 'nn.Module') then
    error(string.format('%s: nn.Module expected, got %s', torch.type(self), torch.type(module)), 3)
  end
  -- so that it can be handled like a Container
  self.modules[1] = module
end

function Decorator:updateOutput(input)
  self.output = self:rethrowErrors(self.modules[1], 1, 'updateOutput', input)
  return self.output
end

function Decorator:updateGradInput(input, gradOutput)
  self.gradInput = self:rethrowErrors(self.modules[1], 1, 'updateGradInput', input, gradOutput)
  return self.gradInput
end

function Decorator:accGradParameters(input, gradOutput, scale)
  self:rethrowErrors(self.modules[1], 1, 'accGradParameters', input, gradOutput, scale)
end

function Decorator:accUpdateGradParameters(input, gradOutput, lr)
  self:rethrowErrors(self.modules[1], 1, 'accUpdateGradParameters', input, gradOutput, lr)
end

function Decorator:sharedAccUpdateGradParameters(input, gradOutput, lr)
  self:rethrowErrors(self.modules[1], 1, 'sharedAccUpdateGradParameters', input, gradOutput, lr)
end

function Decorator:__tostring__()
  return torch.type(self) .. ' @ ' .. tostring(self.modules[1])
end

-- the container reads none of its child's tensors: it hands them on
function Decorator:memoryTraits()
  local tr = parent.memoryTraits(self)
  tr.childOutputs, tr.childGradInputs, tr.readsGradOutput = false, false, false
  return tr
end

-- gives 'class' (a class deriving from another base) Decorator's behaviour
function Decorator.decorate(class)
  for _, name in ipairs{'updateOutput', 'updateGradInput', 'accGradParameters', 'accUpdateGradParameters',
                        'sharedAccUpdateGradParameters', '__tostring__', 'memoryTraits'} do
    class[name] = Decorator[name]
  end
end

return Decorator
