-- nnx.QDRiemaNNLinear(inputSize, outputSize [, gamma=0.01, qdFlag=true])
-- (nnx): an nn.Linear whose accGradParameters turns the gradient into a
-- Riemannian one (Ollivier's quasi-diagonal, or with qdFlag = false
-- diagonal, metric): running averages (rate gamma) of
--   Mii = gradOutput^2' * input^2, M0i = gradOutput^2' * input,
--   M00 = gradOutput^2' * 1
-- then, quasi-diagonal: gradWeight = (gradWeight .* M00 - M0i .* gradBias)
-- / (Mii .* M00 - M0i^2) (clamped to >= 1e-12), gradBias = (gradBias -
-- sum_i M0i .* gradWeight) / (M00 + 1e-12); diagonal: gradWeight / (Mii +
-- 1e-12), gradBias / (M00 + 1e-12). Input: a batch (N x inputSize).
-- reset() draws the weight from N(0, 1/sqrt(inputSize)) and zeroes the bias.
local QDRiemaNNLinear, parent = torch.class('nnx.QDRiemaNNLinear', 'nn.Linear')

function QDRiemaNNLinear:__init(inputSize, outputSize, gamma, qdFlag)
  parent.__init(self, inputSize, outputSize)
  self.qdFlag = qdFlag == nil and true or qdFlag
  self.gamma = gamma or 0.01
  self.matReg = 1e-12
  self.initMetric = true
  self.Mii = torch.Tensor(outputSize, inputSize)
  if self.qdFlag then self.M0i = torch.Tensor(outputSize, inputSize) end
  self.M00 = torch.Tensor(outputSize)
end

function QDRiemaNNLinear:reset()
  self.initMetric = true
  self.weight:normal(0, 1 / math.sqrt(self.weight:size(2)))
  self.bias:zero()
  return self
end

function QDRiemaNNLinear:accGradParameters(input, gradOutput)
  if input:dim() ~= 2 then
    error('nnx.QDRiemaNNLinear: a batch input (N x inputSize) expected, got ' .. input:dim() .. 'D', 2)
  end
  parent.accGradParameters(self, input, gradOutput)
  local g2t = torch.pow(gradOutput, 2):t()
  local ones = input.new(input:size(1)):fill(1)
  local rate = self.initMetric and 1 or self.gamma
  local keep = self.initMetric and 0 or 1 - self.gamma
  self.initMetric = false
  self.Mii:mul(keep):addmm(rate, g2t, torch.pow(input, 2))
  self.M00:mul(keep):addmv(rate, g2t, ones)
  if self.qdFlag then
    self.M0i:mul(keep):addmm(rate, g2t, input)
    local M00 = self.M00:view(-1, 1):expandAs(self.gradWeight)
    local numerator = torch.cmul(self.gradWeight, M00):add(-1, torch.cmul(self.M0i,
                                 self.gradBias:view(-1, 1):expandAs(self.M0i)))
    local denominator = torch.cmul(self.Mii, M00):add(-1, torch.pow(self.M0i, 2)):clamp(self.matReg, 1e25)
    self.gradWeight:copy(numerator:cdiv(denominator))
    self.gradBias:add(-1, torch.cmul(self.M0i, self.gradWeight):sum(2):view(-1))
                 :cdiv(torch.add(self.M00, self.matReg))
  else
    self.gradWeight:cdiv(torch.add(self.Mii, self.matReg))
    self.gradBias:cdiv(torch.add(self.M00, self.matReg))
  end
end
