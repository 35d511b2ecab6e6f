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

-- torch.rand([res,] [gen,] sizes...): uniform on [0, 1) in the default type (or res's)
function torch.rand(...) return R.rand(defaultdtype(), ...) end
-- torch.randn([res,] [gen,] sizes...): standard normal
function torch.randn(...) return R.randn(defaultdtype(), ...) end
-- torch.randperm([res,] [gen,] n): a random permutation of 1..n
torch.randperm = torch._userCall('randperm', function(...) return R.randperm(defaultdtype(), ...) end)

-- method forms, as Torch7: x:rand(2, 3), x:randn(...), x:randperm(n) resize x and fill it
for _, name in ipairs{'rand', 'randn', 'randperm'} do
  torch._defineTensorMethod(name, function(self, ...) return torch[name](self, ...) end)
end

return torch
