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

-- constructors: an optional result first, else a tensor of the default type
local function constructor(name)
  local method = C.methods[name]
  return function(first, ...)
    if torch.isTensor(first) then return method(first, ...) end
    return method(torch.Tensor(), first, ...)
  end
end
for _, name in ipairs{'zeros', 'ones', 'range', 'linspace', 'eye'} do
  torch[name] = constructor(name)
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
