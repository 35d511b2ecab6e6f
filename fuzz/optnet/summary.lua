-- fuzz/optnet/summary.lua OUTDIR FIRST LAST: the driver's table.
-- Per seed the worst outcome of its checks (crash > hang > wrong > error >
-- invalid > refused > pass); then the failure families: category, check,
-- stage, how many seeds, the first seeds, the first message. A crash or hang
-- is charged to the check and stage the seed's output names last.
-- Exit status 1 when any seed is worse than a clean refusal.
local a = {...}
if #a == 0 then a = arg end
local out, first, last = a[1], tonumber(a[2]), tonumber(a[3])
local RANK = {pass = 0, refused = 1, invalid = 2, error = 3, wrong = 4, hang = 5, crash = 6}
local SIG = {[4] = 'SIGILL', [6] = 'SIGABRT', [7] = 'SIGBUS', [8] = 'SIGFPE', [9] = 'SIGKILL', [11] = 'SIGSEGV'}
local seeds, fam, famOrder, count = {}, {}, {}, {}
local totalTime = 0
local function add(seed, cat, check, stage, detail)
  local key = cat .. '|' .. check .. '|' .. stage
  if not fam[key] then
    fam[key] = {cat = cat, check = check, stage = stage, seeds = {}, detail = detail}
    famOrder[#famOrder + 1] = key
  end
  local f = fam[key]
  f.seeds[#f.seeds + 1] = seed
end
for s = first, last do
  local worst, rc, secs = 'pass', nil, 0
  local rf = io.open(out .. '/seed-' .. s .. '.rc')
  if rf then rc, secs = rf:read('n', 'n'); rf:close() end
  totalTime = totalTime + (secs or 0)
  local open, stage, done = nil, '-', false
  local f = io.open(out .. '/seed-' .. s .. '.out')
  for l in (f and f:lines() or function() end) do
    local t = {}
    for x in (l .. '\t'):gmatch('([^\t]*)\t') do t[#t + 1] = x end
    if t[1] == 'BEGIN' then open, stage = t[2], '-'
    elseif t[1] == 'STAGE' then stage = t[2]
    elseif t[1] == 'RESULT' then
      open, stage = nil, 'after ' .. t[2] .. ' (collectgarbage)'
      local cat = t[3]
      if RANK[cat] > RANK[worst] then worst = cat end
      if cat ~= 'pass' then add(s, cat, t[2], t[4], t[5]) end
    elseif t[1] == 'DONE' then done = true end
  end
  if f then f:close() end
  if not done then
    local cat, why
    if rc == 124 or rc == 137 then cat, why = 'hang', 'timeout (rc ' .. tostring(rc) .. ')'
    elseif rc and rc > 128 then cat, why = 'crash', (SIG[rc - 128] or ('signal ' .. (rc - 128)))
    else
      cat = 'crash'
      local e = io.open(out .. '/seed-' .. s .. '.err')
      why = 'exit ' .. tostring(rc) .. ': ' .. ((e and e:read('l')) or '')
      if e then e:close() end
    end
    if cat == 'crash' and rc and rc > 128 then why = why end
    add(s, cat, open or (stage == '-' and '(generate)' or '-'), stage, why)
    if RANK[cat] > RANK[worst] then worst = cat end
  end
  seeds[s] = worst
  count[worst] = (count[worst] or 0) + 1
end
local n = last - first + 1
print(string.format('optnet differential fuzzer: seeds %d-%d (%d seeds, %d s of process time)', first, last, n, totalTime))
print()
print('| outcome (worst check of the seed) | seeds |')
print('|---|---|')
for _, c in ipairs{'pass', 'wrong', 'crash', 'hang', 'error', 'refused', 'invalid'} do
  print(string.format('| %s | %d |', c, count[c] or 0))
end
print()
table.sort(famOrder, function(x, y)
  local fx, fy = fam[x], fam[y]
  if RANK[fx.cat] ~= RANK[fy.cat] then return RANK[fx.cat] > RANK[fy.cat] end
  if #fx.seeds ~= #fy.seeds then return #fx.seeds > #fy.seeds end
  return x < y
end)
print('| outcome | check | stage | seeds | first seeds | first message |')
print('|---|---|---|---|---|---|')
for _, k in ipairs(famOrder) do
  local f = fam[k]
  local list = {}
  for i = 1, math.min(6, #f.seeds) do list[i] = tostring(f.seeds[i]) end
  local d = (f.detail or ''):gsub('|', '/'):gsub('stack traceback:.*', ''):sub(1, 110)
  print(string.format('| %s | %s | %s | %d | %s | %s |', f.cat, f.check, f.stage, #f.seeds, table.concat(list, ' '), d))
end
-- coarser: the same outcome, stage and message (numbers and paths
-- blanked) across checks: one row per likely root cause
local coarse, corder = {}, {}
for _, k in ipairs(famOrder) do
  local f = fam[k]
  local msg = (f.detail or ''):gsub('stack traceback:.*', ''):gsub('/[%w_./-]+/', ''):gsub('%-?%d+%.?%d*e?%-?%d*', '#')
  msg = msg:gsub('In # module of [%w.]+: ', ''):sub(1, 70)
  local key = f.cat .. '|' .. f.stage:gsub('%d+', '#') .. '|' .. msg
  if not coarse[key] then
    coarse[key] = {cat = f.cat, stage = f.stage:gsub('%d+', '#'), msg = msg, checks = {}, seeds = {}, nseed = 0}
    corder[#corder + 1] = key
  end
  local c = coarse[key]
  if not c.checks[f.check] then c.checks[f.check] = true; c.checks[#c.checks + 1] = f.check end
  c.ex = c.ex or (f.seeds[1] .. ' ' .. f.check)
  for _, sd in ipairs(f.seeds) do
    if not c.seeds[sd] then c.seeds[sd] = true; c.nseed = c.nseed + 1 end
  end
end
table.sort(corder, function(x, y)
  local cx, cy = coarse[x], coarse[y]
  if RANK[cx.cat] ~= RANK[cy.cat] then return RANK[cx.cat] > RANK[cy.cat] end
  if cx.nseed ~= cy.nseed then return cx.nseed > cy.nseed end
  return x < y
end)
print()
print('Families (same outcome, stage and message across checks):')
print()
print('| outcome | stage | message | seeds | example (seed check) | checks |')
print('|---|---|---|---|---|---|')
for _, k in ipairs(corder) do
  local c = coarse[k]
  local list = {}
  for sd in pairs(c.seeds) do list[#list + 1] = sd end
  table.sort(list)
  table.sort(c.checks)
  local ch = table.concat(c.checks, ' ')
  if #ch > 80 then ch = ch:sub(1, 77) .. '...' end
  print(string.format('| %s | %s | %s | %d | %s | %s |', c.cat, c.stage, (c.msg:gsub('|', '/')), c.nseed, c.ex, ch))
end
local bad = 0
for s = first, last do if RANK[seeds[s]] > RANK.refused then bad = bad + 1 end end
os.exit(bad == 0 and 0 or 1)
