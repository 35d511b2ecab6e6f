-- nn.Maxout(inputSize, outputSize, maxoutNumber [, preprocess]): the maxout
-- layer (Goodfellow et al. 2013): a Linear(inputSize -> outputSize *
-- maxoutNumber), viewed as maxoutNumber x outputSize per sample, optionally
-- followed by 'preprocess' (a module), then the max over the maxoutNumber
-- pieces. Input: inputSize or batch x inputSize. A Sequential, as in
-- Torch7, of existing modules.

local Maxout, parent = torch.class('nn.Maxout', 'nn.Sequential')

function Maxout:__init(inputSize, outputSize, maxoutNumber, preprocess)
  parent.__init(self)
  for i, v in ipairs{inputSize, outputSize, maxoutNumber} do
    if math.type(v) == nil or v < 1 or v ~= math.floor(v) then
      error(string.format('nn.Maxout: %s must be a positive integer, got %s',
                          ({'inputSize', 'outputSize', 'maxoutNumber'})[i], tostring(v)), 2)
    end
  end
  self:add(nn.Linear(inputSize, outputSize * maxoutNumber))
  self:add(nn.View(maxoutNumber, outputSize):setNumInputDims(1))
  if preprocess then self:add(preprocess) end
  self:add(nn.Max(1, 2))
end
