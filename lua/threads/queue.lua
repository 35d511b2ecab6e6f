-- threads.Queue(N [, serializer]): a queue of jobs between threads
-- (Torch7's threads.Queue): addjob(callback, ...) serializes the job and
-- waits while N jobs are queued (N = 0: no limit); dojob() waits for a
-- job, runs it and returns what it returns. A Queue is a torch class whose
-- one field is a shared handle: passed to another thread (an upvalue, a
-- job argument), it is the same queue there.
require 'torch'
local core = require 'threads.core'

local M = {}
local Queue = torch.class('threads.Queue', M)

function Queue:__init(N, serializer)
  local n = math.tointeger(N)
  if not n or n < 0 then
    error('threads.Queue: the queue size (integer >= 0) expected, got ' .. tostring(N), 2)
  end
  if serializer ~= nil and type(serializer) ~= 'string' then
    error('threads.Queue: a serialization module name expected as argument 2, got ' .. type(serializer), 2)
  end
  self.handle = core.queue(n)
  self.serialize = serializer or 'threads.serialize'
end

function Queue:addjob(callback, ...)
  if type(callback) ~= 'function' then
    error('threads.Queue:addjob: function callback expected, got ' .. type(callback), 2)
  end
  local ser = require(self.serialize)
  local bytes, refs = ser.encode({f = callback, args = table.pack(...)})
  self.handle:push(1, bytes, refs)
end

function Queue:dojob()
  local ser = require(self.serialize)
  local _, bytes, refs = self.handle:pop()
  if bytes == nil then error('threads.Queue:dojob: the queue was closed', 2) end
  local job = ser.decode(bytes, refs)
  return job.f(table.unpack(job.args, 1, job.args.n))
end

function Queue:isfull() return self.handle:isfull() end
function Queue:size() return (self.handle:size()) end
function Queue:id() return self.handle:id() end
function Queue:free() self.handle:free() end

return M.Queue
