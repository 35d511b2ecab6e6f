-- torch.multinomial([res,] [gen,] prob, n [, replacement=false]): n draws
-- of category numbers (a LongTensor, 1-based) from each row of prob (1D:
-- one distribution, 2D: one per row; weights need not sum to one), as
-- Torch7's: one uniform number per draw from the generator, a binary
-- search in the normalised cumulative weights; without replacement, a
-- drawn category's mass is taken out and the rest renormalised. The same
-- seed gives Torch7's draws.
local torch = torch

local function fail(msg, ...) error(string.format('torch.multinomial: ' .. msg, ...), 3) end

-- defined below; errors are raised at the user's call (torch._userCall)
local multinomial
torch.multinomial = torch._userCall('torch.multinomial', function(...) return multinomial(...) end)

multinomial = function(...)
  local args = table.pack(...)
  local i = 1
  local res, gen
  if torch.isTensor(args[i]) and (torch.isTensor(args[i + 1]) or torch.typename(args[i + 1]) == 'torch.Generator') then
    res = args[i]; i = i + 1
  end
  if torch.typename(args[i]) == 'torch.Generator' then gen = args[i]; i = i + 1 end
  local prob, n, replacement = args[i], args[i + 1], args[i + 2]
  if not torch.isTensor(prob) or (prob:dim() ~= 1 and prob:dim() ~= 2) then
    fail('a 1D or 2D tensor of probabilities expected, got %s',
         torch.isTensor(prob) and (prob:dim() .. 'D tensor') or torch.type(prob))
  end
  if math.type(n) ~= 'integer' and not (type(n) == 'number' and n == math.floor(n)) then
    fail('a number of samples (integer) expected, got %s', tostring(n))
  end
  if n < 1 then fail('cannot sample n_sample < 1 samples, got %d', n) end
  if replacement ~= nil and type(replacement) ~= 'boolean' then
    fail('replacement must be a boolean, got %s', torch.type(replacement))
  end
  if res ~= nil and torch.type(res) ~= 'torch.LongTensor' then
    fail('the result must be a LongTensor, got %s', torch.type(res))
  end
  local rows = prob:dim() == 1 and prob:view(1, -1) or prob
  local ndist, ncat = rows:size(1), rows:size(2)
  if not replacement and n > ncat then
    fail('cannot sample n_sample > prob_dist:size(1) samples without replacement (%d > %d)', n, ncat)
  end
  local p = rows:double()
  res = res or torch.LongTensor()
  res:resize(ndist, n)
  local uniform = gen and function() return torch.uniform(gen, 0, 1) end or function() return torch.uniform(0, 1) end
  local cum = {}
  for d = 1, ndist do
    local row, sum = p[d], 0
    for j = 1, ncat do
      local w = row[j]
      if not (w >= 0) or w == math.huge then fail('invalid weight %s in distribution %d', tostring(w), d) end
      sum = sum + w
      cum[j] = sum
    end
    if not (sum > 0) then fail('invalid multinomial distribution (sum of probabilities <= 0) in row %d', d) end
    if not replacement then
      local positive = 0
      for j = 1, ncat do if row[j] > 0 then positive = positive + 1 end end
      if positive < n then
        fail('cannot draw %d samples without replacement from row %d, which has %d categories of nonzero weight', n, d, positive)
      end
    end
    for j = 1, ncat do cum[j] = cum[j] / sum end
    local out = res[d]
    for s = 1, n do
      local u = uniform()
      cum[ncat] = 1   -- the last bucket reaches 1 whatever the rounding
      local lo, hi = 1, ncat + 1
      while hi > lo do
        local mid = lo + (hi - lo) // 2
        if cum[mid] < u then lo = mid + 1 else hi = mid end
      end
      out[s] = lo
      if not replacement then
        -- take the drawn category's mass out and renormalise
        local below = lo > 1 and cum[lo - 1] or 0
        local mass = cum[lo] - below
        local rest = 1 - mass
        for k = 1, ncat do
          local v = cum[k]
          if k >= lo then v = v - mass end
          cum[k] = v / rest
        end
      end
    end
  end
  if prob:dim() == 1 then res:resize(n) end
  return res
end

torch._defineTensorMethod('multinomial', function(self, n, replacement)
  return torch.multinomial(self, n, replacement)
end)

return torch
