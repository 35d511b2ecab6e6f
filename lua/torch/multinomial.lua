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
  if torch.isTensor(prob) and prob:isFreed() then
    fail('the probabilities were freed (used after :free()/:dispose())')
  end
  if torch.isTensor(res) and res:isFreed() then fail('the result was freed (used after :free()/:dispose())') end
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
  for d = 1, res:dim() do
    if res:stride(d) == 0 and res:size(d) > 1 then
      fail('the result is expanded (stride 0 in dimension %d): pass a tensor that owns its elements', d)
    end
  end
  -- a refused size (2^62 samples) is reported under this function's name
  local ok, err = pcall(res.resize, res, ndist, n)
  if not ok then fail('%s', (tostring(err):gsub('^.-: ', '', 1))) end
  local uniform = gen and function() return torch.uniform(gen, 0, 1) end or function() return torch.uniform(0, 1) end
  local cum = {}
  for d = 1, ndist do
    local row, sum, top = p[d], 0, 0
    for j = 1, ncat do
      local w = row[j]
      if not (w >= 0) or w == math.huge then fail('invalid weight %s in distribution %d', tostring(w), d) end
      top = math.max(top, w)
    end
    -- weights relative to the largest: a sum of 1e308s would overflow to
    -- inf (then every draw fell in one category)
    top = math.max(top, 1e-300)
    for j = 1, ncat do
      sum = sum + row[j] / top
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

-- Walker's alias method (Torch7's multinomialAliasSetup / multinomialAlias):
-- state = torch.multinomialAliasSetup(probs [, state]) builds, in O(K), the
-- table {J, q} for K categories: J (LongTensor) the alias of each bucket,
-- q (probs' type) the chance of keeping the bucket's own category; a draw
-- is then one bucket and one coin. torch.multinomialAlias(output, state)
-- fills the LongTensor output with 1-based categories and returns it.
-- Buckets that need no alias point to themselves (Torch7 left 0 there).
local function alias_fail(fname, msg, ...) error(string.format('torch.' .. fname .. ': ' .. msg, ...), 3) end

-- a freed tensor is refused here, under the caller's name, not by the first
-- method that touches it
local function alias_live(fname, x, what)
  if torch.isTensor(x) and x:isFreed() then alias_fail(fname, '%s was freed (used after :free()/:dispose())', what) end
end

function torch.multinomialAliasSetup(probs, state)
  alias_live('multinomialAliasSetup', probs, 'probs')
  if not torch.isTensor(probs) or probs:dim() ~= 1 then
    alias_fail('multinomialAliasSetup', 'a 1D tensor of probabilities expected, got %s',
                torch.isTensor(probs) and (probs:dim() .. 'D tensor') or torch.type(probs))
  end
  local tn = torch.typename(probs)
  if tn ~= 'torch.FloatTensor' and tn ~= 'torch.DoubleTensor' then
    alias_fail('multinomialAliasSetup', 'Float or Double tensor expected, got %s', tn)
  end
  if state ~= nil and (type(state) ~= 'table' or (state[1] ~= nil and torch.type(state[1]) ~= 'torch.LongTensor')
                       or (state[2] ~= nil and torch.type(state[2]) ~= tn)) then
    alias_fail('multinomialAliasSetup', 'state {LongTensor, %s} expected, got %s', tn, torch.type(state))
  end
  if state ~= nil then
    alias_live('multinomialAliasSetup', state[1], 'state[1]')
    alias_live('multinomialAliasSetup', state[2], 'state[2]')
  end
  local K = probs:size(1)
  local p = probs:double()
  local total, top = 0, 0
  for i = 1, K do
    local w = p[i]
    if not (w >= 0) or w == math.huge then alias_fail('multinomialAliasSetup', 'invalid probability %g at %d', w, i) end
    top = math.max(top, w)
  end
  -- weights relative to the largest: a sum of 1e308s would overflow to inf
  -- (every bucket then looks empty and the draw comes out uniform)
  p = p / math.max(top, 1e-300)
  for i = 1, K do total = total + p[i] end
  if not (total > 0) then alias_fail('multinomialAliasSetup', 'probabilities sum to %s, a positive sum expected', tostring(total)) end
  local q, J, small, large = {}, {}, {}, {}
  for i = 1, K do
    q[i] = K * p[i] / total
    J[i] = i
    if q[i] < 1 then small[#small + 1] = i else large[#large + 1] = i end
  end
  -- each small bucket is topped up to 1 by a large category, which keeps
  -- the rest of its mass
  while #small > 0 and #large > 0 do
    local s, l = table.remove(small), large[#large]
    J[s] = l
    q[l] = q[l] - (1 - q[s])
    if q[l] < 1 then table.remove(large); small[#small + 1] = l end
  end
  -- what is left is 1 up to rounding
  for _, i in ipairs(large) do q[i] = 1 end
  for _, i in ipairs(small) do q[i] = 1 end
  state = state or {}
  state[1] = (state[1] or torch.LongTensor()):resize(K)
  state[2] = (state[2] or probs.new()):resize(K)
  for i = 1, K do state[1][i], state[2][i] = J[i], q[i] end
  return state
end

function torch.multinomialAlias(output, state)
  alias_live('multinomialAlias', output, 'output')
  if type(state) == 'table' then
    alias_live('multinomialAlias', state[1], 'state[1]')
    alias_live('multinomialAlias', state[2], 'state[2]')
  end
  if torch.type(output) ~= 'torch.LongTensor' then
    alias_fail('multinomialAlias', 'LongTensor output expected, got %s', torch.type(output))
  end
  for d = 1, output:dim() do
    if output:stride(d) == 0 and output:size(d) > 1 then
      alias_fail('multinomialAlias',
                 'output is expanded (stride 0 in dimension %d): pass a tensor that owns its elements', d)
    end
  end
  if type(state) ~= 'table' or torch.type(state[1]) ~= 'torch.LongTensor' or not torch.isTensor(state[2])
     or state[1]:dim() ~= 1 or state[2]:dim() ~= 1 or state[1]:size(1) ~= state[2]:size(1) then
    alias_fail('multinomialAlias', 'state {J, q} from torch.multinomialAliasSetup expected, got %s', torch.type(state))
  end
  local J, q = state[1], state[2]:double()
  local K = J:size(1)
  if J:min() < 1 or J:max() > K then alias_fail('multinomialAlias', 'state holds aliases outside 1..%d', K) end
  -- q is a probability per bucket: NaN or one outside [0, 1] is no state of setup's
  if torch.ne(q, q):sum() > 0 or q:min() < 0 or q:max() > 1 then
    alias_fail('multinomialAlias', 'state holds bucket probabilities outside [0, 1]')
  end
  -- a non-contiguous output is filled through a contiguous copy
  local flat = output:isContiguous() and output:view(-1) or torch.LongTensor(output:nElement())
  local n, chunk = flat:size(1), 1048576
  for first = 1, n, chunk do
    local m = math.min(chunk, n - first + 1)
    local bucket = torch.DoubleTensor(m):uniform(0, K):floor():clamp(0, K - 1):long():add(1)
    local keep = torch.lt(torch.DoubleTensor(m):uniform(), q:index(1, bucket)):long()
    local alias = J:index(1, bucket)
    -- keep ? bucket : alias
    flat:narrow(1, first, m):copy(bucket:csub(alias):cmul(keep):add(alias))
  end
  if not output:isContiguous() then output:copy(flat:viewAs(output)) end
  return output
end

-- prob:multinomial(n [, replacement]) and Torch7's res:multinomial([gen,] prob, n [, replacement])
torch._defineTensorMethod('multinomial', function(self, ...)
  return torch.multinomial(self, ...)
end)

return torch
