-- dataparallel.agree: collectives that make the ranks agree before they
-- branch (docs/dev/hardening-36.md, "Collective paths").
-- MPI needs every rank to call the same collectives in the same order. A
-- branch on one rank's local data (its state's keys, its slice's length,
-- whether its read or its check failed) can send the ranks down different
-- paths: one waits forever in a collective the others never call. So every
-- such decision goes through these, whose own sequence is fixed:
--   agree.strings(s)          every rank's string, on every rank
--   agree.check(ok, msg)      raises the same error on every rank when any failed
--   agree.run(f, ...)         f(...) on every rank under pcall, then agree.check
--   agree.layout(fname, desc) the same description on every rank, or an error
--                             naming the first rank that differs and how
require 'torch'
local mpi = require 'mpi'

local agree = {}

-- agree.strings(s): a list, by rank (1-based), of every rank's s. Two
-- collectives: the lengths (one integer per rank), then the bytes.
function agree.strings(s)
  local R, me = mpi.size(), mpi.rank()
  local lens = torch.LongTensor(R):zero()
  lens[me + 1] = #s
  mpi.allgather(lens)
  local counts, total = {}, 0
  for r = 1, R do counts[r] = lens[r]; total = total + lens[r] end
  local all = torch.ByteTensor(total)
  local mine = #s > 0 and torch.ByteTensor(torch.ByteStorage():string(s)) or torch.ByteTensor()
  if total > 0 then mpi.allgather(all, mine, counts) end
  local out, o = {}, 0
  for r = 1, R do
    out[r] = counts[r] > 0 and all:narrow(1, o + 1, counts[r]):clone():storage():string() or ''
    o = o + counts[r]
  end
  return out
end

-- the level (for error()) of the first frame outside dataparallel and
-- C: the script's line that called into it
local function callerLevel()
  local level = 2
  while true do
    local info = debug.getinfo(level + 1, 'S')
    if not info then return 0 end
    if info.what ~= 'C' and not info.source:find('dataparallel[/.]') and not info.source:find('dataparallel%.lua$') then
      return level
    end
    level = level + 1
  end
end

-- agree.check(ok, msg): every rank calls it with whether its local part
-- succeeded and, if not, why. Returns when every rank succeeded;
-- otherwise raises, on every rank, the lowest failing rank's message with
-- the failing ranks named: every rank leaves the same way, none is left
-- waiting in the next collective. The position is this rank's script line
-- that called into dataparallel.
function agree.check(ok, msg)
  local R, me = mpi.size(), mpi.rank()
  local flags = torch.LongTensor(R):zero()
  flags[me + 1] = ok and 0 or 1
  mpi.allgather(flags)
  if flags:sum() == 0 then return end
  local msgs = agree.strings(ok and '' or tostring(msg))
  local failed = {}
  for r = 1, R do if flags[r] ~= 0 then failed[#failed + 1] = r - 1 end end
  local first = failed[1]
  local where = #failed == 1 and string.format('rank %d of %d', first, R)
                or string.format('ranks %s of %d', table.concat(failed, ', '), R)
  error(string.format('%s (failed on %s)', msgs[first + 1], where), callerLevel())
end

-- agree.run(f, ...): f(...) on this rank under pcall, then agree.check; f's
-- results when every rank's f returned
function agree.run(f, ...)
  local res = table.pack(pcall(f, ...))
  agree.check(res[1], res[2])
  return table.unpack(res, 2, res.n)
end

-- FNV-1a over a string, 64-bit (Lua integers wrap)
local function hash(s)
  local h = -3750763034362895579  -- 14695981039346656037 as a signed integer
  for i = 1, #s do
    h = (h ~ s:byte(i)) * 1099511628211
  end
  return h
end

-- agree.layout(fname, desc [, what]): desc a list of {label, value}
-- strings describing what must be the same on every rank (the parameters'
-- shapes and types, the options that decide the collectives). One
-- collective (a hash per rank) when the ranks agree; otherwise the
-- descriptions are exchanged and every rank raises 'fname: the ranks'
-- <what> differ: <label> on rank r is <value>, on rank 0 <value>' (the
-- first rank and the first entry that differ from rank 0's).
function agree.layout(fname, desc, what)
  local lines = {}
  for i, d in ipairs(desc) do lines[i] = d[1] .. '\0' .. d[2] end
  local s = table.concat(lines, '\n')
  local R, me = mpi.size(), mpi.rank()
  local hs = torch.LongTensor(R):zero()
  hs[me + 1] = hash(s)
  mpi.allgather(hs)
  local same = true
  for r = 2, R do if hs[r] ~= hs[1] then same = false end end
  if same then return end
  local all = agree.strings(s)
  local function parse(str)
    local out = {}
    for line in (str .. '\n'):gmatch('(.-)\n') do
      local label, value = line:match('^(.-)%z(.*)$')
      out[#out + 1] = {label or line, value or ''}
    end
    return out
  end
  local base = parse(all[1])
  for r = 2, R do
    if all[r] ~= all[1] then
      local other = parse(all[r])
      for i = 1, math.max(#base, #other) do
        local a, b = base[i], other[i]
        if not a or not b or a[1] ~= b[1] or a[2] ~= b[2] then
          local how
          if not b then
            how = string.format('rank %d has no %s (rank 0: %s)', r - 1, a[1], a[2])
          elseif not a then
            how = string.format('rank %d has %s %s, rank 0 none', r - 1, b[1], b[2])
          elseif a[1] ~= b[1] then
            how = string.format('rank %d has %s %s where rank 0 has %s %s', r - 1, b[1], b[2], a[1], a[2])
          else
            how = string.format('%s on rank %d is %s, on rank 0 %s', b[1], r - 1, b[2], a[2])
          end
          error(string.format("%s: the ranks' %s differ: %s", fname, what or 'nets', how), callerLevel())
        end
      end
    end
  end
  -- equal descriptions, different hashes: cannot happen (same function)
  error(string.format("%s: the ranks' %s differ (hashes differ)", fname, what or 'nets'), callerLevel())
end

agree._hash = hash
return agree
