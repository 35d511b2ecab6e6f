-- nn.Normalize(p [, eps]): y = x / (||x||_p + eps-term) for a vector (1D) or
-- each row of a batch (2D). For finite p: ||x||_p = (sum |x|^p + eps)^(1/p);
-- for p = math.huge: max |x| + eps. eps = 1e-10 by default.
-- Backward (as Torch7, per row, N the norm, Np = N^p):
--   dx = (Np go - b (x . go)) / (Np N),  b = x |x|^(p-2)   (finite p)
--   dx = (N go - b (x . go)) / N^2,      b = x_k / N at the arg-max k only (inf)
-- Composition of tensor ops. Fields as Torch7's (p, eps; norm, normp,
-- _indices, buffer, buffer2, cross as buffers); the output and gradInput are
-- written directly (Torch7 views them on '_output'/'_gradInput').

local Normalize, parent = torch.class('nn.Normalize', 'nn.Module')

function Normalize:__init(p, eps)
  parent.__init(self)
  if type(p) ~= 'number' then
    error(string.format('nn.Normalize: p-norm not provided (a number), got %s', torch.type(p)), 2)
  end
  if not (p > 0) then
    error(string.format('nn.Normalize: %g-norm not supported (p must be > 0)', p), 2)
  end
  if eps ~= nil and type(eps) ~= 'number' then
    error(string.format('nn.Normalize: eps must be a number, got %s', torch.type(eps)), 2)
  end
  self.p = p
  self.eps = eps or 1e-10
end

-- the input (or gradOutput) as n x d
local function rows(t, method, what)
  if not torch.isTensor(t) then
    error(string.format('nn.Normalize:%s: %s must be a tensor, got %s', method, what, torch.type(t)), 3)
  end
  if t:dim() ~= 1 and t:dim() ~= 2 then
    error(string.format('nn.Normalize:%s: %s must be 1D or 2D (a vector or a batch of rows), got %dD',
                        method, what, t:dim()), 3)
  end
  return t:dim() == 1 and t:view(1, -1) or t
end

function Normalize:updateOutput(input)
  local x = rows(input, 'updateOutput', 'input')
  self.norm = self.norm or x.new()
  self.buffer = self.buffer or x.new()
  if self.p == math.huge then
    self._indices = self._indices or torch.LongTensor()
    self.buffer:resizeAs(x):abs(x)
    torch.max(self.norm, self._indices, self.buffer, 2)
    self.norm:add(self.eps)
  else
    self.normp = self.normp or x.new()
    if self.p % 2 ~= 0 then
      self.buffer:resizeAs(x):abs(x):pow(self.p)
    else
      self.buffer:resizeAs(x):pow(x, self.p)
    end
    self.normp:sum(self.buffer, 2):add(self.eps)
    self.norm:resizeAs(self.normp):pow(self.normp, 1 / self.p)
  end
  self.output:resizeAs(input)
  self.output:view(x:size()):cdiv(x, self.norm:view(-1, 1):expandAs(x))
  return self.output
end

function Normalize:updateGradInput(input, gradOutput)
  local x = rows(input, 'updateGradInput', 'input')
  nn.utils.needForward(self, self.norm, 'norms')
  if self.p ~= math.huge then nn.utils.needForward(self, self.normp, 'norms') end
  if gradOutput:nElement() ~= x:nElement() then
    error(string.format('nn.Normalize:updateGradInput: gradOutput must have as many elements as the input (%d), got %d',
                        x:nElement(), gradOutput:nElement()), 2)
  end
  local n, d = x:size(1), x:size(2)
  local go = gradOutput:contiguous():view(n, d)
  self.cross = self.cross or x.new()
  self.buffer2 = self.buffer2 or x.new()
  self.gradInput:resizeAs(input)
  local gi = self.gradInput:view(n, d)
  if self.p == math.huge then
    gi:cmul(self.norm:view(n, 1):expand(n, d), go)
    self.buffer:resizeAs(x):zero()
    self.cross:resize(n, 1)
    self.cross:gather(x, 2, self._indices)
    self.cross:cdiv(self.norm)
    self.buffer:scatter(2, self._indices, self.cross)
  else
    gi:cmul(self.normp:view(n, 1):expand(n, d), go)
    -- buffer = x |x|^(p-2)
    if self.p % 2 ~= 0 then
      if self.p < 2 then
        -- eps keeps |x|^(p-2) finite at 0
        self.buffer:resizeAs(x):abs(x):add(self.eps):pow(self.p - 2):cmul(x)
      else
        self.buffer:resizeAs(x):abs(x):pow(self.p - 2):cmul(x)
      end
    elseif self.p == 2 then
      self.buffer:resizeAs(x):copy(x)
    else
      self.buffer:resizeAs(x):pow(x, self.p - 2):cmul(x)
    end
  end
  -- the cross term b (x . go), without an n x d x d temporary
  self.buffer2:resizeAs(x):cmul(x, go)
  self.cross:resize(n, 1):sum(self.buffer2, 2)
  self.buffer:cmul(self.cross:expandAs(self.buffer))
  gi:add(-1, self.buffer)
  if self.p == math.huge then
    self.cross:cmul(self.norm, self.norm)
  else
    self.cross:cmul(self.normp, self.norm)
  end
  gi:cdiv(self.cross:expand(n, d))
  return self.gradInput
end

-- norm, normp and the arg-max indices carry from forward to backward
function Normalize:memoryTraits()
  return {buffers = {norm = 'both', normp = 'both', _indices = 'both', buffer = 'both',
                     buffer2 = 'backward', cross = 'backward'},
          needsInput = true, needsOutput = false}
end

function Normalize:__tostring__()
  -- an integer p prints as one
  local s = self.p % 1 == 0 and '%s(%d)' or '%s(%f)'
  return string.format(s, torch.type(self), self.p)
end

-- the indices stay a LongTensor whatever the type
function Normalize:type(tname, tensorCache)
  if tname then self._indices = nil end
  return parent.type(self, tname, tensorCache)
end
