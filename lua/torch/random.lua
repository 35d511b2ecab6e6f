-- Random numbers, Torch7's API over the C generator (src/tensor/th_random.c).
-- torch.manualSeed(123) followed by the same calls gives Torch7's numbers
-- exactly. Every function takes an optional torch.Generator first.

local torch = torch
local R = torch._C.random

for _, name in ipairs{'Generator', 'seed', 'manualSeed', 'initialSeed', 'getRNGState',
                      'setRNGState'} do
  torch[name] = R[name]
end

-- torch.uniform([gen,] a, b) draws a number; torch.uniform(x [, gen], a, b)
-- fills the tensor x and returns it, as x:uniform(...) (Torch7's cwrap
-- gives each of these both forms; torch-autograd's tests use
-- torch.bernoulli(x))
for _, name in ipairs{'random', 'uniform', 'normal', 'exponential', 'cauchy', 'logNormal',
                      'geometric', 'bernoulli'} do
  local draw = R[name]
  -- through _userCall: an error names the user's line, not this file's
  torch[name] = torch._userCall(name, function(...)
    local x = ...
    if torch.isTensor(x) then return x[name](...) end
    return draw(...)
  end)
end

-- torch.Generator is a Torch class: torch.factory makes one (for loading
-- saved generators) and its methods (File.lua's read/write hooks) are
-- reachable from instances
local genmt = getmetatable(R.Generator())
genmt.__index = genmt
torch._registerBuiltin('torch.Generator', genmt, R.Generator)

local dtypes = torch._C.dtypes

local function defaultdtype()
  return dtypes[torch._tensortypes[torch.getdefaulttensortype()]]
end

-- Torch7's dispatch: a tensor type name as the last argument gives a new
-- tensor of that type (torch.rand(3, 'torch.FloatTensor'))
local function typed(f)
  return function(...)
    local n = select('#', ...)
    local last = n > 0 and select(n, ...)
    if type(last) == 'string' and torch._tensortypes[last] then
      local args = table.pack(...)
      return f(dtypes[torch._tensortypes[last]], table.unpack(args, 1, n - 1))
    end
    return f(defaultdtype(), ...)
  end
end

-- torch.rand([res,] [gen,] sizes... [, typename]): uniform on [0, 1) in the default type (or res's)
torch.rand = torch._userCall('rand', typed(R.rand))
-- torch.randn([res,] [gen,] sizes... [, typename]): standard normal
torch.randn = torch._userCall('randn', typed(R.randn))
-- torch.randperm([res,] [gen,] n [, typename]): a random permutation of 1..n
torch.randperm = torch._userCall('randperm', typed(R.randperm))

-- method forms, as Torch7: x:rand(2, 3), x:randn(...), x:randperm(n) resize x and fill it
for _, name in ipairs{'rand', 'randn', 'randperm'} do
  torch._defineTensorMethod(name, function(self, ...) return torch[name](self, ...) end)
end

return torch
