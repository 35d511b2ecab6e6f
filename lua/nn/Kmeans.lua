-- nn.Kmeans(k, dim [, scale]): online (hard) k-means. weight k x dim holds
-- the centres (reset: uniform(-1, 1), or initRandom(input) / 
-- initKmeansPlus(input [, p = 0.95]) from the samples). input batch x dim
-- (contiguous); output: the index (1-based, in the weight's type) of each
-- sample's nearest centre by squared Euclidean distance; 'loss' is the sum
-- of those squared distances. gradInput is zeros (k-means has its own
-- criterion). accGradParameters applies Torch7's update rule as a
-- gradient: gradWeight_c += -scale * sum_{x in c} (x - c) / (n_c + 1e-7),
-- n_c (the count of samples in c) in 'clusterSampleCount'; 'scale' is the
-- constructor's when given (Torch7 refused scale 0; here it adds nothing). Lua over tensor ops; '_minIndx' (the
-- assignment) is kept from forward for backward.

local Kmeans, parent = torch.class('nn.Kmeans', 'nn.Module')

function Kmeans:__init(k, dim, scale)
  parent.__init(self)
  local ik, idim = math.tointeger(k), math.tointeger(dim)
  if ik == nil or ik < 1 then
    error(string.format('nn.Kmeans: k (the number of clusters) must be a positive integer, got %s', tostring(k)), 2)
  end
  if idim == nil or idim < 1 then
    error(string.format('nn.Kmeans: dim must be a positive integer, got %s', tostring(dim)), 2)
  end
  self.k = ik
  self.dim = idim
  self.scale = scale
  self.weight = torch.Tensor(self.k, self.dim)
  self.gradWeight = torch.Tensor(self.weight:size())
  self.loss = 0
  self.clusterSampleCount = torch.Tensor(self.k)
  self:reset()
end

function Kmeans:reset(stdev)
  stdev = stdev or 1
  self.weight:uniform(-stdev, stdev)
  return self
end

local function checkInput(self, input, who)
  nn.utils.checkTensor(input, who)
  if input:dim() ~= 2 or input:size(2) ~= self.dim then
    error(string.format('%s: input must be 2D with %d columns, got %s', who, self.dim, nn.utils.shapeString(input)), 0)
  end
end

-- centres = k random samples (drawn with replacement, as Torch7)
function Kmeans:initRandom(input)
  checkInput(self, input, 'nn.Kmeans:initRandom')
  local n = input:size(1)
  if n < self.k then
    error(string.format('nn.Kmeans:initRandom: need at least k = %d samples, got %d', self.k, n), 2)
  end
  local indices = torch.zeros(self.k)
  indices:random(1, n)
  for i = 1, self.k do self.weight[i]:copy(input[indices[i]]) end
  return self
end

-- k-means++ seeding: the first centre a random sample, each next one drawn
-- among the ceil((1 - p) n) samples farthest from the centres so far
function Kmeans:initKmeansPlus(input, p)
  checkInput(self, input, 'nn.Kmeans:initKmeansPlus')
  self.p = p or self.p or 0.95
  if type(self.p) ~= 'number' or self.p < 0 or self.p > 1 then
    error(string.format('nn.Kmeans:initKmeansPlus: p must be in [0, 1], got %s', tostring(self.p)), 2)
  end
  local n = input:size(1)
  local pcount = math.ceil((1 - self.p) * n)
  if pcount <= 0 then pcount = 1 end
  self.weight[1]:copy(input[torch.random(n)])
  local distances = self.weight.new(n):fill(math.huge)
  local diff, d = self.weight.new(), self.weight.new()
  for c = 2, self.k do
    diff:resizeAs(input):copy(input):add(-1, self.weight[{{c - 1}}]:expandAs(input))
    d:norm(diff, 2, 2):pow(2)
    distances:cmin(d:view(n))
    local _, order = distances:sort(1, true)
    self.weight[c]:copy(input[order[torch.random(pcount)]])
  end
  return self
end

local function buf(self, k, like)
  local t = self[k]
  if not torch.isTensor(t) or torch.type(t) ~= torch.type(like) then
    t = like.new()
    self[k] = t
  end
  return t
end

function Kmeans:updateOutput(input)
  checkInput(self, input, 'nn.Kmeans:updateOutput')
  local b, k, dim = input:size(1), self.k, self.dim
  if torch.type(self.output) ~= torch.type(self.weight) then self.output = self.weight.new() end
  -- x - c for every centre and sample: k x b x dim
  local diff = buf(self, '_expandedSamples', self.weight):resize(k, b, dim)
  diff:copy(input:view(1, b, dim):expand(k, b, dim))
  diff:add(-1, self.weight:view(k, 1, dim):expand(k, b, dim))
  local dist = buf(self, '_clusterDistances', self.weight):norm(diff, 2, 3):pow(2)
  dist:resize(k, b)
  local score = buf(self, '_minScore', self.weight)
  if not torch.isTensor(self._minIndx) or torch.type(self._minIndx) ~= 'torch.LongTensor' then
    self._minIndx = torch.LongTensor()
  end
  score:min(self._minIndx, dist, 1)
  self._minIndx:resize(b)
  self.output:resize(b):copy(self._minIndx)
  self.loss = score:sum()
  return self.output
end

function Kmeans:updateGradInput(input, gradOutput)
  checkInput(self, input, 'nn.Kmeans:updateGradInput')
  if torch.type(self.gradInput) ~= torch.type(input) then self.gradInput = input.new() end
  self.gradInput:resize(input:size()):zero()
  return self.gradInput
end

function Kmeans:accGradParameters(input, gradOutput, scale)
  -- the constructor's scale wins, as Torch7; a call's scale 0 (a gradient
  -- that must not move, as optnet's trace asks) still adds nothing
  scale = (scale == 0 and 0) or self.scale or scale or 1
  checkInput(self, input, 'nn.Kmeans:accGradParameters')
  if type(scale) ~= 'number' or scale < 0 then
    error(string.format('nn.Kmeans:accGradParameters: scale must not be negative, got %s', tostring(scale)), 0)
  end
  local b = input:size(1)
  if not torch.isTensor(self._minIndx) or self._minIndx:nElement() ~= b then
    error(string.format('nn.Kmeans:accGradParameters: forward the same %d samples first', b), 0)
  end
  local ones = buf(self, '_cscAdder', self.weight):resize(b):fill(1)
  self.clusterSampleCount:resize(self.k):zero():indexAdd(1, self._minIndx, ones)
  -- -scale (x - c) for each sample's centre, summed per centre
  local g = buf(self, '_gradWeight', self.weight):index(self.weight, 1, self._minIndx)
  g:mul(-1):add(input):mul(-scale)
  local g2 = buf(self, '_gradWeight2', self.weight):resizeAs(self.gradWeight):zero()
  g2:indexAdd(1, self._minIndx, g)
  local counts = buf(self, '_ccounts', self.weight):resize(self.k):copy(self.clusterSampleCount):add(0.0000001)
  g2:cdiv(counts:view(self.k, 1):expandAs(g2))
  self.gradWeight:add(g2)
end

function Kmeans:memoryTraits()
  return {buffers = {_expandedSamples = 'forward', _clusterDistances = 'forward', _minScore = 'forward',
                     _minIndx = 'both', _cscAdder = 'backward', _gradWeight = 'backward',
                     _gradWeight2 = 'backward', _ccounts = 'backward'},
          needsInput = true, needsOutput = false, state = {clusterSampleCount = true}}
end
