-- nn.SpatialPyramid(ratios, processors, kW, kH, dW, dH [, xDimIn, yDimIn,
-- xDimOut, yDimOut, prescaled_input]) (nnx): processes an image at several
-- scales. Scale i is the image downsampled by ratios[i] (block average),
-- processed by processors[i] (whose kernel is kW x kH with stride dW x dH);
-- the output is the table of the processors' outputs.
--   unfocused (default): the whole image, padded by the kernel's overhang
--     (kW-dW, kH-dH, split left/right), and each result upsampled back by
--     ratios[i] (nearest), so that every scale has the same size;
--     prescaled_input = true takes a table of already downscaled images
--   focus(x, y, w, h): only the window around pixel (x, y) that makes a
--     w x h processor output (default 1 x 1); focus() goes back.
-- Image sizes must be multiples of the ratios. The processors' parameters
-- are the module's.
local SpatialPyramid, parent = torch.class('nn.SpatialPyramid', 'nn.Module')

function SpatialPyramid:__init(ratios, processors, kW, kH, dW, dH, xDimIn, yDimIn, xDimOut, yDimOut,
                               prescaled_input)
  parent.__init(self)
  if type(ratios) ~= 'table' or type(processors) ~= 'table' or #ratios ~= #processors then
    error('nn.SpatialPyramid(ratios, processors, kW, kH, dW, dH, ...): two tables of the same length expected', 2)
  end
  for _, k in ipairs{'kW', 'kH', 'dW', 'dH'} do
    local v = ({kW = kW, kH = kH, dW = dW, dH = dH})[k]
    if type(v) ~= 'number' then error('nn.SpatialPyramid: ' .. k .. ' (number) expected, got ' .. type(v), 2) end
  end
  self.prescaled_input = prescaled_input or false
  self.ratios, self.processors = ratios, processors
  self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
  self.focused, self.x, self.y = false, 0, 0
  local wPad, hPad = kW - dW, kH - dH
  self.focused_pipeline = nn.ConcatTable()
  self.unfocused_pipeline = prescaled_input and nn.ParallelTable() or nn.ConcatTable()
  for i, r in ipairs(ratios) do
    -- focused: crop (negative padding, set by focus) then downsample
    self.focused_pipeline:add(nn.Sequential()
      :add(nn.SpatialPadding(0, 0, 0, 0, yDimIn, xDimIn))
      :add(nn.SpatialReSamplingEx{rwidth = 1 / r, rheight = 1 / r, xDim = xDimIn, yDim = yDimIn, mode = 'average'})
      :add(processors[i]))
    local seq = nn.Sequential()
    if not prescaled_input then
      seq:add(nn.SpatialReSamplingEx{rwidth = 1 / r, rheight = 1 / r, xDim = xDimIn, yDim = yDimIn, mode = 'average'})
      seq:add(nn.SpatialPadding(math.floor(wPad / 2), math.ceil(wPad / 2), math.floor(hPad / 2), math.ceil(hPad / 2),
                                yDimIn, xDimIn))
    end
    seq:add(processors[i])
    seq:add(nn.SpatialReSamplingEx{rwidth = r, rheight = r, xDim = xDimOut, yDim = yDimOut, mode = 'simple'})
    self.unfocused_pipeline:add(seq)
  end
end

-- focus(x, y [, w=1, h=1]) on pixel (x, y) for a w x h output; focus() unfocuses
function SpatialPyramid:focus(x, y, w, h)
  w, h = w or 1, h or 1
  if x and y then
    self.x, self.y, self.focused = x, y, true
    self.winWidth, self.winHeight = {}, {}
    for i, r in ipairs(self.ratios) do
      self.winWidth[i] = r * ((w - 1) * self.dW + self.kW)
      self.winHeight[i] = r * ((h - 1) * self.dH + self.kH)
    end
  else
    self.focused = false
  end
end

function SpatialPyramid:configureFocus(wImg, hImg)
  for i = 1, #self.ratios do
    local padder = self.focused_pipeline.modules[i].modules[1]
    padder.pad_l = -self.x + math.ceil(self.winWidth[i] / 2)
    padder.pad_r = self.x + math.floor(self.winWidth[i] / 2) - wImg
    padder.pad_t = -self.y + math.ceil(self.winHeight[i] / 2)
    padder.pad_b = self.y + math.floor(self.winHeight[i] / 2) - hImg
  end
end

function SpatialPyramid:_pipeline()
  return self.focused and self.focused_pipeline or self.unfocused_pipeline
end

function SpatialPyramid:updateOutput(input)
  if not self.prescaled_input then
    for _, r in ipairs(self.ratios) do
      if input:size(2) % r ~= 0 or input:size(3) % r ~= 0 then
        error(string.format('nn.SpatialPyramid: input sizes (%dx%d) must be multiples of the ratios',
                            input:size(2), input:size(3)), 2)
      end
    end
  end
  if self.focused then self:configureFocus(input:size(3), input:size(2)) end
  self.output = self:_pipeline():updateOutput(input)
  return self.output
end

function SpatialPyramid:updateGradInput(input, gradOutput)
  self.gradInput = self:_pipeline():updateGradInput(input, gradOutput)
  return self.gradInput
end

function SpatialPyramid:accGradParameters(input, gradOutput, scale)
  self:_pipeline():accGradParameters(input, gradOutput, scale)
end

function SpatialPyramid:zeroGradParameters()
  self.focused_pipeline:zeroGradParameters()
  self.unfocused_pipeline:zeroGradParameters()
end

function SpatialPyramid:updateParameters(learningRate)
  self:_pipeline():updateParameters(learningRate)
end

function SpatialPyramid:parameters()
  return self:_pipeline():parameters()
end

function SpatialPyramid:__tostring__()
  return 'nn.SpatialPyramid (' .. (self.focused and 'focused' or 'unfocused') .. ')\n    |    '
         .. tostring(self:_pipeline()):gsub('\n', '\n    |    ')
end
