-- nn.Container: the base of modules holding children in self.modules.
-- Children's errors are re-raised with the position of the child in front
-- ("In 3 module of nn.Sequential:\n<message>", Torch7's words); nested containers stack
-- their prefixes, outermost first.

require 'nn.Module'
local torch = torch
local nn = nn

local Container, parent = torch.class('nn.Container', 'nn.Module')

function Container:__init(...)
  parent.__init(self, ...)
  self.modules = {}
end

-- #container: the number of children (Torch7's Sequential defines it;
-- here every container does, so Concat and ConcatTable answer too)
function Container:__len()
  return #self.modules
end

function Container:add(module)
  if not torch.isTypeOf(module, 'nn.Module') then
    error(string.format('%s:add: nn.Module expected, got %s', torch.type(self), torch.type(module)), 2)
  end
  table.insert(self.modules, module)
  return self
end

function Container:get(index)
  return self.modules[index]
end

function Container:size()
  return #self.modules
end

-- calls module[funcName](module, ...) and adds the child's position to its
-- error message; non-string errors pass through untouched
function Container:rethrowErrors(module, moduleIndex, funcName, ...)
  local ok, ret = pcall(module[funcName], module, ...)
  if not ok then
    if type(ret) == 'string' then
      -- Torch7's wording, which scripts match on
      error(string.format('In %d module of %s:\n%s', moduleIndex, torch.type(self), ret), 0)
    end
    error(ret, 0)
  end
  return ret
end

function Container:applyToModules(func)
  for _, module in ipairs(self.modules) do func(module) end
end

function Container:zeroGradParameters()
  self:applyToModules(function(m) m:zeroGradParameters() end)
end

function Container:updateParameters(learningRate)
  self:applyToModules(function(m) m:updateParameters(learningRate) end)
end

function Container:training()
  self:applyToModules(function(m) m:training() end)
  return parent.training(self)
end

function Container:evaluate()
  self:applyToModules(function(m) m:evaluate() end)
  return parent.evaluate(self)
end

function Container:share(mlp, ...)
  for i = 1, #self.modules do self.modules[i]:share(mlp.modules[i], ...) end
  return self
end

function Container:reset(stdv)
  self:applyToModules(function(m) m:reset(stdv) end)
end

function Container:parameters()
  local w, gw = {}, {}
  for i = 1, #self.modules do
    local mw, mgw = self.modules[i]:parameters()
    if mw then
      for j = 1, #mw do
        w[#w + 1] = mw[j]
        gw[#gw + 1] = mgw and mgw[j]
      end
    end
  end
  return w, gw
end

-- a container's output/gradInput alias its children's tensors: they are
-- dropped (replaced by fresh empty ones), never :set() to nothing, which
-- would empty the child's tensor too
function Container:clearState()
  for _, f in ipairs{'output', 'gradInput'} do
    local v = self[f]
    if torch.isTensor(v) then
      self[f] = v.new()
    elseif type(v) == 'table' then
      self[f] = {}
    end
  end
  for _, m in ipairs(self.modules) do m:clearState() end
  return self
end

-- the order in which the children of a branching container (Concat,
-- DepthConcat, ConcatTable, ParallelTable, Parallel) run: module order,
-- unless the memory optimizer planned another (optnet reorder sets
-- '_branchOrder', a permutation). Those containers place outputs and copy or
-- sum gradInputs in module order whatever the running order, so the numbers
-- never depend on it.
function Container:_runOrder()
  local order = rawget(self, '_branchOrder')
  if order then return order end
  order = {}
  for i = 1, #self.modules do order[i] = i end
  return order
end

-- Torch7's branch drawing for containers whose children all see the input
-- (Concat, DepthConcat, ConcatTable, ParallelTable, Parallel):
--   nn.ConcatTable {
--     input
--       |`-> (1): nn.Identity
--        `-> (2): nn.Identity
--        ... -> output
--   }
function Container:_branchString()
  local tab, line = '  ', '\n'
  local nextb, lastNext = '  |`-> ', '   `-> '
  local ext, extlast = '  |    ', '       '
  local str = torch.type(self) .. ' {' .. line .. tab .. 'input'
  for i = 1, #self.modules do
    local child = tostring(self.modules[i])
    if i == #self.modules then
      str = str .. line .. tab .. lastNext .. '(' .. i .. '): ' .. child:gsub(line, line .. tab .. extlast)
    else
      str = str .. line .. tab .. nextb .. '(' .. i .. '): ' .. child:gsub(line, line .. tab .. ext)
    end
  end
  return str .. line .. tab .. '   ... -> output' .. line .. '}'
end

-- a container needs whatever its children need; it owns no buffers
function Container:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

return Container
