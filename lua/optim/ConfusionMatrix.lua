-- optim.ConfusionMatrix(nclasses or classes [, classes]): counts of
-- (target, prediction) pairs, as Torch7's optim.ConfusionMatrix.
--   conf:add(prediction, target)     prediction: a class number or a score
--                                    vector (its argmax); target: a class
--                                    number or a one-hot/score vector;
--                                    targets < 1 are ignored
--   conf:batchAdd(predictions, targets)  the same for a batch (n, n x 1 or
--                                    n x classes)
--   conf:zero(), conf:updateValids(), conf:farFrr(), tostring(conf)
-- Fields: mat (LongTensor targets x predictions), valids (per-class
-- recall), unionvalids (per-class intersection over union), totalValid
-- (global accuracy), averageValid, averageUnionValid, classes, nclasses.
-- conf:render() returns the row-normalised matrix as an image tensor
-- (no Qt window or legend here).
local ConfusionMatrix = torch.class('optim.ConfusionMatrix')

function ConfusionMatrix:__init(nclasses, classes)
  if type(nclasses) == 'table' then
    classes = nclasses
    nclasses = #classes
  end
  if math.type(nclasses) ~= 'integer' and not (type(nclasses) == 'number' and nclasses == math.floor(nclasses)) or nclasses < 1 then
    error(string.format('optim.ConfusionMatrix: a number of classes (>= 1) or a table of class names expected, got %s',
                        tostring(nclasses)), 2)
  end
  self.mat = torch.LongTensor(nclasses, nclasses):zero()
  self.valids = torch.FloatTensor(nclasses):zero()
  self.unionvalids = torch.FloatTensor(nclasses):zero()
  self.nclasses = nclasses
  self.totalValid = 0
  self.averageValid = 0
  self.classes = classes or {}
  self._mat_flat = self.mat:view(-1)
end

local function classOf(v, who, what, n)
  if type(v) == 'number' then return v end
  if not torch.isTensor(v) or v:dim() ~= 1 then
    error(string.format('optim.ConfusionMatrix:%s: %s must be a class number or a 1D tensor of scores, got %s',
                        who, what, torch.isTensor(v) and (v:dim() .. 'D tensor') or torch.type(v)), 3)
  end
  local _, at = v:double():max(1)
  return at[1]
end

function ConfusionMatrix:_add(p, t)
  if t > 0 then
    if t > self.nclasses or p < 1 or p > self.nclasses or t ~= math.floor(t) or p ~= math.floor(p) then
      error(string.format('optim.ConfusionMatrix:add: classes are 1..%d, got prediction %s and target %s',
                          self.nclasses, tostring(p), tostring(t)), 3)
    end
    self.mat[t][p] = self.mat[t][p] + 1
  end
end

function ConfusionMatrix:add(prediction, target)
  self:_add(classOf(prediction, 'add', 'prediction'), classOf(target, 'add', 'target'))
end

-- the class numbers of a batch: n values, n x 1, or the argmax of n x classes rows
local function batchClasses(v, what)
  if not torch.isTensor(v) or v:dim() < 1 or v:dim() > 2 then
    error(string.format('optim.ConfusionMatrix:batchAdd: %s must be a 1D or 2D tensor, got %s', what,
                        torch.isTensor(v) and (v:dim() .. 'D tensor') or torch.type(v)), 3)
  end
  if v:dim() == 1 then return v:double() end
  if v:size(2) == 1 then return v:select(2, 1):double() end
  local _, at = v:double():max(2)
  return at:select(2, 1):double()
end

function ConfusionMatrix:batchAdd(predictions, targets)
  local preds, targs = batchClasses(predictions, 'predictions'), batchClasses(targets, 'targets')
  if preds:size(1) ~= targs:size(1) then
    error(string.format('optim.ConfusionMatrix:batchAdd: %d predictions for %d targets', preds:size(1), targs:size(1)), 2)
  end
  local keep = targs:ge(1)
  if keep:sum() == 0 then return end
  targs, preds = targs[keep], preds[keep]
  if targs:max() > self.nclasses or preds:min() < 1 or preds:max() > self.nclasses then
    error(string.format('optim.ConfusionMatrix:batchAdd: classes are 1..%d', self.nclasses), 2)
  end
  self._mat_flat = self._mat_flat or self.mat:view(-1)
  local index = ((targs - 1) * self.nclasses + preds):long()
  self._mat_flat:indexAdd(1, index, torch.LongTensor(index:size(1)):fill(1))
end

function ConfusionMatrix:zero()
  self.mat:zero()
  self.valids:zero()
  self.unionvalids:zero()
  self.totalValid = 0
  self.averageValid = 0
end

-- per-class recall and IoU, global and average accuracies (classes never
-- seen, whose recall is 0/0, are left out of the averages)
function ConfusionMatrix:updateValids()
  local n, correct = self.nclasses, 0
  local rows, cols = self.mat:sum(2), self.mat:sum(1)
  for t = 1, n do
    local hit = self.mat[t][t]
    self.valids[t] = hit / rows[t][1]
    self.unionvalids[t] = hit / (rows[t][1] + cols[1][t] - hit)
    correct = correct + hit
  end
  self.totalValid = correct / self.mat:sum()
  local sum, count, usum, ucount = 0, 0, 0, 0
  for t = 1, n do
    local v, u = self.valids[t], self.unionvalids[t]
    if v == v then
      sum, count = sum + v, count + 1
      if u == u then usum, ucount = usum + u, ucount + 1 end
    end
  end
  self.averageValid = sum / count
  self.averageUnionValid = usum / ucount
end

-- false rejection and false acceptance rates per class (-1 for classes
-- with no samples), and the rates of the classes that have samples
function ConfusionMatrix:farFrr()
  local n = self.nclasses
  local samples = self.mat:sum(2)
  local classFrrs, classFars = torch.DoubleTensor(n):fill(-1), torch.DoubleTensor(n):fill(-1)
  local frrs, fars = {}, {}
  for i = 1, n do
    if samples[i][1] ~= 0 then
      local frr = 1 - self.mat[i][i] / samples[i][1]
      local num, den = 0, 0
      for j = 1, n do
        if j ~= i and samples[j][1] ~= 0 then
          num = num + self.mat[j][i] / samples[j][1]
          den = den + 1
        end
      end
      classFrrs[i], classFars[i] = frr, num / den
      frrs[#frrs + 1], fars[#fars + 1] = frr, num / den
    end
  end
  return classFrrs, classFars, torch.DoubleTensor(frrs), torch.DoubleTensor(fars)
end

function ConfusionMatrix:__tostring__()
  self:updateValids()
  local n = self.nclasses
  local out = {'ConfusionMatrix:\n', '['}
  local width = math.max(8, 1 + math.ceil(math.log(self.mat:max(), 10)))
  local named = self.classes and self.classes[1]
  for t = 1, n do
    out[#out + 1] = t == 1 and '[' or ' ['
    for p = 1, n do out[#out + 1] = string.format('%' .. width .. 'd', self.mat[t][p]) end
    local close = t == n and ']]  ' or ']   '
    local pct = string.format('%2.3f', self.valids[t] * 100)
    if named then
      out[#out + 1] = close .. pct .. '% \t[class: ' .. (self.classes[t] or '') .. ']\n'
    else
      out[#out + 1] = close .. pct .. '% \n'
    end
  end
  local function pctOf(v) return tostring(v * 100) end
  out[#out + 1] = ' + average row correct: ' .. pctOf(self.averageValid) .. '% \n'
  out[#out + 1] = ' + average rowUcol correct (VOC measure): ' .. pctOf(self.averageUnionValid) .. '% \n'
  out[#out + 1] = ' + global correct: ' .. pctOf(self.totalValid) .. '%'
  return table.concat(out)
end

-- the row-normalised matrix, classes sorted by score (diagonal) or by
-- occurrence, each cell a block x block square, grid lines at 0.1
function ConfusionMatrix:render(sortmode, display, block)
  sortmode = sortmode or 'score'
  block = block or 25
  local n = self.nclasses
  local conf = self.mat:double()
  local freqs = conf:sum(2):view(-1)
  local norm = conf:clone():cdiv(freqs:clone():clamp(1, math.huge):view(n, 1):expand(n, n))
  local key
  if sortmode == 'score' then key = torch.diag(norm)
  elseif sortmode == 'occurrence' then key = freqs
  else error("optim.ConfusionMatrix:render: sort mode must be 'score' or 'occurrence', got " .. tostring(sortmode), 2) end
  local _, order = torch.sort(key, 1, true)
  local img = torch.zeros(n * block, n * block)
  for t = 1, n do
    for p = 1, n do
      img[{{(t - 1) * block + 1, t * block}, {(p - 1) * block + 1, p * block}}] = norm[order[t]][order[p]]
    end
  end
  for t = 1, n do
    img[{{t * block}, {}}] = 0.1
    img[{{}, {t * block}}] = 0.1
  end
  return img
end

return ConfusionMatrix
