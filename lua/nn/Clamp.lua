-- nn.Clamp(min_value, max_value): y = clamp(x, min, max), any shape: Torch7's
-- HardTanh under its own class name (without the in-place argument).

local Clamp, parent = torch.class('nn.Clamp', 'nn.HardTanh')

function Clamp:__init(min_value, max_value)
  parent.__init(self, min_value, max_value)
end
