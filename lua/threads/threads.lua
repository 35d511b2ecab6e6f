-- threads.Threads: a pool of N OS threads, each with its own Lua state,
-- running jobs (serialized closures) and handing their results to
-- end callbacks on the main thread (Torch7's threads.Threads).
local core = require 'threads.core'

local unpack = table.unpack

local Threads = {}
local Threads_ctor = setmetatable({}, {
  __newindex = Threads,
  __index = Threads,
  __call = function(_, ...) return Threads.new(...) end,
})

Threads.__index = Threads
Threads.__serialize = 'threads.serialize'

-- pools not terminated: past a few, a full collection runs their
-- finalizers (a pool dropped without terminate holds threads and Lua
-- states the collector does not see)
local live = 0
local MAXLIVE = 8
-- seconds between checks that the threads are alive, while waiting
local WAIT = 0.5

function Threads.serialization(name)
  if name ~= nil then
    if type(name) ~= 'string' then
      error('threads.Threads.serialization: a module name (string) expected, got ' .. type(name), 2)
    end
    local ok, mod = pcall(require, name)
    if not ok or type(mod) ~= 'table' or type(mod.encode) ~= 'function' then
      error(string.format("threads.Threads.serialization: '%s' is not a serialization module (%s)", name,
                          ok and 'no encode/decode' or tostring(mod)), 2)
    end
    Threads.__serialize = name
  else
    return Threads.__serialize
  end
end

function Threads.__gc(self)
  if rawget(self, '__running') then self:terminate() end
end

local function stopworkers(self, n)
  for i = 1, n do
    local q = self.__specific and self.threadspecificqueues[i] or self.threadqueue
    pcall(q.push, q, 0, '')
  end
  for i = 1, n do self.threads[i]:free() end
end

function Threads.new(N, ...)
  local n = math.tointeger(N)
  if not n or n < 1 then
    error('threads.Threads: the number of threads (integer >= 1) expected, got ' .. tostring(N), 2)
  end
  N = n
  local funcs = {...}
  for i = 1, select('#', ...) do
    if type(funcs[i]) ~= 'function' then
      error(string.format('threads.Threads: argument %d must be an init function, got %s', i + 1, type(funcs[i])), 2)
    end
  end
  if #funcs == 0 then funcs = {function() end} end
  if live >= MAXLIVE then collectgarbage() end

  local sername = Threads.__serialize
  local self = {N = N, endcallbacks = {}, njobs = 0, lastid = 0, serializer = require(sername),
                errors = false, __specific = true}
  self.mainqueue = core.queue(0)
  self.threadqueue = core.queue(N)
  self.threadspecificqueues = {}
  self.threads = {}
  for i = 1, N do
    local q = core.queue(N)
    self.threadspecificqueues[i] = q
    local ok, t = pcall(core.Thread, string.format("require('threads.worker').run(%d, %d, %d, %d, %q)",
                                                   i, self.mainqueue:id(), self.threadqueue:id(), q:id(), sername))
    if not ok then
      stopworkers(self, i - 1)
      error(string.format('threads.Threads: thread %d: %s', i, tostring(t)), 2)
    end
    self.threads[i] = t
  end
  self.__running = true
  live = live + 1
  setmetatable(self, Threads)

  local initres = {}
  local ok, err = pcall(function()
    for j = 1, #funcs do
      for i = 1, N do
        if j ~= #funcs then
          self:addjob(i, funcs[j], nil, i)
        else
          self:addjob(i, funcs[j], function(...) table.insert(initres, {...}) end, i)
        end
      end
    end
    self:specific(false)
  end)
  if not ok then
    pcall(self.terminate, self)
    error(err, 0)
  end
  return self, initres
end

function Threads:isrunning()
  return self.__running == true
end

local function checkrunning(self, fname)
  if not self.__running then error('threads.Threads:' .. fname .. ': the pool was terminated', 3) end
end

function Threads:specific(flag)
  checkrunning(self, 'specific')
  if flag == nil then return self.__specific end
  if type(flag) ~= 'boolean' then error('threads.Threads:specific: boolean expected, got ' .. type(flag), 2) end
  self:synchronize()
  if self.__specific ~= flag then
    if self.__specific then
      for i = 1, self.N do self:addjob(i, function() __queue_specific = false end) end
    else
      for _ = 1, self.N do self:addjob(function() __queue_specific = true end) end
    end
    self.__specific = flag
    self:synchronize()
  end
end

-- runs the end callback of the next finished job (waiting for one);
-- returns at once when no job is running (Torch7's waited forever)
function Threads:dojob()
  checkrunning(self, 'dojob')
  self.errors = false
  if self.njobs == 0 then return end
  if self.__dead then
    error('threads.Threads:dojob: thread ' .. self.__dead .. ' died (its error is above): its jobs are lost', 0)
  end
  local tag, bytes, refs = self.mainqueue:pop(WAIT)
  while tag == nil do
    -- a thread whose worker loop could not even start never answers
    for i = 1, self.N do
      if not self.threads[i]:alive() then
        self.__dead = i
        error('threads.Threads:dojob: thread ' .. i .. ' died (its error is above): its jobs are lost', 0)
      end
    end
    tag, bytes, refs = self.mainqueue:pop(WAIT)
  end
  local id = math.abs(tag)
  local endcallback = self.endcallbacks[id]
  self.endcallbacks[id] = nil
  self.njobs = self.njobs - 1
  if tag < 0 then
    local tid, msg = bytes:match('^(%d+)%z(.*)$')
    self.errors = true
    error(string.format('[thread %s callback] %s', tid or '?', msg or bytes), 0)
  end
  local ok, res = pcall(self.serializer.decode, bytes, refs)
  if not ok then
    self.errors = true
    error('[thread ? endcallback] cannot read the results of a job: ' .. tostring(res), 0)
  end
  local tid, args = res[1], res[2]
  local cbok, msg = xpcall(function() return endcallback(unpack(args, 1, args.n)) end, debug.traceback)
  if not cbok then
    self.errors = true
    error(string.format('[thread %d endcallback] %s', tid, msg), 0)
  end
end

function Threads:acceptsjob(idx)
  checkrunning(self, 'acceptsjob')
  local q
  if self.__specific then
    idx = math.tointeger(idx)
    if not idx or idx < 1 or idx > self.N then
      error(string.format('threads.Threads:acceptsjob: thread index 1..%d expected in specific mode, got %s',
                          self.N, tostring(idx)), 2)
    end
    q = self.threadspecificqueues[idx]
  else
    q = self.threadqueue
  end
  return not q:isfull()
end

-- addjob([idx,] callback [, endcallback] [, ...])
function Threads:addjob(...)
  checkrunning(self, 'addjob')
  self.errors = false
  local idx, q, callback, endcallback, r
  if self.__specific then
    idx = math.tointeger((select(1, ...)))
    if not idx or idx < 1 or idx > self.N then
      error(string.format('threads.Threads:addjob: thread index 1..%d expected first in specific mode, got %s',
                          self.N, tostring((select(1, ...)))), 2)
    end
    q = self.threadspecificqueues[idx]
    callback, endcallback, r = select(2, ...), select(3, ...), 4
  else
    q = self.threadqueue
    callback, endcallback, r = select(1, ...), select(2, ...), 3
  end
  if type(callback) ~= 'function' then
    error('threads.Threads:addjob: function callback expected, got ' .. type(callback), 2)
  end
  if endcallback ~= nil and type(endcallback) ~= 'function' then
    error('threads.Threads:addjob: function (or nil) endcallback expected, got ' .. type(endcallback), 2)
  end
  local ok, bytes, refs = pcall(self.serializer.encode, {f = callback, args = table.pack(select(r, ...))})
  if not ok then error('threads.Threads:addjob: cannot serialize the job: ' .. tostring(bytes), 2) end
  -- room first: run finished jobs' end callbacks while the queue is full
  while q:isfull() do
    local dok, derr = pcall(self.dojob, self)
    if not dok then
      self.serializer.release(refs)
      error(derr, 0)
    end
  end
  self.lastid = self.lastid + 1
  local id = self.lastid
  self.endcallbacks[id] = endcallback or function() end
  self.njobs = self.njobs + 1
  q:push(id, bytes, refs)
end

function Threads:haserror()
  return false  -- errors are raised by dojob/synchronize (as upstream, deprecated)
end

function Threads:hasjob()
  checkrunning(self, 'hasjob')
  return self.njobs > 0
end

function Threads:synchronize()
  if not self.__running then return end
  self.errors = false
  while self.njobs > 0 do self:dojob() end
end

-- finishes the jobs (their end callbacks run), stops and joins the
-- threads, frees the queues; raises the first error met on the way,
-- once everything is down
function Threads:terminate()
  if not self.__running then return end
  local firsterr
  while self.njobs > 0 and not self.__dead do
    local ok, err = pcall(self.dojob, self)
    if not ok and not firsterr then firsterr = err end
  end
  stopworkers(self, self.N)
  self.mainqueue:free()
  self.threadqueue:free()
  for i = 1, self.N do self.threadspecificqueues[i]:free() end
  self.__running = false
  live = live - 1
  if firsterr then error(firsterr, 0) end
end

return Threads_ctor
