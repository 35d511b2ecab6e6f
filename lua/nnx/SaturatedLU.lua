-- nn.SaturatedLU([th=-1, v=-1, th2=1, v2=1]) (nnx): output = v where
-- input < th, v2 where input > th2, the input elsewhere; the gradient is
-- zero in the saturated regions.
local SaturatedLU, parent = torch.class('nn.SaturatedLU', 'nn.Module')

function SaturatedLU:__init(th, v, th2, v2)
  parent.__init(self)
  for i, a in ipairs{th, v, th2, v2} do
    if a ~= nil and type(a) ~= 'number' then
      error(string.format('nn.SaturatedLU(lower-bound, value, upper-bound, value2): argument #%d must be a '
                          .. 'number, got %s', i, type(a)), 2)
    end
  end
  self.threshold, self.val = th or -1, v or -1
  self.threshold2, self.val2 = th2 or 1, v2 or 1
end

function SaturatedLU:updateOutput(input)
  self.output:resizeAs(input):copy(input)
  self.output[input:lt(self.threshold)] = self.val
  self.output[input:gt(self.threshold2)] = self.val2
  return self.output
end

function SaturatedLU:updateGradInput(input, gradOutput)
  self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  self.gradInput[input:lt(self.threshold)] = 0
  self.gradInput[input:gt(self.threshold2)] = 0
  return self.gradInput
end
