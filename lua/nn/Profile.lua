-- nn.Profile(module [, print_interval=100, name=torch.type(module)]): runs
-- 'module' unchanged and prints, every print_interval forward (backward)
-- passes, the wall time they took:
--   nn.Linear took 0.012 seconds for 100 forward passes
-- The timer is a torch.Timer kept in the module (saved and cloned with it).

require 'nn.Decorator'
local torch = torch
local nn = nn

local Profile, parent = torch.class('nn.Profile', 'nn.Decorator')

function Profile:__init(module, print_interval, name)
  parent.__init(self, module)
  if print_interval ~= nil and (type(print_interval) ~= 'number' or print_interval % 1 ~= 0 or print_interval < 1) then
    error(string.format('nn.Profile: print_interval must be a positive integer, got %s', tostring(print_interval)), 2)
  end
  self.print_interval = print_interval or 100
  self.name = name or torch.type(module)
  self.module = module
  self.numFwds = 0
  self.numBwds = 0
  self.summedFwdTime = 0
  self.summedBwdTime = 0
  self.timer = torch.Timer()
end

-- the module's timer (made anew when a saved module brought none: Torch7
-- wrote its timer as nothing)
local function timer(self)
  if torch.typename(self.timer) ~= 'torch.Timer' then self.timer = torch.Timer() end
  return self.timer
end

-- adds the time since the timer's reset to the 'sum' field, counts one call
-- in 'count', and prints and starts over every print_interval calls
local function record(self, sum, count, what)
  self[sum] = self[sum] + timer(self):time().real
  self[count] = self[count] + 1
  if self[count] % self.print_interval == 0 then
    print(string.format('%s took %.3f seconds for %d %s passes', self.name, self[sum], self.print_interval, what))
    self[count] = 0
    self[sum] = 0
  end
end

function Profile:updateOutput(input)
  timer(self):reset()
  self.output = self:rethrowErrors(self.modules[1], 1, 'updateOutput', input)
  record(self, 'summedFwdTime', 'numFwds', 'forward')
  return self.output
end

function Profile:updateGradInput(input, gradOutput)
  timer(self):reset()
  self.gradInput = self:rethrowErrors(self.modules[1], 1, 'updateGradInput', input, gradOutput)
  record(self, 'summedBwdTime', 'numBwds', 'backward')
  return self.gradInput
end

return Profile
