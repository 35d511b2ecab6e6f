-- torch.Timer (lua/torch/Timer.lua): Torch7's stopwatch.
require 'torch'

-- spins for 'seconds' of wall time (also user CPU time)
local function spin(seconds)
  local t0 = torch._C.clock()
  while torch._C.clock() - t0 < seconds do end
end

describe('torch.Timer', function()
  it('starts running and reports real, user and sys seconds', function()
    local timer = torch.Timer()
    assert.are.equal('torch.Timer', torch.type(timer))
    assert.is_true(timer:isRunning())
    spin(0.03)
    local t = timer:time()
    assert.are.equal('number', type(t.real))
    assert.are.equal('number', type(t.user))
    assert.are.equal('number', type(t.sys))
    assert.is_true(t.real >= 0.03)
    assert.is_true(t.user > 0)   -- spinning is CPU work
    assert.is_true(t.sys >= 0)
  end)

  it('stops and resumes accumulating', function()
    local clock = torch._C.clock
    local timer = torch.Timer()
    spin(0.01)
    assert.are.equal(timer, timer:stop())
    assert.is_false(timer:isRunning())
    local t1 = timer:time()
    spin(0.02)
    assert.are.same(t1, timer:time())   -- frozen while stopped
    timer:stop()                        -- stopping twice changes nothing
    assert.are.same(t1, timer:time())
    local w0 = clock()
    assert.are.equal(timer, timer:resume())
    timer:resume()                      -- resuming twice changes nothing
    spin(0.02)
    local t3 = timer:time()
    local w1 = clock()
    -- it grew by the running time only, not by the stopped 0.02 s
    assert.is_true(t3.real - t1.real >= 0.02)
    assert.is_true(t3.real - t1.real <= w1 - w0)
    assert.is_true(t3.user >= t1.user)
  end)

  it('reset zeroes the total, keeps running or stopped as it was', function()
    local timer = torch.Timer()
    spin(0.01)
    timer:stop()
    timer:reset()
    assert.are.same({real = 0, user = 0, sys = 0}, timer:time())
    assert.is_false(timer:isRunning())
    timer:resume()
    spin(0.01)
    local t = timer:time()
    assert.is_true(t.real >= 0.01)
    timer:reset()
    assert.is_true(timer:isRunning())
    assert.is_true(timer:time().real < t.real)
  end)

  it('counts kernel time as sys', function()
    local timer = torch.Timer()
    -- system calls until the kernel time shows (reading /proc makes the
    -- kernel format text); bounded, in case the clock is coarse
    local t0 = torch._C.clock()
    repeat
      for _ = 1, 200 do
        local f = assert(io.open('/proc/self/stat'))
        f:read('a')
        f:close()
      end
    until timer:time().sys > 0 or torch._C.clock() - t0 > 5
    local t = timer:time()
    assert.is_true(t.sys > 0)
    assert.is_true(t.user >= 0)
  end)

  it('names the method in a misuse error', function()
    local timer = torch.Timer()
    assert.has_error(function() timer.time() end,
      'torch.Timer:time: timer expected (use timer:time(), not timer.time()), got nil')
    assert.has_error(function() timer.stop({}) end,
      'torch.Timer:stop: timer expected (use timer:stop(), not timer.stop()), got table')
  end)
end)
