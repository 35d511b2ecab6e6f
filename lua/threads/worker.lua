-- threads.worker: the loop each thread of a threads.Threads pool runs in
-- its own Lua state. It takes jobs from its own queue (specific mode) or
-- the pool's shared one, runs them, and posts the results (or the error
-- with its traceback) to the main queue under the job's tag. A job that
-- fails has the mutexes it left locked unlocked. A worker that cannot
-- start (its serializer does not load) still answers every job, with
-- that error, so the main thread never waits forever. Tag 0 stops it.
local M = {}

local function failure(tid, msg)
  return tostring(tid) .. '\0' .. tostring(msg)
end

function M.run(tid, mainid, sharedid, ownid, sername)
  local core = require 'threads.core'
  local mainq = core.queue_open(mainid)
  local sharedq = core.queue_open(sharedid)
  local ownq = core.queue_open(ownid)
  __threadid = tid
  __queue_running, __queue_specific = true, true
  local ok, ser = pcall(function()
    require 'torch'
    require 'threads'
    return require(sername)
  end)
  local broken = not ok and ('thread ' .. tid .. ' failed to start: ' .. tostring(ser)) or nil
  while __queue_running do
    local q = __queue_specific and ownq or sharedq
    local tag, bytes, refs = q:pop()
    if tag == nil or tag == 0 then break end
    if broken then
      mainq:push(-tag, failure(tid, broken))
    else
      local done, res = xpcall(function()
        local job = ser.decode(bytes, refs)
        return table.pack(job.f(table.unpack(job.args, 1, job.args.n)))
      end, debug.traceback)
      if not done then
        core.unlockall()
        mainq:push(-tag, failure(tid, res))
      else
        local encoded, out, outrefs = pcall(ser.encode, {tid, res})
        if encoded then
          mainq:push(tag, out, outrefs)
        else
          mainq:push(-tag, failure(tid, 'cannot send the results of the job back: ' .. tostring(out)))
        end
      end
    end
  end
  mainq:free()
  sharedq:free()
  ownq:free()
end

return M
