-- optnet.fold: in inference, batch normalization folded into the
-- convolution before it (optnet.optimizeMemory's foldBatchNorm option).
-- In an nn.Sequential, a SpatialConvolution (or ...MM) followed by a
-- SpatialBatchNormalization in evaluate mode computes, per output plane o,
--   y = (conv(x) + b[o] - mean[o]) * k[o] + beta[o],  k = gamma / sqrt(var + eps)
-- which is the convolution with weight w[o] * k[o] and bias
-- (b[o] - mean[o]) * k[o] + beta[o]: one pass over the activations fewer.
-- The batch norm leaves the container; the record of what changed is kept
-- on the container itself (field _optnetFold: the batch norm, its index,
-- the convolution's original weight and bias), so that clone and save carry
-- it, and undo puts back the very same tensors' values, bit for bit.
--
-- A folded container computes inference's function only: the batch norm is
-- gone, so in training mode (which would normalize by the batch) it would
-- compute another function, silently, and its gradients are those of other
-- parameters. So a container carrying a fold record refuses forward while
-- any of its folded batch norms is in training mode, and backward always.
-- The batch norms are not among its children any more: the container's
-- training() and evaluate() set their mode too (net:training() reaches
-- them so). These guards are hooks (Module:hook) on the container,
-- made from the record by fold.guard: at folding, and by optnet for a net
-- derived from a folded one (clone, :type(), torch.load: nn.utils.derived),
-- so they hold wherever the record goes.
local fold = {}

-- container -> its guards' hook handles (weak: a container that goes
-- leaves nothing behind)
local guarded = setmetatable({}, {__mode = 'k'})

local function refuse(m, name, why)
  error(string.format('%s:%s: its batch norms were folded into the convolutions before them by optnet '
    .. '(optimizeMemory\'s foldBatchNorm, inference only) and %s; call net:evaluate() to run the folded net, '
    .. 'or optnet.removeOptimization(net) first to get the batch norms back', torch.type(m), name, why), 3)
end

-- installs the guards on m when it carries a fold record and has none yet
function fold.guard(m)
  if type(rawget(m, '_optnetFold')) ~= 'table' or guarded[m] then return end
  local handles = {}
  guarded[m] = handles
  local function hook(k, fn) handles[#handles + 1] = m:hook(k, fn) end
  -- the record as it is now (:type() makes its tables anew)
  local function each(self, f)
    for _, r in ipairs(rawget(self, '_optnetFold') or {}) do if f(r.bn) then return true end end
    return false
  end
  hook('updateOutput', function(nextf, self, input)
    if each(self, function(bn) return bn.train end) then
      refuse(self, 'updateOutput', 'in training mode it would compute another function')
    end
    return nextf(self, input)
  end)
  for _, k in ipairs{'backward', 'updateGradInput', 'accGradParameters'} do
    hook(k, function(_, self)
      refuse(self, k, 'its gradients would be those of other parameters')
    end)
  end
  hook('training', function(nextf, self)
    each(self, function(bn) bn:training() end)
    return nextf(self)
  end)
  hook('evaluate', function(nextf, self)
    each(self, function(bn) bn:evaluate() end)
    return nextf(self)
  end)
end

-- refuses, as a folded container's forward would, when a container among
-- modules carries a fold whose batch norms are in training mode (optnet
-- calls it before it re-plans a net for a new input: the re-plan would
-- undo the fold)
function fold.check(modules)
  for _, m in ipairs(modules) do
    for _, r in ipairs(rawget(m, '_optnetFold') or {}) do
      if r.bn.train then refuse(m, 'updateOutput', 'in training mode it would compute another function') end
    end
  end
end

-- the guards of every module below net (them included)
function fold.guardAll(modules)
  for _, m in ipairs(modules) do fold.guard(m) end
end

local function unguard(m)
  local handles = guarded[m]
  if not handles then return end
  for i = #handles, 1, -1 do handles[i]:remove() end
  guarded[m] = nil
end

local CONV = {['nn.SpatialConvolution'] = true, ['nn.SpatialConvolutionMM'] = true}

local function foldable(a, b)
  return CONV[torch.typename(a)] and torch.typename(b) == 'nn.SpatialBatchNormalization'
    and not b.train and b.running_mean and b.running_var
    and b.running_mean:nElement() == a.nOutputPlane
end

-- folds every pair in the net's Sequentials; returns how many
function fold.apply(net)
  local n = 0
  local function visit(m)
    if torch.typename(m) == 'nn.Sequential' and not rawget(m, '_optnetFold') then
      local rec, i = {}, 1
      while i < #m.modules do
        local c, bn = m.modules[i], m.modules[i + 1]
        if foldable(c, bn) then
          local k = bn.running_var:clone():add(bn.eps):sqrt():cinv()
          if bn.weight then k:cmul(bn.weight) end
          rec[#rec + 1] = {index = i + 1, bn = bn, conv = c, weight = c.weight:clone(),
                           bias = c.bias and c.bias:clone() or false}
          local w2 = c.weight:view(c.nOutputPlane, -1)
          w2:cmul(k:view(-1, 1):expandAs(w2))
          if not c.bias then
            c.bias = c.weight.new(c.nOutputPlane):zero()
            c.gradBias = c.weight.new(c.nOutputPlane):zero()
          end
          c.bias:add(-1, bn.running_mean):cmul(k)
          if bn.bias then c.bias:add(bn.bias) end
          table.remove(m.modules, i + 1)
          n = n + 1
        end
        i = i + 1
      end
      if #rec > 0 then
        m._optnetFold = rec
        fold.guard(m)
      end
    end
    for _, child in ipairs(m.modules or {}) do visit(child) end
  end
  visit(net)
  return n
end

-- puts every folded batch norm back and the convolutions' weights and
-- biases as they were; returns how many
function fold.undo(net)
  local n = 0
  local function visit(m)
    for _, child in ipairs(m.modules or {}) do visit(child) end
    local rec = rawget(m, '_optnetFold')
    if rec then
      for j = #rec, 1, -1 do
        local r = rec[j]
        r.conv.weight:copy(r.weight)
        if r.bias then
          r.conv.bias:copy(r.bias)
        else
          r.conv.bias, r.conv.gradBias = nil, nil
        end
        table.insert(m.modules, r.index, r.bn)
        n = n + 1
      end
      m._optnetFold = nil
      unguard(m)
    end
  end
  visit(net)
  return n
end

return fold
