-- nn.FunctionWrapper(init, updateOutput, updateGradInput) (nnx): a module
-- made of functions: init(self) runs once; forward returns
-- updateOutput(self, input), backward updateGradInput(self, input,
-- gradOutput). Their results become self.output / self.gradInput.
local FunctionWrapper, parent = torch.class('nn.FunctionWrapper', 'nn.Module')

function FunctionWrapper:__init(init, updateOutput, updateGradInput)
  parent.__init(self)
  for i, f in ipairs{init, updateOutput, updateGradInput} do
    if type(f) ~= 'function' then
      error(string.format('nn.FunctionWrapper(init, updateOutput, updateGradInput): argument #%d must be a '
                          .. 'function, got %s', i, type(f)), 2)
    end
  end
  init(self)
  self.fn_updateOutput = updateOutput
  self.fn_updateGradInput = updateGradInput
end

function FunctionWrapper:updateOutput(input)
  self.output = self.fn_updateOutput(self, input)
  return self.output
end

function FunctionWrapper:updateGradInput(input, gradOutput)
  self.gradInput = self.fn_updateGradInput(self, input, gradOutput)
  return self.gradInput
end
