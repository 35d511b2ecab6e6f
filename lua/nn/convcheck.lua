-- nn.convcheck: argument checks shared by the temporal and spatial
-- convolution modules (TemporalConvolution ... SpatialFullConvolutionMap).
-- Not a module: required by those files. Every error names the class and
-- method ("nn.TemporalConvolution:updateOutput: ..."), what was expected and
-- what came, and is raised without a position prefix.

local utils = nn.utils
local M = {}

-- "<class>:<method>"
function M.who(self, method)
  return torch.type(self) .. ':' .. method
end

-- an integer constructor argument >= min (default 1); integral floats pass
function M.count(v, what, cls, min)
  return utils.count(v, what, cls, min, 0)
end

-- a floating tensor with one of the dimension counts in 'dims' ({2, 3});
-- 'want' describes them for the message; with 'like' (the module's
-- weight, or its output when it has none), of its type
function M.input(x, who, dims, want, like)
  if not torch.isTensor(x) then
    utils.error(who, 'input must be a tensor, got %s', torch.type(x))
  end
  local t = torch.type(x)
  if t ~= 'torch.DoubleTensor' and t ~= 'torch.FloatTensor' then
    utils.error(who, 'input must be a torch.FloatTensor or torch.DoubleTensor, got %s', t)
  end
  if like and torch.type(like) ~= t then
    utils.error(who, 'input must be a %s (the module\'s type), got %s', torch.type(like), t)
  end
  for _, d in ipairs(dims) do
    if x:dim() == d then return x end
  end
  utils.error(who, 'input must be %s, got %s', want, utils.shapeString(x))
end

-- gradOutput must have exactly the sizes 'sizes' (a table), and with
-- 'like' (the input) its type
function M.gradOutput(g, who, sizes, like)
  if not torch.isTensor(g) then
    utils.error(who, 'gradOutput must be a tensor, got %s', torch.type(g))
  end
  if like and torch.type(like) ~= torch.type(g) then
    utils.error(who, 'gradOutput must be a %s (the input\'s type), got %s', torch.type(like),
                torch.type(g))
  end
  local ok = g:dim() == #sizes
  for i = 1, #sizes do ok = ok and g:size(i) == sizes[i] end
  if not ok then
    utils.error(who, 'gradOutput must be %s (the output size), got %s',
                table.concat(sizes, 'x'), utils.shapeString(g))
  end
  return g
end

-- a stand-in for 'self' when calling a spatial kernel binding with another
-- window than the module's own fields (the bindings read kW, kH, dW, dH,
-- padW, padH from their first argument and name its class in errors)
function M.window(self, w)
  return setmetatable(w, {__typename = torch.type(self)})
end

return M
