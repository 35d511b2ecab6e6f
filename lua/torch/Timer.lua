-- torch.Timer: Torch7's stopwatch. A timer starts running when created;
-- time() reports the seconds accumulated while running, as a table
-- {real = wall, user = CPU in user mode, sys = CPU in the kernel}; the CPU
-- times are the whole process's (all threads), as in Torch7.
--   local timer = torch.Timer()
--   ... ; print(timer:time().real)
--   timer:stop() ... timer:resume() ... timer:reset()

local torch = torch
local C = torch._C

-- now() -> wall, user, sys seconds
local now
if C.rusage then
  now = function()
    local wall = C.clock()
    local user, sys = C.rusage()
    return wall, user, sys
  end
else
  -- no getrusage: all CPU time counts as user time
  now = function()
    local wall, cpu = C.clock()
    return wall, cpu, 0
  end
end

local Timer = torch.class('torch.Timer')

local function check(self, fname)
  if torch.typename(self) ~= 'torch.Timer' then
    error(string.format('torch.Timer:%s: timer expected (use timer:%s(), not timer.%s()), got %s',
                        fname, fname, fname, torch.type(self)), 3)
  end
end

function Timer:__init()
  self.totalreal, self.totaluser, self.totalsys = 0, 0, 0
  self.startreal, self.startuser, self.startsys = now()
  self.running = true
end

-- zeroes the accumulated time; a running timer keeps running from now
function Timer:reset()
  check(self, 'reset')
  self.totalreal, self.totaluser, self.totalsys = 0, 0, 0
  self.startreal, self.startuser, self.startsys = now()
  return self
end

-- stops accumulating (no effect when already stopped)
function Timer:stop()
  check(self, 'stop')
  if self.running then
    local r, u, s = now()
    self.totalreal = self.totalreal + (r - self.startreal)
    self.totaluser = self.totaluser + (u - self.startuser)
    self.totalsys = self.totalsys + (s - self.startsys)
    self.running = false
  end
  return self
end

-- accumulates again from now (no effect when already running)
function Timer:resume()
  check(self, 'resume')
  if not self.running then
    self.startreal, self.startuser, self.startsys = now()
    self.running = true
  end
  return self
end

-- {real =, user =, sys =} in seconds
function Timer:time()
  check(self, 'time')
  local real, user, sys = self.totalreal, self.totaluser, self.totalsys
  if self.running then
    local r, u, s = now()
    real = real + (r - self.startreal)
    user = user + (u - self.startuser)
    sys = sys + (s - self.startsys)
  end
  return {real = real, user = user, sys = sys}
end

function Timer:isRunning()
  check(self, 'isRunning')
  return self.running
end

function Timer:__tostring__()
  local t = self:time()
  return string.format('torch.Timer (%s): real %.6fs, user %.6fs, sys %.6fs',
                       self.running and 'running' or 'stopped', t.real, t.user, t.sys)
end

-- torch.tic() -> the wall clock in seconds since the epoch; torch.toc(t) ->
-- the seconds elapsed since t, a tic() value (Torch7's pair; nn's test suite
-- seeds its generator from tic())
function torch.tic()
  return C.realtime()
end

function torch.toc(t)
  if type(t) ~= 'number' then
    error('torch.toc: start time (number, from torch.tic()) expected, got ' .. type(t), 2)
  end
  return C.realtime() - t
end

return Timer
