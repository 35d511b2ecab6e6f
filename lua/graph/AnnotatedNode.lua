-- graph.AnnotatedNode(data [, infoLevel]): a node whose data is a table
-- with an 'annotations' table: where in the script the node was made
-- (_debugLabel, "[file]:line", from debug.getinfo at infoLevel, default 4:
-- the script line that made an nngraph node), and what the user adds with
-- :annotate{name = ..., description = ..., graphAttributes = {...}}. The
-- name and attributes show in pictures (Graph:todot).
local Node, parent = torch.class('graph.AnnotatedNode', 'graph.Node')

function Node:__init(data, infoLevel)
  if type(data) ~= 'table' or torch.typename(data) then
    error(string.format('graph.AnnotatedNode: a table expected as data, got %s', torch.type(data)), 2)
  end
  parent.__init(self, data)
  data.annotations = data.annotations or {}
  if not data.annotations._debugLabel then
    local info = debug.getinfo(infoLevel or 4, 'Sl')
    data.annotations._debugLabel = info and string.format('[%s]:%d', info.short_src, info.currentline)
                                   or '[?]:0'
  end
end

function Node:annotate(annotations)
  for k, v in pairs(annotations) do self.data.annotations[k] = v end
  return self
end

function Node:graphNodeName()
  local name = self.data.annotations.name
  if name then return name .. ' (' .. self.id .. ')' end
  return 'Node' .. self.id
end

function Node:graphNodeAttributes()
  local a = self.data.annotations
  a.graphAttributes = a.graphAttributes or {}
  if not a.graphAttributes.tooltip then a.graphAttributes.tooltip = a._debugLabel end
  return a.graphAttributes
end

-- "Tensor[2x3]" and a NaN/inf flag for tensors, {..} for tables
local function describe(v)
  if torch.isTensor(v) then
    local flag = ''
    if v:nElement() > 0 then
      if v:ne(v):sum() > 0 then flag = 'NaN'
      elseif v:max() == math.huge then flag = 'inf'
      elseif v:min() == -math.huge then flag = '-inf' end
    end
    local kind = v:type() == torch.Tensor():type() and 'Tensor' or v:type()
    return kind .. '[' .. table.concat(v:size():totable(), 'x') .. ']' .. flag
  elseif type(v) == 'table' and not torch.typename(v) then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = describe(x) end
    return '{' .. table.concat(parts, ',') .. '}'
  end
  return (tostring(v):gsub('\n', '\\l'))
end

-- the node's data fields, one per line ("input = {Tensor[2x3]}"), after
-- the description if any; the annotations themselves are left out
function Node:label()
  local keys = {}
  for k in pairs(self.data) do
    if k ~= 'annotations' then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local lines = {}
  for _, k in ipairs(keys) do lines[#lines + 1] = tostring(k) .. ' = ' .. describe(self.data[k]) end
  local desc = self.data.annotations.description
  return (desc and ('desc = ' .. desc .. '\\n') or '') .. table.concat(lines, '\\l')
end

return Node
