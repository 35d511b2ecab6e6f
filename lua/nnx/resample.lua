-- nnx.resample: separable linear resampling along one dimension, shared
-- by SpatialReSampling, SpatialReSamplingEx, SpatialUpSampling and
-- SpatialDownSampling. A resampling of n input positions to m output
-- positions is a short list of taps {index = LongTensor(m), weight =
-- DoubleTensor(m) or nil (all ones)}: output[o] = sum over taps of
-- weight[o] * input[index[o]]. Forward gathers (index), backward scatters
-- (indexAdd), so the cost is (number of taps) x (number of elements) in
-- tensor kernels, not a dense m x n matrix.
local resample = {}

local function taps1(m, f)
  local index, weight = torch.LongTensor(m), torch.DoubleTensor(m)
  for o = 1, m do index[o], weight[o] = f(o - 1) end
  return index, weight
end

-- bilinear with the corners aligned (nnx's): input position (n-1)/(m-1)*o
-- (0-based); an output of one position samples the first input
function resample.bilinear(n, m)
  local ratio = m > 1 and (n - 1) / (m - 1) or 0
  local i0, w0 = taps1(m, function(o)
    local pos = ratio * o
    local base = math.min(math.floor(pos), n - 1)
    return base + 1, 1 - (pos - base)
  end)
  local i1, w1 = taps1(m, function(o)
    local pos = ratio * o
    local base = math.min(math.floor(pos), n - 1)
    return math.min(base + 1, n - 1) + 1, pos - base
  end)
  return {{index = i0, weight = w0}, {index = i1, weight = w1}}
end

-- nearest: output o reads input floor(o / step) (0-based)
function resample.nearest(m, step)
  local index = torch.LongTensor(m)
  for o = 1, m do index[o] = math.floor((o - 1) / step) + 1 end
  return {{index = index}}
end

-- decimation: output o reads input o * step (0-based)
function resample.pick(m, step)
  local index = torch.LongTensor(m)
  for o = 1, m do index[o] = (o - 1) * step + 1 end
  return {{index = index}}
end

-- block average: output o is the mean of inputs o*step .. o*step+step-1
function resample.average(m, step)
  local taps = {}
  for k = 1, step do
    local index = torch.LongTensor(m)
    for o = 1, m do index[o] = (o - 1) * step + k end
    taps[k] = {index = index, weight = torch.DoubleTensor(m):fill(1 / step)}
  end
  return taps
end

-- the weights as a tensor like t, broadcast along every dimension but dim
local function expanded(weight, t, dim)
  local shape = {}
  for d = 1, t:dim() do shape[d] = d == dim and weight:size(1) or 1 end
  return weight:typeAs(t):view(table.unpack(shape)):expandAs(t)
end

-- out (resized) = the resampling of input along dim
function resample.forward(out, input, dim, taps)
  for k, tap in ipairs(taps) do
    local picked = input:index(dim, tap.index)
    if tap.weight then picked:cmul(expanded(tap.weight, picked, dim)) end
    if k == 1 then out:resizeAs(picked):copy(picked) else out:add(picked) end
  end
  return out
end

-- gradIn (resized to the input's sizes) = the transpose of the
-- resampling applied to gradOut
function resample.backward(gradIn, inputSize, gradOut, dim, taps)
  gradIn:resize(inputSize):zero()
  for _, tap in ipairs(taps) do
    local g = gradOut
    if tap.weight then g = gradOut:clone():cmul(expanded(tap.weight, gradOut, dim)) end
    gradIn:indexAdd(dim, tap.index, g)
  end
  return gradIn
end

-- a 2D resampling of dimensions ydim and xdim through a buffer:
-- returns out; buffers live in module 'm' (m._rsTmp)
function resample.forward2d(m, out, input, ydim, xdim, ytaps, xtaps)
  m._rsTmp = m._rsTmp and m._rsTmp:type() == input:type() and m._rsTmp or input.new()
  resample.forward(m._rsTmp, input, ydim, ytaps)
  return resample.forward(out, m._rsTmp, xdim, xtaps)
end

function resample.backward2d(m, gradIn, input, gradOut, ydim, xdim, ytaps, xtaps)
  m._rsGrad = m._rsGrad and m._rsGrad:type() == input:type() and m._rsGrad or input.new()
  -- forward went (ih, iw) -> (oh, iw) -> (oh, ow): undo x first
  local mid = gradOut:size()
  mid[xdim] = input:size(xdim)
  resample.backward(m._rsGrad, mid, gradOut, xdim, xtaps)
  return resample.backward(gradIn, input:size(), m._rsGrad, ydim, ytaps)
end

return resample
