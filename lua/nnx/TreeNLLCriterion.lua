-- nn.TreeNLLCriterion() (nnx): the criterion after nn.SoftMaxTree, whose
-- output already is the log-likelihood of each example's target:
-- output = -mean(input) over a 1D input (or N x 1), gradInput = -1/N
-- everywhere. The target is ignored (SoftMaxTree used it).
local TreeNLLCriterion, parent = torch.class('nn.TreeNLLCriterion', 'nn.Criterion')

function TreeNLLCriterion:__init()
  parent.__init(self)
end

local function check(input)
  if not (input:dim() == 1 or (input:dim() == 2 and input:size(2) == 1)) then
    error(string.format('nn.TreeNLLCriterion: 1D input (one log-likelihood per example) expected, got %s',
                        table.concat(input:size():totable(), 'x')), 3)
  end
end

function TreeNLLCriterion:updateOutput(input, target)
  check(input)
  self.output = -input:mean()
  return self.output
end

function TreeNLLCriterion:updateGradInput(input, target)
  check(input)
  self.gradInput:resizeAs(input):fill(-1 / input:size(1))
  return self.gradInput
end
