-- nn.DotProduct(): input = {x1, x2}, two vectors of size d or two n x d
-- batches; output = x1 . x2, a vector of size 1 or n. gradInput = {g x2,
-- g x1} (g broadcast over each row). Lua over tensor ops; 'buffer' holds
-- x1 .* x2 during forward.

local DotProduct, parent = torch.class('nn.DotProduct', 'nn.Module')

function DotProduct:__init()
  parent.__init(self)
  self.gradInput = {torch.Tensor(), torch.Tensor()}
end

-- the two inputs as n x d matrices (views or contiguous copies)
local function matrices(input, who)
  local a, b = nn.utils.checkTensorPair(input, who)
  if (a:dim() ~= 1 and a:dim() ~= 2) or not a:isSameSizeAs(b) then
    error(string.format('%s: inputs must be two vectors or two matrices of the same size, got %s and %s', who,
                        nn.utils.shapeString(a), nn.utils.shapeString(b)), 0)
  end
  if a:dim() == 1 then return a:view(1, -1), b:view(1, -1) end
  return a, b
end

function DotProduct:updateOutput(input)
  local a, b = matrices(input, 'nn.DotProduct:updateOutput')
  if torch.type(self.output) ~= torch.type(a) then self.output = a.new() end
  self.buffer = (torch.isTensor(self.buffer) and torch.type(self.buffer) == torch.type(a)) and self.buffer or a.new()
  self.buffer:resizeAs(a):cmul(a, b)
  self.output:resize(a:size(1), 1):sum(self.buffer, 2)
  self.output:resize(a:size(1))
  return self.output
end

function DotProduct:updateGradInput(input, gradOutput)
  local a, b = matrices(input, 'nn.DotProduct:updateGradInput')
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= a:size(1) then
    error(string.format('nn.DotProduct:updateGradInput: gradOutput must have %d elements, got %s', a:size(1),
                        nn.utils.shapeString(gradOutput)), 0)
  end
  local g = nn.utils.gradTable(self, 2, a)
  local go = gradOutput:contiguous():view(-1, 1):expandAs(a)
  g[1]:resizeAs(a):cmul(b, go)
  g[2]:resizeAs(a):cmul(a, go)
  g[1]:resize(input[1]:size())
  g[2]:resize(input[2]:size())
  return self.gradInput
end

function DotProduct:memoryTraits()
  return {buffers = {buffer = 'forward'}, needsInput = true, needsOutput = false}
end
