-- nn.PushTable(index) (nnx): takes element 'index' out of a table input
-- (the output is the rest, in order) and hands it to the nn.PullTable
-- modules made by push:pull(i), which insert it back at position i of
-- their own input further along the network (a "teleport", e.g. the
-- targets of nn.SoftMaxTree past layers that only take the data).
-- Backward: the gradients the pulls received for it are summed into
-- gradInput[index].
local PushTable, parent = torch.class('nn.PushTable', 'nn.Module')

function PushTable:__init(index)
  parent.__init(self)
  if type(index) ~= 'number' or index < 1 or index % 1 ~= 0 then
    error('nn.PushTable(index): index must be an integer >= 1, got ' .. tostring(index), 2)
  end
  self._index = index
  self._pulls = {}
  self.output = {}
  self._gradInput = torch.Tensor()
  self.gradInput = {}
  self._forward = false
end

-- push:pull(index) -> an nn.PullTable inserting the pushed element at index
function PushTable:pull(index)
  local pull = nn.PullTable(self, index)
  self._pulls[#self._pulls + 1] = pull
  return pull
end

function PushTable:updateOutput(inputTable)
  if type(inputTable) ~= 'table' or inputTable[self._index] == nil then
    error(string.format('nn.PushTable: a table input with an element %d expected', self._index), 2)
  end
  for k in pairs(self.output) do self.output[k] = nil end
  for i, input in ipairs(inputTable) do
    if i < self._index then self.output[i] = input elseif i > self._index then self.output[i - 1] = input end
  end
  for _, pull in ipairs(self._pulls) do pull:_updateOutput(inputTable[self._index]) end
  self._forward = true
  return self.output
end

-- a pull's gradient for the pushed element: the first after a forward
-- replaces, the next ones add
function PushTable:_updateGradInput(gradOutput)
  if self._forward then
    if torch.type(self._gradInput) ~= torch.type(gradOutput) then self._gradInput = gradOutput.new() end
    self._gradInput:resizeAs(gradOutput):copy(gradOutput)
  else
    self._gradInput:add(gradOutput)
  end
  self._forward = false
end

function PushTable:updateGradInput(inputTable, gradOutputTable)
  for k in pairs(self.gradInput) do self.gradInput[k] = nil end
  for i, g in ipairs(gradOutputTable) do
    if i < self._index then self.gradInput[i] = g else self.gradInput[i + 1] = g end
  end
  self.gradInput[self._index] = self._gradInput
  return self.gradInput
end

-- the pulls are not converted from here (each converts itself)
function PushTable:type(type, tensorCache)
  local pulls = self._pulls
  self._pulls = nil
  parent.type(self, type, tensorCache)
  self._pulls = pulls
  return self
end
