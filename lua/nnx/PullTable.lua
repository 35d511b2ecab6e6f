-- nn.PullTable(push, index) (nnx; made by push:pull(index)): inserts the
-- element its nn.PushTable took out at position 'index' of its input (a
-- table, or a tensor that becomes the other element of a pair). Backward
-- hands gradOutput[index] to the push and passes the rest on.
local PullTable, parent = torch.class('nn.PullTable', 'nn.Module')

function PullTable:__init(push, index)
  parent.__init(self)
  if type(index) ~= 'number' or index < 1 or index % 1 ~= 0 then
    error('nn.PullTable(push, index): index must be an integer >= 1, got ' .. tostring(index), 2)
  end
  self._push = push
  self._index = index
  self.output = {}
  self.gradInput = {}
end

function PullTable:_updateOutput(output)
  self._output = output
end

function PullTable:updateOutput(input)
  if self._output == nil then error('nn.PullTable: its nn.PushTable has not run forward yet', 2) end
  for k in pairs(self.output) do self.output[k] = nil end
  if torch.type(input) == 'table' then
    for i, x in ipairs(input) do
      if i < self._index then self.output[i] = x else self.output[i + 1] = x end
    end
  else
    if self._index ~= 1 and self._index ~= 2 then
      error('nn.PullTable: with a tensor input, index must be 1 or 2, got ' .. self._index, 2)
    end
    self.output[3 - self._index] = input
  end
  self.output[self._index] = self._output
  return self.output
end

function PullTable:updateGradInput(input, gradOutput)
  self._push:_updateGradInput(gradOutput[self._index])
  if torch.type(input) == 'table' then
    if torch.type(self.gradInput) ~= 'table' then self.gradInput = {} end
    for k in pairs(self.gradInput) do self.gradInput[k] = nil end
    for i, g in ipairs(gradOutput) do
      if i < self._index then self.gradInput[i] = g elseif i > self._index then self.gradInput[i - 1] = g end
    end
  else
    self.gradInput = gradOutput[3 - self._index]
  end
  return self.gradInput
end

-- the push is not converted from here
function PullTable:type(type, tensorCache)
  local push = self._push
  self._push = nil
  parent.type(self, type, tensorCache)
  self._push = push
  return self
end
