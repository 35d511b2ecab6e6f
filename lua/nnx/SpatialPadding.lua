-- nn.SpatialPadding(pad_l [, pad_r, pad_t, pad_b, y_dim=2, x_dim=3, val=0])
-- (nnx): pads dimension x_dim with pad_l columns before and pad_r after,
-- y_dim with pad_t rows before and pad_b after, filled with val; a
-- negative pad crops instead. pad_r, pad_t and pad_b default to pad_l.
-- Works for any number of dimensions (batch included: y_dim=3, x_dim=4).
local SpatialPadding, parent = torch.class('nn.SpatialPadding', 'nn.Module')

function SpatialPadding:__init(pad_l, pad_r, pad_t, pad_b, y_dim, x_dim, val)
  parent.__init(self)
  if type(pad_l) ~= 'number' then
    error('nn.SpatialPadding(pad_l [, pad_r, pad_t, pad_b, y_dim, x_dim, val]): pad_l (number) expected, got '
          .. type(pad_l), 2)
  end
  self.pad_l = pad_l
  self.pad_r = pad_r or pad_l
  self.pad_t = pad_t or pad_l
  self.pad_b = pad_b or pad_l
  self.y_dim = y_dim or 2
  self.x_dim = x_dim or 3
  if self.x_dim % 1 ~= 0 then error('nn.SpatialPadding: x_dim must be an integer', 2) end
  if self.y_dim % 1 ~= 0 then error('nn.SpatialPadding: y_dim must be an integer', 2) end
  self.val = val or 0
end

-- the window of 't' along 'dim' between 'before' and 'after' (positive:
-- skip that many, negative: nothing skipped on that side)
local function inner(t, dim, before, after)
  local from = math.max(before, 0)
  local n = t:size(dim) - from - math.max(after, 0)
  return t:narrow(dim, from + 1, n)
end

-- the overlapping windows of output (padded) and input (cropped)
function SpatialPadding:_windows(big, small)
  local b = inner(inner(big, self.y_dim, self.pad_t, self.pad_b), self.x_dim, self.pad_l, self.pad_r)
  local s = inner(inner(small, self.y_dim, -self.pad_t, -self.pad_b), self.x_dim, -self.pad_l, -self.pad_r)
  return b, s
end

function SpatialPadding:updateOutput(input)
  if input:dim() < math.max(self.x_dim, self.y_dim) then
    error(string.format('nn.SpatialPadding: input with at least %d dimensions expected, got %dD',
                        math.max(self.x_dim, self.y_dim), input:dim()), 2)
  end
  local size = input:size()
  size[self.y_dim] = size[self.y_dim] + self.pad_t + self.pad_b
  size[self.x_dim] = size[self.x_dim] + self.pad_l + self.pad_r
  if size[self.y_dim] < 1 or size[self.x_dim] < 1 then
    error('nn.SpatialPadding: input is too small for the (negative) padding', 2)
  end
  self.output:resize(size):fill(self.val)
  local out, inp = self:_windows(self.output, input)
  out:copy(inp)
  return self.output
end

function SpatialPadding:updateGradInput(input, gradOutput)
  self.gradInput:resizeAs(input):zero()
  local go, gi = self:_windows(gradOutput, self.gradInput)
  gi:copy(go)
  return self.gradInput
end
