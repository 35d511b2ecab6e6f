-- fuzz/optnet/run.lua: one seed (or one description file), its checks.
--   bin/th fuzz/optnet/run.lua SEED [CHECK ...]
--   bin/th fuzz/optnet/run.lua --desc FILE [CHECK ...]
--   bin/th fuzz/optnet/run.lua --source SEED       prints the net's Lua source
-- Prints, flushed line by line (so the driver knows where a crash happened):
--   BEGIN <check> / STAGE <stage> / RESULT <check> <category> <stage> <detail> <seconds>
-- tab-separated; DONE at the end. Exit status 0 whatever the results.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
local gen = dofile(here .. 'gen.lua')
local checks = dofile(here .. 'checks.lua')

local a = {...}
if #a == 0 then a = arg end
local desc
local i = 2
if a[1] == '--desc' then
  desc = dofile(a[2])
  i = 3
elseif a[1] == '--source' then
  print(gen.source(gen.generate(tonumber(a[2]))))
  return
else
  desc = gen.generate(assert(math.tointeger(tonumber(a[1])), 'run.lua: seed expected'))
end
local list = {}
for j = i, #a do list[#list + 1] = a[j] end
if #list == 0 then list = checks.names end

local function line(...)
  local t = {...}
  for k, v in ipairs(t) do t[k] = tostring(v):gsub('[\t\n]', ' '):sub(1, 400) end
  io.stdout:write(table.concat(t, '\t'), '\n')
  io.stdout:flush()
end

for _, name in ipairs(list) do
  line('BEGIN', name)
  local t0 = os.time()
  checks.run(desc, name, function(kind, ...)
    if kind == 'stage' then return line('STAGE', ...) end
    local cat, stage, detail = ...
    line('RESULT', name, cat, stage, detail, os.time() - t0)
  end)
  collectgarbage()
end
line('DONE')
