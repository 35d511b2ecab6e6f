-- nn.MM([transA = false, transB = false]): input = {A, B}, two matrices
-- (2D) or two batches of matrices (3D, same batch size); output = A * B
-- (A and/or B transposed first when transA/transB), batched by bmm.
-- gradInput[1] = G * B' (or B * G' when transA), gradInput[2] = A' * G
-- (or G' * A when transB). Lua over BLAS gemm (mm/bmm).

local MM, parent = torch.class('nn.MM', 'nn.Module')

function MM:__init(transA, transB)
  parent.__init(self)
  if (transA ~= nil and type(transA) ~= 'boolean') or (transB ~= nil and type(transB) ~= 'boolean') then
    error(string.format('nn.MM: transA and transB must be booleans, got %s and %s', type(transA), type(transB)), 2)
  end
  self.transA = transA or false
  self.transB = transB or false
  self.gradInput = {torch.Tensor(), torch.Tensor()}
end

-- A and B (transposed as asked) after checking their shapes; 'batched'
local function operands(self, input, who)
  local a, b = nn.utils.checkTensorPair(input, who)
  if (a:dim() ~= 2 and a:dim() ~= 3) or b:dim() ~= a:dim() then
    error(string.format('%s: inputs must be two 2D matrices or two 3D batches of matrices, got %s and %s', who,
                        nn.utils.shapeString(a), nn.utils.shapeString(b)), 0)
  end
  local h = a:dim() - 1   -- the row dimension
  if a:dim() == 3 and a:size(1) ~= b:size(1) then
    error(string.format('%s: inputs must hold the same number of matrices, got %s and %s', who,
                        nn.utils.sizeString(a), nn.utils.sizeString(b)), 0)
  end
  local ta = self.transA and a:transpose(h, h + 1) or a
  local tb = self.transB and b:transpose(h, h + 1) or b
  if ta:size(h + 1) ~= tb:size(h) then
    error(string.format('%s: matrix sizes do not match: %s%s times %s%s', who, nn.utils.sizeString(a),
                        self.transA and "'" or '', nn.utils.sizeString(b), self.transB and "'" or ''), 0)
  end
  return a, b, ta, tb, h
end

function MM:updateOutput(input)
  local a, _, ta, tb, h = operands(self, input, 'nn.MM:updateOutput')
  if torch.type(self.output) ~= torch.type(a) then self.output = a.new() end
  if h == 1 then
    self.output:resize(ta:size(1), tb:size(2)):mm(ta, tb)
  else
    self.output:resize(ta:size(1), ta:size(2), tb:size(3)):bmm(ta, tb)
  end
  return self.output
end

function MM:updateGradInput(input, gradOutput)
  local a, b, ta, tb, h = operands(self, input, 'nn.MM:updateGradInput')
  local want = h == 1 and {ta:size(1), tb:size(2)} or {ta:size(1), ta:size(2), tb:size(3)}
  local ok = torch.isTensor(gradOutput) and gradOutput:dim() == #want
  for i = 1, #want do ok = ok and gradOutput:size(i) == want[i] end
  if not ok then
    error(string.format('nn.MM:updateGradInput: gradOutput must be %s, got %s', table.concat(want, 'x'),
                        nn.utils.shapeString(gradOutput)), 0)
  end
  local g = nn.utils.gradTable(self, 2, a)
  local f = h == 1 and 'mm' or 'bmm'
  local gt = gradOutput:transpose(h, h + 1)
  g[1]:resizeAs(a)
  g[2]:resizeAs(b)
  -- dA' = B'' G' when A was transposed; dA = G B'
  if self.transA then g[1][f](g[1], tb, gt) else g[1][f](g[1], gradOutput, tb:transpose(h, h + 1)) end
  if self.transB then g[2][f](g[2], gt, ta) else g[2][f](g[2], ta:transpose(h, h + 1), gradOutput) end
  return self.gradInput
end

function MM:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false}
end
