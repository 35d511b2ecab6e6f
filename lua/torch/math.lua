-- torch.add, torch.sum, ...: the functional forms of the math methods
-- (src/lua/th_lua_math.c), the constructors torch.zeros/ones/range/
-- linspace/eye, and the tensor operators + - * / and unary -.
-- The C functions take Torch7's optional leading result themselves:
-- torch.exp(x) returns a new tensor, torch.exp(r, x) writes into r, while
-- the method x:exp() works in place.

local torch = torch
local C = torch._C
local F = C.methods.__math

for name, f in pairs(F) do torch[name] = f end

-- Number forms: Torch7 also takes plain numbers in these (torch.abs(-3),
-- torch.sqrt(4), torch.lerp(a, b, w)); optim's line search relies on it.
-- The result is always a float, as Torch7's (a C double): scripts compute
-- step % torch.round(n / 10), which a float 0 turns into nan where an
-- integer 0 would raise.
-- C's round: halves away from zero (x + 0.5 would round 0.49999999999999994 up)
local function round(x)
  if x ~= x or x == math.huge or x == -math.huge then return x end
  local a = math.abs(x)
  local f = math.floor(a)
  if a - f >= 0.5 then f = f + 1 end
  return x < 0 and -f or f
end
local function trunc(x)
  if x ~= x or x == math.huge or x == -math.huge then return x end
  return x >= 0 and math.floor(x) or math.ceil(x)
end
-- the C library's function through a one-element tensor (Lua has no log1p,
-- and cosh/sinh/tanh only with the compat names)
local function viaTensor(name)
  local one
  return function(x)
    one = one or torch.DoubleTensor(1)
    one[1] = x
    return one[name](one)[1]
  end
end
local function frac(x) return x - (math.tointeger(trunc(x)) or trunc(x)) end
local NUMBER_FORMS = {
  log = math.log, exp = math.exp, cos = math.cos, acos = math.acos, sin = math.sin,
  asin = math.asin, tan = math.tan, atan = function(x) return math.atan(x) end,
  sqrt = math.sqrt, ceil = math.ceil, floor = math.floor, round = round, trunc = trunc,
  frac = frac, abs = math.abs,
  log1p = viaTensor('log1p'), cosh = viaTensor('cosh'), sinh = viaTensor('sinh'),
  tanh = viaTensor('tanh'),
  rsqrt = function(x) return 1 / math.sqrt(x) end,
  sigmoid = function(x) return 1 / (1 + math.exp(-x)) end,
  atan2 = function(a, b) return math.atan(a, b) end,
  pow = function(a, b) return (a + 0.0) ^ b end,
  lerp = function(a, b, w) return a + w * (b - a) end,
}
for name, nf in pairs(NUMBER_FORMS) do
  local tf = torch[name]
  local nargs = (name == 'atan2' or name == 'pow') and 2 or name == 'lerp' and 3 or 1
  torch[name] = function(a, ...)
    if type(a) == 'number' then
      local b, c = ...
      local numbers = not ((nargs >= 2 and type(b) ~= 'number') or (nargs == 3 and type(c) ~= 'number'))
      if numbers then return nf(a, ...) + 0.0 end
      -- torch.pow(2, x) is the tensor form: a number base, tensor exponents
      if not (torch.isTensor(b) or torch.isTensor(c)) then
        error(string.format('torch.%s: %d numbers expected, got %s', name, nargs,
                            table.concat({type(a), torch.type(b), torch.type(c)}, ', ', 1, nargs)), 2)
      end
    end
    if tf == nil then
      error(string.format('torch.%s: number expected, got %s', name, torch.type(a)), 2)
    end
    -- through pcall, so that an error names the user's line, not this one
    local res = table.pack(pcall(tf, a, ...))
    if not res[1] then return torch._userCall(name, error)(res[2], 0) end
    return table.unpack(res, 2, res.n)
  end
end

-- constructors: an optional result first, else a tensor of the default type
-- (Torch7's dispatch: a tensor type name as the last argument picks the
-- type instead: torch.range(1, 3, 'torch.DoubleTensor'))
local function constructor(name)
  local method = C.methods[name]
  return function(first, ...)
    if torch.isTensor(first) then return method(first, ...) end
    local n = select('#', ...)
    local last = n > 0 and select(n, ...)
    if type(last) == 'string' and torch._tensortypes[last] then
      local args = table.pack(first, ...)
      return method(torch[last:sub(7)](), table.unpack(args, 1, args.n - 1))
    end
    if type(last) == 'string' then
      -- counted as the caller wrote them (the C method's would count the
      -- new tensor in front)
      error(string.format("bad argument #%d to '%s' (a number or a tensor type name expected, got string '%s')",
                          n + 1, name, last), 3)
    end
    return method(torch.Tensor(), first, ...)
  end
end
for _, name in ipairs{'zeros', 'ones', 'range', 'linspace', 'eye'} do
  torch[name] = torch._userCall(name, constructor(name))
end

-- operators, as Torch7: the result is new and has the first tensor's shape

local function isnum(x) return type(x) == 'number' end

local function operand_error(op, a, b)
  error(string.format("%s: tensor and tensor, tensor and number, or number and tensor expected, got %s and %s",
                      op, torch.typename(a) or type(a), torch.typename(b) or type(b)), 3)
end

local function add(a, b)
  if isnum(b) then return F.add(a, b) end
  if isnum(a) then return F.add(b, a) end
  if torch.isTensor(a) and torch.isTensor(b) then return F.add(a, b) end
  operand_error('__add', a, b)
end

local function sub(a, b)
  if isnum(b) then return F.add(a, -b) end
  if isnum(a) then return F.mul(b, -1):add(a) end
  if torch.isTensor(a) and torch.isTensor(b) then return F.add(a, -1, b) end
  operand_error('__sub', a, b)
end

local function mul(a, b)
  if isnum(b) then return F.mul(a, b) end
  if isnum(a) then return F.mul(b, a) end
  if not (torch.isTensor(a) and torch.isTensor(b)) then operand_error('__mul', a, b) end
  local da, db = a:dim(), b:dim()
  if da == 1 and db == 1 then return F.dot(a, b) end
  if da == 2 and db == 1 then return F.mv(a, b) end
  if da == 2 and db == 2 then return F.mm(a, b) end
  error(string.format("__mul: tensor products are 1D*1D (dot), 2D*1D (mv) and 2D*2D (mm), got %dD*%dD", da, db), 2)
end

local function div(a, b)
  if isnum(b) then return F.div(a, b) end
  if isnum(a) then return F.cinv(b):mul(a) end
  if torch.isTensor(a) and torch.isTensor(b) then return F.cdiv(a, b) end
  operand_error('__div', a, b)
end

local function unm(a) return F.mul(a, -1) end

for tname in pairs(torch._tensortypes) do
  local mt = torch._metatables[tname]
  mt.__add, mt.__sub, mt.__mul, mt.__div, mt.__unm = add, sub, mul, div, unm
end

return torch
