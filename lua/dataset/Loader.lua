-- dataset.Loader(set, opts): minibatches over a set, in the manner of
-- torchnet's DataLoader (and PyTorch's):
--   local loader = dataset.Loader(train, {batchSize = 64, shuffle = true})
--   for inputs, targets in loader:run() do ... end      -- one epoch
--   loader:size()         the number of batches an epoch gives
--   loader:iterator()     the same iterator as run()
-- set: {data = N x ... tensor, labels = tensor of N} (what dataset.mnist
-- and dataset.cifar load; any table with those two fields).
-- opts:
--   batchSize  samples per batch (default 1)
--   shuffle    a new order every epoch, drawn from torch's generator when
--              the epoch starts (torch.manualSeed(s) makes runs repeat);
--              default false: the set's order
--   dropLast   leave out the last batch when it is short (default false:
--              it is returned with the samples that are left)
--   type       the inputs' tensor type ('torch.FloatTensor', ...; default
--              the data's own): a ByteTensor set gives FloatTensor batches
--              without a converted copy of the whole set
--   transform  function(inputs, targets) called on every batch before it is
--              returned; it may change them in place (normalise, augment)
--              or return new ones: inputs, targets = transform(...) when it
--              returns something
-- Every sample is in exactly one batch per epoch (dropLast aside).
--
-- Prefetch without threads: the first batch of an epoch is assembled when
-- run() is called; after that each call of the iterator takes the batch
-- that is ready and, before returning it, assembles the next one (index,
-- type conversion, transform) into the other of two sets of buffers, which
-- are reused all epoch long (no tensor is allocated per batch once both
-- are sized). Nothing runs in parallel with training: the assembly costs
-- the same time, only one step earlier. What it gives: the batch is ready
-- when asked for, an error in the next batch's transform surfaces a step
-- early, and the two buffer sets are the ones a threaded loader would
-- fill. A returned batch is valid until the next call of the iterator
-- (which fills its buffers with the batch after next): keep it longer with
-- :clone().
require 'torch'

local Loader = {}
Loader.__index = Loader
Loader.__name = 'dataset.Loader'
Loader.__typename = 'dataset.Loader'   -- torch.type(loader)

local function fail(fmt, ...) error(string.format('dataset.Loader: ' .. fmt, ...), 3) end

local function new(_, set, opts)
  if type(set) ~= 'table' or not torch.isTensor(set.data) or not torch.isTensor(set.labels) then
    fail('a set {data = tensor, labels = tensor} expected, got %s', torch.type(set))
  end
  local n = set.data:dim() > 0 and set.data:size(1) or 0
  if n == 0 or set.labels:dim() < 1 or set.labels:size(1) ~= n then
    fail('data and labels must have the same number of samples (>= 1), got %s and %s',
         table.concat(set.data:size():totable(), 'x'), table.concat(set.labels:size():totable(), 'x'))
  end
  opts = opts or {}
  if type(opts) ~= 'table' then fail('options (table) expected, got %s', torch.type(opts)) end
  local bs = opts.batchSize or 1
  if math.type(bs) ~= 'integer' or bs < 1 then fail('batchSize must be a positive integer, got %s', tostring(bs)) end
  if opts.transform ~= nil and type(opts.transform) ~= 'function' then
    fail('transform must be a function(inputs, targets), got %s', torch.type(opts.transform))
  end
  local itype = opts.type or set.data:type()
  if type(itype) ~= 'string' or not itype:match('^torch%.%a+Tensor$') then
    fail("type must be a tensor type name such as 'torch.FloatTensor', got %s", tostring(itype))
  end
  if (opts.dropLast and n < bs) then
    fail('dropLast with batchSize %d leaves no batch of %d samples', bs, n)
  end
  local self = setmetatable({set = set, n = n, batchSize = bs, shuffle = opts.shuffle and true or false,
                             dropLast = opts.dropLast and true or false, type = itype,
                             transform = opts.transform, epoch = 0}, Loader)
  -- two sets of buffers, used in turn; gather holds the indexed rows when
  -- the inputs are converted
  self.buffers = {{inputs = torch.Tensor():type(itype), targets = set.labels.new()},
                  {inputs = torch.Tensor():type(itype), targets = set.labels.new()}}
  if itype ~= set.data:type() then self.gather = set.data.new() end
  return self
end
setmetatable(Loader, {__call = new})

function Loader:size()
  if self.dropLast then return self.n // self.batchSize end
  return (self.n + self.batchSize - 1) // self.batchSize
end

-- batch b (1-based) of the current order into buffer set 'buf'
function Loader:_assemble(b, buf)
  local first = (b - 1) * self.batchSize + 1
  local count = math.min(self.batchSize, self.n - first + 1)
  local idx = self.order:narrow(1, first, count)
  local data, labels = self.set.data, self.set.labels
  if self.gather then
    self.gather:index(data, 1, idx)
    buf.inputs:resize(self.gather:size()):copy(self.gather)
  else
    buf.inputs:index(data, 1, idx)
  end
  buf.targets:index(labels, 1, idx)
  local inputs, targets = buf.inputs, buf.targets
  if self.transform then
    local i2, t2 = self.transform(inputs, targets)
    inputs, targets = i2 or inputs, t2 or targets
  end
  return {inputs, targets}
end

function Loader:run()
  self.epoch = self.epoch + 1
  if self.shuffle then
    self.order = torch.randperm(self.n):long()
  elseif not self.order then
    self.order = torch.range(1, self.n):long()
  end
  local nb, b, turn = self:size(), 0, 1
  local ready = nb > 0 and self:_assemble(1, self.buffers[1]) or nil
  return function()
    if b >= nb then return nil end
    b = b + 1
    local current = ready
    if b < nb then
      turn = 3 - turn
      ready = self:_assemble(b + 1, self.buffers[turn])
    end
    return current[1], current[2]
  end
end

Loader.iterator = Loader.run

function Loader:__tostring()
  return string.format('dataset.Loader: %d samples, %d batches of %d%s%s', self.n, self:size(), self.batchSize,
                       self.shuffle and ', shuffled' or '', self.dropLast and ', last short batch dropped' or '')
end

return Loader
