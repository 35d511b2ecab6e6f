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
local fold = {}

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
      if #rec > 0 then m._optnetFold = rec end
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
    end
  end
  visit(net)
  return n
end

return fold
