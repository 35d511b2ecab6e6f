-- nn.SpatialClassifier([classifier]) (nnx): applies a module that takes
-- batches of K-vectors (HW x K -> HW x N, e.g. nn.Linear, nn.LogSoftMax)
-- at every pixel of a K x H x W input; the output is N x H x W (or the
-- HW x N matrix when self.spatialOutput = false). classifier defaults to
-- an empty nn.Sequential; :add(m) appends to it.
local SpatialClassifier, parent = torch.class('nn.SpatialClassifier', 'nn.Container')

function SpatialClassifier:__init(classifier)
  parent.__init(self)
  self.classifier = classifier or nn.Sequential()
  self.spatialOutput = true
  self.modules = {self.classifier}
  self.inputT = torch.Tensor()
  self.gradOutputT = torch.Tensor()
end

function SpatialClassifier:add(module)
  self.classifier:add(module)
  return self
end

-- the HW x K matrix of the pixels' vectors
function SpatialClassifier:_pixels(input)
  if input:dim() ~= 3 then
    error(string.format('nn.SpatialClassifier: 3D input (K x H x W) expected, got %dD', input:dim()), 3)
  end
  local K, HW = input:size(1), input:size(2) * input:size(3)
  self.inputT = self.inputT:typeAs(input)
  self.inputT:resize(HW, K):copy(input:contiguous():view(K, HW):t())
  return self.inputT
end

function SpatialClassifier:_gradT(input, gradOutput)
  if not self.spatialOutput then return gradOutput end
  local N, HW = gradOutput:size(1), input:size(2) * input:size(3)
  self.gradOutputT = self.gradOutputT:typeAs(gradOutput)
  self.gradOutputT:resize(HW, N):copy(gradOutput:contiguous():view(N, HW):t())
  return self.gradOutputT
end

function SpatialClassifier:updateOutput(input)
  local outT = self.classifier:updateOutput(self:_pixels(input))
  if self.spatialOutput then
    local N = outT:size(2)
    self.output = self.output:typeAs(outT)
    self.output:resize(N, input:size(2), input:size(3))
    self.output:view(N, outT:size(1)):copy(outT:t())
  else
    self.output = outT
  end
  return self.output
end

function SpatialClassifier:updateGradInput(input, gradOutput)
  local gT = self.classifier:updateGradInput(self:_pixels(input), self:_gradT(input, gradOutput))
  local K = input:size(1)
  self.gradInput:resizeAs(input)
  self.gradInput:view(K, gT:size(1)):copy(gT:t())
  return self.gradInput
end

function SpatialClassifier:accGradParameters(input, gradOutput, scale)
  self.classifier:accGradParameters(self:_pixels(input), self:_gradT(input, gradOutput), scale)
end
