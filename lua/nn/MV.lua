-- nn.MV([trans = false]): input = {M, v}, a matrix (2D) and a vector (1D),
-- or a batch of each (3D and 2D, same batch size); output = M * v (M
-- transposed first when trans), a vector or a batch of vectors.
-- gradInput = {g v' (v g' when trans), M' g (M g when trans)}. Lua over
-- BLAS (mv, ger, bmm).

local MV, parent = torch.class('nn.MV', 'nn.Module')

function MV:__init(trans)
  parent.__init(self)
  if trans ~= nil and type(trans) ~= 'boolean' then
    error(string.format('nn.MV: trans must be a boolean (transpose the matrix first), got %s', type(trans)), 2)
  end
  self.trans = trans or false
  self.gradInput = {torch.Tensor(), torch.Tensor()}
end

-- M, v and M as multiplied (transposed when asked), shapes checked
local function operands(self, input, who)
  local m, v = nn.utils.checkTensorPair(input, who)
  if not ((m:dim() == 2 and v:dim() == 1) or (m:dim() == 3 and v:dim() == 2)) then
    error(string.format('%s: input must be a 2D matrix and a 1D vector, or a 3D batch of matrices and a 2D batch of vectors, got %s and %s',
                        who, nn.utils.shapeString(m), nn.utils.shapeString(v)), 0)
  end
  if m:dim() == 3 and m:size(1) ~= v:size(1) then
    error(string.format('%s: inputs must hold the same number of matrices and vectors, got %s and %s', who,
                        nn.utils.sizeString(m), nn.utils.sizeString(v)), 0)
  end
  local h = m:dim() - 1
  local tm = self.trans and m:transpose(h, h + 1) or m
  if tm:size(h + 1) ~= v:size(v:dim()) then
    error(string.format('%s: matrix %s%s and vector %s do not match', who, nn.utils.sizeString(m),
                        self.trans and "'" or '', nn.utils.sizeString(v)), 0)
  end
  return m, v, tm, h
end

function MV:updateOutput(input)
  local m, v, tm, h = operands(self, input, 'nn.MV:updateOutput')
  if torch.type(self.output) ~= torch.type(m) then self.output = m.new() end
  if h == 1 then
    self.output:resize(tm:size(1)):mv(tm, v)
  else
    local b, r, c = tm:size(1), tm:size(2), tm:size(3)
    self.output:resize(b, r, 1):bmm(tm, v:contiguous():view(b, c, 1))
    self.output:resize(b, r)
  end
  return self.output
end

function MV:updateGradInput(input, gradOutput)
  local m, v, tm, h = operands(self, input, 'nn.MV:updateGradInput')
  local rows = tm:size(h)
  local okShape = torch.isTensor(gradOutput) and gradOutput:dim() == h and gradOutput:size(h) == rows
                  and (h == 1 or gradOutput:size(1) == tm:size(1))
  if not okShape then
    error(string.format('nn.MV:updateGradInput: gradOutput must be %s, got %s',
                        h == 1 and tostring(rows) or (tm:size(1) .. 'x' .. rows), nn.utils.shapeString(gradOutput)), 0)
  end
  local g = nn.utils.gradTable(self, 2, m)
  if h == 1 then
    g[1]:resizeAs(m):zero()
    if self.trans then g[1]:addr(v, gradOutput) else g[1]:addr(gradOutput, v) end
    g[2]:resizeAs(v):mv(tm:t(), gradOutput)
  else
    local b, r, c = tm:size(1), tm:size(2), tm:size(3)
    local go = gradOutput:contiguous()
    local vv = v:contiguous()
    g[1]:resizeAs(m)
    if self.trans then
      g[1]:bmm(vv:view(b, c, 1), go:view(b, 1, r))
    else
      g[1]:bmm(go:view(b, r, 1), vv:view(b, 1, c))
    end
    g[2]:resize(b, c, 1):bmm(tm:transpose(2, 3), go:view(b, r, 1))
    g[2]:resize(b, c)
  end
  return self.gradInput
end

function MV:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
