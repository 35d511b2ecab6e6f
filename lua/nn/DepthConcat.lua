-- nn.DepthConcat(dimension): Concat for outputs whose other dimensions
-- differ (e.g. Inception branches with different spatial sizes): the output
-- takes the largest size in each dimension, each child's output is centred
-- in its window (start = floor((max - size) / 2) + 1) and the rest is zero.

require 'nn.Concat'
local torch = torch
local nn = nn
local utils = nn.utils

local DepthConcat, parent = torch.class('nn.DepthConcat', 'nn.Concat')

function DepthConcat:__init(dimension)
  parent.__init(self, dimension)
end

function DepthConcat:_outputSize(outs, who)
  local d = self.dimension
  local first = outs[1]
  local size = {}
  for i = 1, #outs do
    local o = outs[i]
    if not torch.isTensor(o) or o:dim() < d or o:dim() ~= (first and first:dim() or -1) then
      error(string.format('%s: output of module %d must be a tensor with %d dimensions (at least %d), got %s',
                          who, i, torch.isTensor(first) and first:dim() or d, d, utils.shapeString(o)), 0)
    end
    for k = 1, o:dim() do
      if i == 1 then
        size[k] = o:size(k)
      elseif k == d then
        size[k] = size[k] + o:size(k)
      else
        size[k] = math.max(size[k], o:size(k))
      end
    end
  end
  return size
end

-- the output is zeroed before the children's outputs go into their windows
function DepthConcat:_padded()
  return true
end

function DepthConcat:_window(whole, o, offset)
  local w = whole:narrow(self.dimension, offset, o:size(self.dimension))
  for k = 1, o:dim() do
    local cur = o:size(k)
    if k ~= self.dimension and whole:size(k) ~= cur then
      -- 5 vs 3 -> start 2 (one each side); 9 vs 4 -> start 3 (2 before, 3 after)
      -- narrowed in place: an intermediate view left to the collector
      -- would keep the storage alive after the window is emptied
      local n = w:narrow(k, math.floor((whole:size(k) - cur) / 2) + 1, cur)
      w:set(n)
      n:set()
    end
  end
  return w
end

-- Torch7's name for the window
function DepthConcat:windowNarrow(output, currentOutput, offset)
  return self:_window(output, currentOutput, offset)
end

return DepthConcat
