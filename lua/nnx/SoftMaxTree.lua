-- nn.SoftMaxTree(inputSize, hierarchy, rootId=1 [, accUpdate, static=true,
-- verbose]) (nnx): a hierarchical log-softmax for large vocabularies.
-- hierarchy maps each parent node id to a 1D tensor of its children's ids
-- (a tree rooted at rootId). Every parent has a small Linear (its children
-- x inputSize rows of 'weight', entries of 'bias') followed by a
-- log-softmax over its children. Input: {x (N x inputSize), target (N ids
-- of leaves)}; output (N): log P(target) = the sum, along the path from
-- the target up to the root, of the log-softmax entry of each node among
-- its siblings. Only the parents on the paths are computed, so the cost is
-- O(depth x family size) per example instead of O(vocabulary).
-- gradInput = {gradX, a zero tensor for the target}. accGradParameters
-- records in self.updates[parentId] the sum of the scales it applied,
-- and parameters() returns only the updated parents' rows (keyed by
-- parentId and parentId + maxParentId with static = true, a list
-- otherwise) so that updates stay sparse; with no update yet, every
-- parent's (static) or {weight, bias} (not static).
-- getNodeParameters(parentId) -> {weight, bias}, {gradWeight, gradBias}.
-- accUpdate = true: no gradWeight/gradBias (use backwardUpdate).
local SoftMaxTree, parent = torch.class('nn.SoftMaxTree', 'nn.Module')

function SoftMaxTree:__init(inputSize, hierarchy, rootId, accUpdate, static, verbose)
  parent.__init(self)
  if type(inputSize) ~= 'number' or inputSize < 1 then
    error('nn.SoftMaxTree: inputSize (number >= 1) expected as argument 1, got ' .. tostring(inputSize), 2)
  end
  if type(hierarchy) ~= 'table' then
    error('nn.SoftMaxTree: hierarchy (table of parentId -> 1D tensor of child ids) expected as argument 2, got '
          .. torch.type(hierarchy), 2)
  end
  self.rootId = rootId or 1
  self.inputSize = inputSize
  self.accUpdate = accUpdate
  -- parents in increasing id order: the layout of 'weight' is deterministic
  local parentIds = {}
  for parentId, children in pairs(hierarchy) do
    if not torch.isTensor(children) or children:dim() ~= 1 then
      error(string.format('nn.SoftMaxTree: the children of node %s must be a 1D tensor', tostring(parentId)), 2)
    end
    parentIds[#parentIds + 1] = parentId
  end
  table.sort(parentIds)
  local nChild, maxParent, maxChild, maxFamily, minId = 0, 0, 0, 0, math.huge
  for _, p in ipairs(parentIds) do
    local c = hierarchy[p]
    nChild = nChild + c:size(1)
    maxParent = math.max(maxParent, p)
    maxChild = math.max(maxChild, c:max())
    maxFamily = math.max(maxFamily, c:size(1))
    minId = math.min(minId, p, c:min())
  end
  if minId < 1 then error('nn.SoftMaxTree: node ids must be positive, got ' .. minId, 2) end
  if hierarchy[self.rootId] == nil then
    error(string.format('nn.SoftMaxTree: the root %s has no children in the hierarchy', tostring(self.rootId)), 2)
  end
  self.nChildNode, self.nParentNode = nChild, #parentIds
  self.maxParentId, self.maxChildId, self.maxFamily = maxParent, maxChild, maxFamily
  self.minNodeId, self.maxNodeId = minId, math.max(maxParent, maxChild)
  if verbose then
    print(string.format('Hierarchy has %d parent nodes, %d child nodes, %d leaf nodes', #parentIds, nChild,
                        nChild - #parentIds))
  end
  self.weight = torch.Tensor(nChild, inputSize)
  self.bias = torch.Tensor(nChild)
  if not accUpdate then
    self.gradWeight = torch.Tensor(nChild, inputSize):zero()
    self.gradBias = torch.Tensor(nChild):zero()
  end
  -- parentChildren[p] = {first row, number of children}; childParent[c] =
  -- {parent id, position among the siblings}
  self.childIds = torch.IntTensor(nChild)
  self.parentIds = torch.IntTensor(parentIds)
  self.parentChildren = torch.IntTensor(maxParent, 2):fill(-1)
  self.childParent = torch.IntTensor(maxChild, 2):fill(-1)
  local start = 1
  for _, p in ipairs(parentIds) do
    local c = hierarchy[p]
    self.parentChildren[p][1], self.parentChildren[p][2] = start, c:size(1)
    for k = 1, c:size(1) do
      local id = c[k]
      self.childIds[start + k - 1] = id
      if self.childParent[id][1] ~= -1 then
        error(string.format('nn.SoftMaxTree: node %d has two parents (%d and %d)', id, self.childParent[id][1], p), 2)
      end
      self.childParent[id][1], self.childParent[id][2] = p, k
    end
    start = start + c:size(1)
  end
  -- the longest path (in rows of log-softmax) and the deepest leaf
  local maxPath, maxDepth = 0, 0
  for _, p in ipairs(parentIds) do
    local size, depth, node, guard = 0, 0, p, 0
    while true do
      size = size + self.parentChildren[node][2]
      depth = depth + 1
      if node == self.rootId then break end
      local up = node <= maxChild and self.childParent[node][1] or -1
      guard = guard + 1
      if up == -1 or guard > #parentIds then
        error(string.format('nn.SoftMaxTree: node %d is not connected to the root %d', p, self.rootId), 2)
      end
      node = up
    end
    maxPath, maxDepth = math.max(maxPath, size), math.max(maxDepth, depth)
  end
  self.maxFamilyPath, self.maxDept = maxPath, maxDepth
  self.updates = {}
  self._nodeBuffer = torch.Tensor()
  self._multiBuffer = torch.Tensor()
  self._gradInput = torch.Tensor()
  self._gradTarget = torch.IntTensor()
  self.gradInput = {self._gradInput, self._gradTarget}
  self.static = (static == nil) and true or static
  self:reset()
end

function SoftMaxTree:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.nChildNode * self.inputSize)
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv)
  return self
end

-- calls f(parentId, firstRow, nChildren, childIdx, offset) for each step of
-- the path from 'leaf' up to the root (offset: rows of log-softmax so far)
function SoftMaxTree:_path(leaf, f)
  local node, offset = leaf, 0
  while true do
    if node < 1 or node > self.maxChildId or self.childParent[node][1] == -1 then
      error(string.format('nn.SoftMaxTree: target %d is not a child node of the tree', leaf), 4)
    end
    local p, childIdx = self.childParent[node][1], self.childParent[node][2]
    local first, n = self.parentChildren[p][1], self.parentChildren[p][2]
    f(p, first, n, childIdx, offset)
    offset = offset + n
    if p == self.rootId then return end
    node = p
  end
end

local function unpackInput(inputTable, inputSize)
  if type(inputTable) ~= 'table' or not torch.isTensor(inputTable[1]) or inputTable[2] == nil then
    error('nn.SoftMaxTree: {input (N x inputSize), target (N)} expected', 3)
  end
  local input, target = inputTable[1], inputTable[2]
  if input:dim() ~= 2 or input:size(2) ~= inputSize then
    error(string.format('nn.SoftMaxTree: input of N x %d expected, got %s', inputSize,
                        table.concat(input:size():totable(), 'x')), 3)
  end
  if not torch.isTensor(target) or target:nElement() ~= input:size(1) then
    error(string.format('nn.SoftMaxTree: a target of %d ids expected', input:size(1)), 3)
  end
  return input, target:contiguous():view(target:nElement())
end

function SoftMaxTree:updateOutput(inputTable)
  local input, target = unpackInput(inputTable, self.inputSize)
  local N = input:size(1)
  self._gradDone = false   -- _gradBuffer belongs to the previous forward
  self.output:resize(N)
  self._multiBuffer = self._multiBuffer:typeAs(input)
  self._multiBuffer:resize(N, self.maxFamilyPath)
  self._nodeBuffer = self._nodeBuffer:typeAs(input)
  for i = 1, N do
    local x, logsm, sum = input[i], self._multiBuffer[i], 0
    self:_path(math.floor(target[i]), function(_, first, n, childIdx, offset)
      local lin = self._nodeBuffer:resize(n)
      lin:mv(self.weight:narrow(1, first, n), x):add(self.bias:narrow(1, first, n))
      local out = logsm:narrow(1, offset + 1, n)
      local m = lin:max()
      local logsum = m + math.log(lin:clone():add(-m):exp():sum())
      out:copy(lin):add(-logsum)
      sum = sum + out[childIdx]
    end)
    self.output[i] = sum
  end
  return self.output
end

function SoftMaxTree:updateGradInput(inputTable, gradOutput)
  local input, target = unpackInput(inputTable, self.inputSize)
  local N = input:size(1)
  if gradOutput:nElement() ~= N then
    error(string.format('nn.SoftMaxTree: gradOutput of %d elements expected, got %d', N, gradOutput:nElement()), 2)
  end
  if self._multiBuffer:dim() ~= 2 or self._multiBuffer:size(1) ~= N then
    error('nn.SoftMaxTree: backward on different inputs than the last forward', 2)
  end
  gradOutput = gradOutput:contiguous():view(N)
  -- the gradient w.r.t. each node's linear output, kept for accGradParameters
  self._gradBuffer = self._gradBuffer and self._gradBuffer:typeAs(input) or input.new()
  self._gradBuffer:resizeAs(self._multiBuffer):zero()
  self._gradInput:resizeAs(input):zero()
  self._gradTarget:resize(target:size(1)):zero()
  for i = 1, N do
    local grad, logsm, gbuf, gx = gradOutput[i], self._multiBuffer[i], self._gradBuffer[i], self._gradInput[i]
    self:_path(math.floor(target[i]), function(_, first, n, childIdx, offset)
      -- d log p(child) / d linear = onehot(child) - softmax
      local g = gbuf:narrow(1, offset + 1, n)
      g:copy(logsm:narrow(1, offset + 1, n)):exp():mul(-grad)
      g[childIdx] = g[childIdx] + grad
      gx:addmv(self.weight:narrow(1, first, n):t(), g)
    end)
  end
  self._gradDone = true
  return self.gradInput
end

function SoftMaxTree:accGradParameters(inputTable, gradOutput, scale)
  scale = scale or 1
  local input, target = unpackInput(inputTable, self.inputSize)
  if not self._gradDone then
    error('nn.SoftMaxTree: accGradParameters needs updateGradInput first (backward does both)', 2)
  end
  for i = 1, input:size(1) do
    local x, g = input[i], self._gradBuffer[i]
    self:_path(math.floor(target[i]), function(p, first, n, _, offset)
      local gn = g:narrow(1, offset + 1, n)
      self.gradWeight:narrow(1, first, n):addr(scale, gn, x)
      self.gradBias:narrow(1, first, n):add(scale, gn)
      self.updates[p] = (self.updates[p] or 0) + scale
    end)
  end
end

function SoftMaxTree:_nodeRows(p)
  return self.parentChildren[p][1], self.parentChildren[p][2]
end

function SoftMaxTree:parameters()
  local params, grads = {}, {}
  local function put(p)
    local first, n = self:_nodeRows(p)
    local w, b = self.weight:narrow(1, first, n), self.bias:narrow(1, first, n)
    local gw = self.gradWeight and self.gradWeight:narrow(1, first, n)
    local gb = self.gradBias and self.gradBias:narrow(1, first, n)
    if self.static then
      params[p], params[p + self.maxParentId] = w, b
      if not self.accUpdate then grads[p], grads[p + self.maxParentId] = gw, gb end
    else
      params[#params + 1], params[#params + 2] = w, b
      if not self.accUpdate then grads[#grads + 1], grads[#grads + 2] = gw, gb end
    end
  end
  if next(self.updates) ~= nil then
    local ids = {}
    for p in pairs(self.updates) do ids[#ids + 1] = p end
    table.sort(ids)
    for _, p in ipairs(ids) do put(p) end
  elseif self.static then
    for i = 1, self.parentIds:size(1) do put(self.parentIds[i]) end
  else
    return {self.weight, self.bias}, {self.gradWeight, self.gradBias}
  end
  return params, grads, {}, self.nChildNode * 2
end

function SoftMaxTree:updateParameters(learningRate)
  if self.accUpdate then error('nn.SoftMaxTree: updateParameters with accUpdate (use backwardUpdate)', 2) end
  local params, grads = self:parameters()
  for k, p in pairs(params) do p:add(-learningRate, grads[k]) end
end

function SoftMaxTree:getNodeParameters(parentId)
  if type(parentId) ~= 'number' or parentId > self.maxParentId or self.parentChildren[parentId][1] == -1 then
    error('nn.SoftMaxTree:getNodeParameters: ' .. tostring(parentId) .. ' is not a parent node', 2)
  end
  local first, n = self:_nodeRows(parentId)
  local w, b = self.weight:narrow(1, first, n), self.bias:narrow(1, first, n)
  if self.accUpdate then return {w, b} end
  return {w, b}, {self.gradWeight:narrow(1, first, n), self.gradBias:narrow(1, first, n)}
end

function SoftMaxTree:zeroGradParameters()
  if not self.accUpdate then
    local _, grads = self:parameters()
    for _, g in pairs(grads) do g:zero() end
  end
  for k in pairs(self.updates) do self.updates[k] = nil end
end

function SoftMaxTree:maxNorm(maxNorm)
  local params = self:parameters()
  for _, p in pairs(params) do
    if p:dim() == 2 and maxNorm then p:renorm(2, 1, maxNorm) end
  end
end

-- the tree's index tensors stay IntTensors whatever the type
function SoftMaxTree:type(type, tensorCache)
  if type == nil then return parent.type(self) end
  local keep = {}
  for _, k in ipairs{'parentChildren', 'childParent', 'childIds', 'parentIds', '_gradTarget'} do
    keep[k], self[k] = self[k], nil
  end
  self.gradInput = nil
  parent.type(self, type, tensorCache)
  for k, v in pairs(keep) do self[k] = v end
  self.gradInput = {self._gradInput, self._gradTarget}
  return self
end
