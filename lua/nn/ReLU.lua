-- nn.ReLU([inplace]): Threshold(0, 0, inplace), y = max(0, x).

local ReLU, parent = torch.class('nn.ReLU', 'nn.Threshold')

function ReLU:__init(p)
  parent.__init(self, 0, 0, p)
end
