-- nn.SpatialFovea{nInputPlane=, ratios=, processors= [, preProcessors=,
-- fov=1, sub=1, bilinear=false, cachePrePreproc=false]} (nnx): a
-- multi-scale pipeline over a nInputPlane x H x W image:
--   input -> downsample by ratios[i] -> preProcessors[i] -> pad (fov-sub,
--   split) -> processors[i] -> upsample by ratios[i] -> planes stacked
-- Downsampling is a block average (nn.SpatialSubSampling), or bilinear
-- (nn.SpatialReSampling) with bilinear = true; upsampling is nearest
-- (nn.SpatialUpSampling) or bilinear. focus(x, y [, fov]) makes the
-- next passes process only the fov x fov window of each scale at pixel
-- (x, y) (no upsampling: every scale gives the same small output);
-- focus() processes everything again. cachePrePreproc keeps the padded
-- scales of inputs seen before (keyed by their sum and std) and then skips
-- the backward past the processors. The processors' parameters are the
-- module's (self.modules).
local SpatialFovea, parent = torch.class('nn.SpatialFovea', 'nn.Module')

function SpatialFovea:__init(...)
  parent.__init(self)
  xlua.unpack_class(self, {...}, 'nn.SpatialFovea', 'a multi-scale fovea',
    {arg = 'nInputPlane', type = 'number', help = 'number of input planes', req = true},
    {arg = 'ratios', type = 'table', help = 'list of downsampling ratios', req = true},
    {arg = 'processors', type = 'table', help = 'list of processors (one per scale)', req = true},
    {arg = 'preProcessors', type = 'table', help = 'list of preprocessors (applied before padding)'},
    {arg = 'fov', type = 'number', help = "field of view (the processors' receptive field)", default = 1},
    {arg = 'sub', type = 'number', help = "global subsampling (the processors' subsampling)", default = 1},
    {arg = 'bilinear', type = 'boolean', help = 'bilinear interpolation', default = false},
    {arg = 'cachePrePreproc', type = 'boolean', help = 'cache the preprocessed input', default = false})
  if #self.processors ~= #self.ratios then
    error(string.format('nn.SpatialFovea: %d processors for %d ratios (scales)', #self.processors, #self.ratios), 2)
  end
  self.preProcessors = self.preProcessors or {}
  self.padding = self.fov - self.sub
  self.modules = self.processors
  self.downsamplers, self.padders, self.upsamplers = {}, {}, {}
  self.pyramid, self.preProcessed, self.padded, self.narrowed, self.processed, self.upsampled = {}, {}, {}, {}, {},
    {}
  self.gradPadded = {}
  self:reset()
end

function SpatialFovea:focus(x, y, fov)
  self.x, self.y = x, y
  self.fov = fov or self.fov
  self.focused = (x ~= nil and y ~= nil and self.fov ~= nil)
end

-- the resamplers and padders of each scale, of the module's type
function SpatialFovea:configure()
  local t = self.output:type()
  for i, r in ipairs(self.ratios) do
    if self.bilinear then
      self.downsamplers[i] = nn.SpatialReSampling(1 / r, 1 / r)
      self.upsamplers[i] = nn.SpatialReSampling(r, r)
    else
      self.downsamplers[i] = nn.SpatialSubSampling(self.nInputPlane, r, r, r, r)
      self.downsamplers[i].weight:fill(1 / (r * r))
      self.downsamplers[i].bias:zero()
      self.upsamplers[i] = nn.SpatialUpSampling(r, r)
    end
    local pad = math.floor(self.padding / 2)
    self.padders[i] = self.padding == 0 and nn.Identity() or nn.SpatialPadding(pad, pad, pad, pad)
    self.downsamplers[i]:type(t)
    self.upsamplers[i]:type(t)
    self.padders[i]:type(t)
  end
end

-- the top-left corner of the focus window at scale i
function SpatialFovea:_corner(i)
  local r, sub = self.ratios[i], self.sub
  local ox = math.floor(math.floor((self.x - 1) / r) / sub) * sub + 1
  local oy = math.floor(math.floor((self.y - 1) / r) / sub) * sub + 1
  return ox, oy
end

function SpatialFovea:updateOutput(input)
  if input:dim() ~= 3 or input:size(1) ~= self.nInputPlane then
    error(string.format('nn.SpatialFovea: %d x H x W input expected, got %s', self.nInputPlane,
                        table.concat(input:size():totable(), 'x')), 2)
  end
  self:configure()
  local n = #self.ratios
  local hash, cached
  if self.cachePrePreproc then
    self.cachedPreProcessed = self.cachedPreProcessed or {}
    hash = tostring(input:sum()) .. tostring(input:std())
    cached = self.cachedPreProcessed[hash]
  end
  if cached then
    for i = 1, n do self.padded[i] = cached[i] end
  else
    for i = 1, n do
      self.pyramid[i] = self.downsamplers[i]:updateOutput(input)
      self.preProcessed[i] = self.preProcessors[i] and self.preProcessors[i]:updateOutput(self.pyramid[i])
                             or self.pyramid[i]
      self.padded[i] = self.padders[i]:updateOutput(self.preProcessed[i])
    end
    if self.cachePrePreproc then
      local copy = {}
      for i = 1, n do copy[i] = self.padded[i]:clone() end
      self.cachedPreProcessed[hash] = copy
    end
  end
  local planes = 0
  for i = 1, n do
    if self.focused then
      local ox, oy = self:_corner(i)
      self.narrowed[i] = self.padded[i]:narrow(3, ox, self.fov):narrow(2, oy, self.fov)
    else
      self.narrowed[i] = self.padded[i]
    end
    self.processed[i] = self.processors[i]:updateOutput(self.narrowed[i])
    self.upsampled[i] = self.focused and self.processed[i] or self.upsamplers[i]:updateOutput(self.processed[i])
    planes = planes + self.upsampled[i]:size(1)
  end
  self.output:resize(planes, self.upsampled[1]:size(2), self.upsampled[1]:size(3))
  local first = 1
  for i = 1, n do
    self.output:narrow(1, first, self.upsampled[i]:size(1)):copy(self.upsampled[i])
    first = first + self.upsampled[i]:size(1)
  end
  return self.output
end

function SpatialFovea:updateGradInput(input, gradOutput)
  local n = #self.ratios
  local first, gradNarrowed = 1, {}
  self.gradProcessed = {}
  for i = 1, n do
    local g = gradOutput:narrow(1, first, self.upsampled[i]:size(1))
    first = first + self.upsampled[i]:size(1)
    self.gradProcessed[i] = self.focused and g or self.upsamplers[i]:updateGradInput(self.processed[i], g)
    gradNarrowed[i] = self.processors[i]:updateGradInput(self.narrowed[i], self.gradProcessed[i])
  end
  if self.cachePrePreproc then return gradNarrowed end
  self.gradInput:resizeAs(input):zero()
  for i = 1, n do
    local gPadded = gradNarrowed[i]
    if self.focused then
      self.gradPadded[i] = self.gradPadded[i] and self.gradPadded[i]:typeAs(input) or input.new()
      self.gradPadded[i]:resizeAs(self.padded[i]):zero()
      local ox, oy = self:_corner(i)
      self.gradPadded[i]:narrow(3, ox, self.fov):narrow(2, oy, self.fov):copy(gradNarrowed[i])
      gPadded = self.gradPadded[i]
    end
    local gPre = self.padders[i]:updateGradInput(self.preProcessed[i], gPadded)
    local gPyr = self.preProcessors[i] and self.preProcessors[i]:updateGradInput(self.pyramid[i], gPre) or gPre
    self.gradInput:add(self.downsamplers[i]:updateGradInput(input, gPyr))
  end
  return self.gradInput
end

function SpatialFovea:accGradParameters(input, gradOutput, scale)
  for i, p in ipairs(self.processors) do p:accGradParameters(self.narrowed[i], self.gradProcessed[i], scale) end
end

function SpatialFovea:reset(stdv)
  for _, p in ipairs(self.processors) do
    if p.reset then p:reset(stdv) end
  end
end

function SpatialFovea:zeroGradParameters()
  for _, p in ipairs(self.processors) do p:zeroGradParameters() end
end

function SpatialFovea:updateParameters(learningRate)
  for _, p in ipairs(self.processors) do p:updateParameters(learningRate) end
end

function SpatialFovea:parameters()
  local w, gw = {}, {}
  for _, p in ipairs(self.processors) do
    local pw, pgw = p:parameters()
    if pw then
      for k = 1, #pw do w[#w + 1], gw[#gw + 1] = pw[k], pgw[k] end
    end
  end
  return w, gw
end

function SpatialFovea:type(type, tensorCache)
  if type == nil then return parent.type(self) end
  parent.type(self, type, tensorCache)
  for _, m in ipairs(self.preProcessors) do m:type(type, tensorCache) end
  return self
end
