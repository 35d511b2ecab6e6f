-- nn.SpatialNormalization(nInputPlane, kernel [, threshold]) (nnx;
-- Torch7 later called it SpatialContrastiveNormalization): local contrast
-- normalisation of an nInputPlane x H x W (or H x W) input, with border
-- corrections so that sizes are kept.
--   mean = sum over planes of (input * k) / coef, coef = the same of ones
--   centred = input - mean (every plane)
--   std = sqrt(sum over planes of (centred^2 * k)) / coef
--   output = centred / max(std, t), t = threshold, or by default
--            max(mean of std, 1e-3) (computed per forward, taken as a
--            constant by backward)
-- '*' is a zero-padded 2D convolution with k = kernel / sum(kernel) (an
-- even size pads one less on the right/bottom); kernel may also be two 1D
-- kernels {Kx1, 1xK}, applied one after the other. Built from nn modules
-- (SpatialPadding, SpatialConvolutionMap, Sum, Replicate, ...), so it has
-- the nn gradient.
local SpatialNormalization, parent = torch.class('nn.SpatialNormalization', 'nn.Module')

-- padding, per-plane convolution with kernel, sum over planes, replicated
local function smoother(nf, kernel)
  local kh, kw = kernel:size(1), kernel:size(2)
  local padW, padH = math.floor(kw / 2), math.floor(kh / 2)
  local seq = nn.Sequential()
  seq:add(nn.SpatialPadding(padW, padW - (kw % 2 == 0 and 1 or 0), padH, padH - (kh % 2 == 0 and 1 or 0)))
  local conv = nn.SpatialConvolutionMap(nn.tables.oneToOne(nf), kw, kh)
  for i = 1, nf do conv.weight[i]:copy(kernel) end
  conv.bias:zero()
  seq:add(conv)
  seq:add(nn.Sum(1))
  seq:add(nn.Replicate(nf))
  return seq
end

local function smoothers(nf, k1, k2)
  if not k2 then return smoother(nf, k1) end
  return nn.Sequential():add(smoother(nf, k1)):add(smoother(nf, k2))
end

function SpatialNormalization:__init(nInputPlane, kernel, threshold)
  parent.__init(self)
  if type(nInputPlane) ~= 'number' or nInputPlane < 1 then
    error('nn.SpatialNormalization(nInputPlane, kernel [, threshold]): nInputPlane (number) expected, got '
          .. tostring(nInputPlane), 2)
  end
  local k1, k2 = kernel, nil
  if type(kernel) == 'table' and not torch.isTensor(kernel) then k1, k2 = kernel[1], kernel[2] end
  if not torch.isTensor(k1) or k1:dim() ~= 2 or (k2 ~= nil and (not torch.isTensor(k2) or k2:dim() ~= 2)) then
    error('nn.SpatialNormalization: kernel must be a 2D tensor or a table of two 2D (1D-shaped) tensors', 2)
  end
  k1 = k1:clone():div(k1:sum())
  if k2 then k2 = k2:clone():div(k2:sum()) end
  self.kernel = k2 and {k1, k2} or k1
  self.nfeatures = nInputPlane
  self.fixedThres = threshold
  self.convo = smoothers(nInputPlane, k1, k2)
  self.convostd = smoothers(nInputPlane, k1, k2)
  self.squareMod = nn.Square()
  self.sqrtMod = nn.Sqrt()
  self.subtractMod = nn.CSubTable()
  self.meanDiviseMod = nn.CDivTable()
  self.stdDiviseMod = nn.CDivTable()
  self.diviseMod = nn.CDivTable()
  self.thresMod = nn.Threshold()
  self.coef = torch.Tensor()
end

function SpatialNormalization:_input(input)
  if input:dim() == 2 then return input:view(1, input:size(1), input:size(2)) end
  if input:dim() ~= 3 or input:size(1) ~= self.nfeatures then
    error(string.format('nn.SpatialNormalization: %d x H x W input expected, got %s', self.nfeatures,
                        table.concat(input:size():totable(), 'x')), 3)
  end
  return input
end

function SpatialNormalization:updateOutput(input)
  local x = self:_input(input)
  if self.coef:dim() ~= 3 or self.coef:size(2) ~= x:size(2) or self.coef:size(3) ~= x:size(3)
     or self.coef:type() ~= x:type() then
    self.coef = self.convo:updateOutput(x.new(self.nfeatures, x:size(2), x:size(3)):fill(1)):clone()
  end
  self.inConvo = self.convo:updateOutput(x)
  self.inMean = self.meanDiviseMod:updateOutput{self.inConvo, self.coef}
  self.inputZeroMean = self.subtractMod:updateOutput{x, self.inMean}
  self.inputZeroMeanSq = self.squareMod:updateOutput(self.inputZeroMean)
  self.inConvoVar = self.convostd:updateOutput(self.inputZeroMeanSq)
  self.inStdDevNotUnit = self.sqrtMod:updateOutput(self.inConvoVar)
  self.inStdDev = self.stdDiviseMod:updateOutput{self.inStdDevNotUnit, self.coef}
  local t = self.fixedThres or math.max(self.inStdDev:mean(), 1e-3)
  self.thresMod.threshold, self.thresMod.val = t, t
  self.stdDev = self.thresMod:updateOutput(self.inStdDev)
  local out = self.diviseMod:updateOutput{self.inputZeroMean, self.stdDev}
  self.output:resizeAs(input):copy(out)
  return self.output
end

function SpatialNormalization:updateGradInput(input, gradOutput)
  local x = self:_input(input)
  local go = gradOutput:viewAs(self.inputZeroMean)
  local gDiv = self.diviseMod:updateGradInput({self.inputZeroMean, self.stdDev}, go)
  local gZeroMean = gDiv[1]:clone()
  local gStd = self.thresMod:updateGradInput(self.inStdDev, gDiv[2])
  local gStdNotUnit = self.stdDiviseMod:updateGradInput({self.inStdDevNotUnit, self.coef}, gStd)[1]
  local gVar = self.sqrtMod:updateGradInput(self.inConvoVar, gStdNotUnit)
  local gZeroMeanSq = self.convostd:updateGradInput(self.inputZeroMeanSq, gVar)
  gZeroMean:add(self.squareMod:updateGradInput(self.inputZeroMean, gZeroMeanSq))
  local gDiff = self.subtractMod:updateGradInput({x, self.inMean}, gZeroMean)
  local gConvo = self.meanDiviseMod:updateGradInput({self.inConvo, self.coef}, gDiff[2])[1]
  self.gradInput:resizeAs(input):copy(gDiff[1])
  self.gradInput:add(self.convo:updateGradInput(x, gConvo):viewAs(input))
  return self.gradInput
end
