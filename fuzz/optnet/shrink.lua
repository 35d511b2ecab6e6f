-- fuzz/optnet/shrink.lua: the smallest net that still fails the same way.
--   bin/th fuzz/optnet/shrink.lua SEED [CHECK]
--   bin/th fuzz/optnet/shrink.lua --desc FILE CHECK
-- Without CHECK, runs every check on the seed and takes the worst failure.
-- The failure is (check, outcome, stage); each candidate description (a
-- container's child dropped, a container replaced by one of its children,
-- a module replaced by Identity, a shared module made private, a size made
-- smaller everywhere it occurs, the batch or a spatial size reduced) runs in
-- its own process (run.lua --desc, under timeout, so crashes and hangs
-- shrink too) and is kept when it fails the same way. Greedy, to a fixed
-- point. Prints the minimal net as runnable Lua (and the description file
-- and the command that reproduces the failure).
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
local root = here .. '../../'
local gen = dofile(here .. 'gen.lua')
local checks = dofile(here .. 'checks.lua')

local a = {...}
if #a == 0 then a = arg end
local desc, check
if a[1] == '--desc' then desc, check = dofile(a[2]), a[3]
else desc, check = gen.generate(assert(math.tointeger(tonumber(a[1])), 'shrink.lua: seed expected')), a[2] end
local LIMIT = tonumber(os.getenv('FUZZ_TIMEOUT') or '') or 120
local tmp = os.tmpname()
local RANK = {pass = 0, refused = 1, invalid = 2, error = 3, wrong = 4, hang = 5, crash = 6}

-- runs checks on d in a child process: list of {check, cat, stage, detail}
local function runChild(d, list)
  local f = assert(io.open(tmp, 'w'))
  f:write(gen.dump(d))
  f:close()
  local cmd = string.format('OMP_NUM_THREADS=1 timeout -k 5 %d %sbin/th %srun.lua --desc %s %s 2>/dev/null; echo "RC $?"',
                            LIMIT, root, here, tmp, table.concat(list or {}, ' '))
  local p = io.popen(cmd)
  local res, open, stage, rc = {}, nil, '-', nil
  for l in p:lines() do
    local t = {}
    for x in (l .. '\t'):gmatch('([^\t]*)\t') do t[#t + 1] = x end
    if t[1] == 'BEGIN' then open, stage = t[2], '-'
    elseif t[1] == 'STAGE' then stage = t[2]
    elseif t[1] == 'RESULT' then open = nil; res[#res + 1] = {t[2], t[3], t[4], t[5]}
    elseif l:match('^RC ') then rc = tonumber(l:match('^RC (%d+)')) end
  end
  p:close()
  if open then
    res[#res + 1] = {open, (rc == 124 or rc == 137) and 'hang' or 'crash', stage, 'rc ' .. tostring(rc)}
  end
  return res
end

local target
do
  local res = runChild(desc, check and {check} or nil)
  for _, r in ipairs(res) do
    if RANK[r[2]] > RANK.refused and r[2] ~= 'invalid' and (not target or RANK[r[2]] > RANK[target[2]]) then target = r end
  end
  if not target then
    print('shrink: the net passes (or is refused cleanly) on ' .. (check or 'every check') .. '; nothing to shrink')
    os.exit(0)
  end
  print(string.format('shrink: target %s / %s / %s: %s', target[1], target[2], target[3], target[4]:sub(1, 200)))
end

-- the kind of a failure's message: for numbers, what differed (output,
-- gradInput, ...) and whether NaN; for errors, the message without
-- numbers, paths and container prefixes
local function kind(cat, detail)
  detail = detail or ''
  if cat == 'wrong' then
    return (detail:match('^([%a ]+)') or '') .. (detail:find('NaN') and ' NaN' or '')
  end
  if cat == 'crash' or cat == 'hang' then return detail end
  local m = detail:gsub('stack traceback:.*', ''):gsub('/[%w_./-]+/', ''):gsub('In %d+ module of [%w.]+: ', '')
  return (m:gsub('%d+', '#'):sub(1, 60))
end

local tries = 0
local function fails(d)
  if not gen.fixShares(d.net) then return false end
  if not pcall(gen.source, d) then return false end
  tries = tries + 1
  local function same()
    local r = runChild(d, {target[1]})[1]
    return r and r[2] == target[2] and r[3] == target[3] and kind(r[2], r[4]) == kind(target[2], target[4])
  end
  -- a crash from heap corruption may come and go with the heap's layout:
  -- a candidate must crash twice in a row to be kept
  if target[2] == 'crash' then return same() and same() end
  return same()
end

-- every node of the tree with a setter replacing it
local function nodes(d)
  local list = {}
  local function walk(n, set, parent)
    list[#list + 1] = {node = n, set = set, parent = parent}
    for i, c in ipairs(n.c or {}) do walk(c, function(x) n.c[i] = x end, n) end
    for i, e in ipairs(n.g or {}) do walk(e.node, function(x) e.node = x end, n) end
  end
  walk(d.net, function(x) d.net = x end)
  return list
end

local function size(d)
  local n = 0
  for _ in ipairs(nodes(d)) do n = n + 1 end
  local e = 1
  for _, x in ipairs(d.input) do e = e * x end
  return n, e
end

-- candidates, roughly largest reduction first
local function candidates(d)
  local out = {}
  local list = nodes(d)
  for k, e in ipairs(list) do
    local n = e.node
    -- unwrap: the container replaced by one of its children
    for i = 1, #(n.c or {}) do
      out[#out + 1] = function(c) local l = nodes(c)[k]; l.set(l.node.c[i]) end
    end
    -- drop a child
    if n.c and #n.c > 1 and n.t ~= 'Parallel' then
      for i = 1, #n.c do
        out[#out + 1] = function(c) table.remove(nodes(c)[k].node.c, i) end
      end
    end
    if n.t ~= 'Identity' and k > 1 then
      out[#out + 1] = function(c) nodes(c)[k].set({t = 'Identity', a = {n = 0}}) end
    end
  end
  -- gModule entries: an entry's module replaced by Identity is above
  -- sizes: every occurrence of a number made smaller, and the input's dims
  local nums = {}
  local function collect(n)
    for i = 1, (n.a and (n.a.n or #n.a) or 0) do
      local v = n.a[i]
      if math.type(v) == 'integer' and v > 1 then nums[v] = true end
    end
    for _, c in ipairs(n.c or {}) do collect(c) end
    for _, e in ipairs(n.g or {}) do collect(e.node) end
  end
  collect(d.net)
  for _, v in ipairs(d.input) do if v > 1 then nums[v] = true end end
  local vs = {}
  for v in pairs(nums) do vs[#vs + 1] = v end
  table.sort(vs, function(x, y) return x > y end)
  for _, v in ipairs(vs) do
    for _, w in ipairs{1, v // 2, v - 1} do
      if w >= 1 and w < v then
        out[#out + 1] = function(c)
          local function sub(n)
            for i = 1, (n.a and (n.a.n or #n.a) or 0) do if n.a[i] == v then n.a[i] = w end end
            for _, x in ipairs(n.c or {}) do sub(x) end
            for _, e in ipairs(n.g or {}) do sub(e.node) end
          end
          sub(c.net)
          for i, x in ipairs(c.input) do if x == v then c.input[i] = w end end
        end
      end
    end
  end
  for i, v in ipairs(d.input) do
    for _, w in ipairs{1, v // 2, v - 1} do
      if w >= 1 and w < v then out[#out + 1] = function(c) c.input[i] = w end end
    end
  end
  if d.warm then out[#out + 1] = function(c) c.warm = false end end
  return out
end

local changed = true
while changed do
  changed = false
  for _, f in ipairs(candidates(desc)) do
    local c = gen.copy(desc)
    local ok = pcall(f, c)
    if ok then
      local n1, e1 = size(c)
      local n0, e0 = size(desc)
      if (n1 < n0 or (n1 == n0 and e1 <= e0)) and fails(c) then
        desc = c
        changed = true
        io.stderr:write(string.format('shrink: %d modules, input %s (%d runs)\n', n1,
                                      table.concat(desc.input, 'x'), tries))
        break
      end
    end
  end
end
os.remove(tmp)

local file = string.format('/tmp/optnet-fuzz-%s-%s.lua', tostring(desc.seed), target[1])
local f = assert(io.open(file, 'w'))
f:write(gen.dump(desc))
f:close()
print(string.format('-- minimal net for seed %s, check %s: %s at stage "%s" (%d runs)', desc.seed, target[1],
                    target[2], target[3], tries))
print('-- ' .. (runChild(desc, {target[1]})[1] or {nil, nil, nil, ''})[4]:sub(1, 300))
print('-- description: ' .. file .. '; again: bin/th fuzz/optnet/run.lua --desc ' .. file .. ' ' .. target[1])
print('-- what the check does: ' .. (checks.explain(target[1]) or target[1]))
print(gen.source(desc))
print('-- as a standalone script (the check\'s first stages):')
print('--[==[\n' .. checks.repro(desc, target[1]) .. '\n--]==]')
