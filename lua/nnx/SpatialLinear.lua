-- nn.SpatialLinear(fanin, fanout) (nnx): the same Linear map applied at
-- every pixel of a fanin x H x W input: output[o][y][x] = bias[o] +
-- sum_i weight[o][i] * input[i][y][x] (output fanout x H x W). weight is
-- fanout x fanin, bias fanout, initialised uniform in +-1/sqrt(fanout).
-- Unlike nnx, the parameter gradients are accumulated in
-- accGradParameters (nnx did it in updateGradInput).
local SpatialLinear, parent = torch.class('nn.SpatialLinear', 'nn.Module')

function SpatialLinear:__init(fanin, fanout)
  parent.__init(self)
  self.fanin = fanin or 1
  self.fanout = fanout or 1
  for _, k in ipairs{'fanin', 'fanout'} do
    if type(self[k]) ~= 'number' or self[k] < 1 or self[k] % 1 ~= 0 then
      error(string.format('nn.SpatialLinear: %s must be an integer >= 1, got %s', k, tostring(self[k])), 2)
    end
  end
  self.weightDecay = 0
  self.weight = torch.Tensor(self.fanout, self.fanin)
  self.bias = torch.Tensor(self.fanout)
  self.gradWeight = torch.Tensor(self.fanout, self.fanin):zero()
  self.gradBias = torch.Tensor(self.fanout):zero()
  self:reset()
end

function SpatialLinear:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:size(1))
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv)
  return self
end

local function planes(self, input)
  if input:dim() ~= 3 or input:size(1) ~= self.fanin then
    error(string.format('nn.SpatialLinear: %d x H x W input expected, got %s', self.fanin,
                        table.concat(input:size():totable(), 'x')), 3)
  end
  return input:contiguous():view(self.fanin, input:size(2) * input:size(3))
end

function SpatialLinear:updateOutput(input)
  local x = planes(self, input)
  self.output:resize(self.fanout, input:size(2), input:size(3))
  local y = self.output:view(self.fanout, x:size(2))
  y:copy(self.bias:view(self.fanout, 1):expandAs(y))
  y:addmm(1, self.weight, x)
  return self.output
end

function SpatialLinear:updateGradInput(input, gradOutput)
  planes(self, input)
  self.gradInput:resizeAs(input)
  local g = gradOutput:contiguous():view(self.fanout, input:size(2) * input:size(3))
  self.gradInput:view(self.fanin, g:size(2)):mm(self.weight:t(), g)
  return self.gradInput
end

function SpatialLinear:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local x = planes(self, input)
  local g = gradOutput:contiguous():view(self.fanout, x:size(2))
  self.gradWeight:addmm(scale, g, x:t())
  self.gradBias:add(scale, g:sum(2):view(self.fanout))
  if self.weightDecay ~= 0 then self.gradWeight:add(self.weightDecay, self.weight) end
end

function SpatialLinear:decayParameters(decay)
  self.weight:add(-decay, self.weight)
  self.bias:add(-decay, self.bias)
end
