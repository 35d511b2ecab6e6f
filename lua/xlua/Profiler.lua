-- xlua.Profiler: named wall and CPU stopwatches, as in Torch7's xlua.
--   local p = xlua.Profiler()          -- xlua.Profiler('off') prints nothing
--   p:start('forward') ... p:lap('forward')   -- real, cpu seconds
--   p:printAll()   -- '$ profiler report:' then '$ real R | cpu C <name>' lines
-- start(name, 'fps') adds the rate (1 / real) to the report line.
-- (Torch7's displayAll drew on a Qt painter: not here.)

local Profiler = {}
Profiler.__index = Profiler

function xlua.Profiler(mode, verbose)
  return setmetatable({events = {}, list = {}, off = mode == 'off', verbose = verbose or false}, Profiler)
end

local function event(self, fn, name)
  local e = self.events[name]
  if not e then error(string.format("xlua.Profiler:%s: no event '%s' (start it first)", fn, tostring(name)), 3) end
  return e
end

function Profiler:start(name, fps)
  local e = self.events[name]
  if not e then
    e = {name = name}
    self.events[name] = e
    self.list[#self.list + 1] = e
  end
  e.cpu, e.real = os.clock(), sys.clock()
  if fps == 'fps' then e.fps = true end
  if self.verbose then io.write('<' .. tostring(name) .. '>') io.flush() end
end

function Profiler:setColor(name, color)
  event(self, 'setColor', name).color = color
end

-- seconds since start (divided by 'divider' when given)
function Profiler:cpu(name, divider)
  local e = event(self, 'cpu', name)
  e.cpud = (os.clock() - e.cpu) / (divider or 1)
  return e.cpud
end

function Profiler:real(name, divider)
  local e = event(self, 'real', name)
  e.reald = (sys.clock() - e.real) / (divider or 1)
  return e.reald
end

function Profiler:lap(name, divider)
  event(self, 'lap', name)
  local r = self:real(name, divider)
  local c = self:cpu(name, divider)
  if self.verbose then io.write('\r') self:print(name) end
  return r, c
end

function Profiler:format(name)
  local e = event(self, 'format', name)
  return string.format('$ real | cpu: %f | %f <%s>', e.reald or -1, e.cpud or -1, tostring(name))
end

function Profiler:print(name)
  if not self.off then print(self:format(name)) end
end

function Profiler:formatAll()
  local lines = {'$ profiler report:'}
  for _, e in ipairs(self.list) do
    local line = string.format('$ real %f | cpu %f <%s>', e.reald or -1, e.cpud or -1, tostring(e.name))
    if e.fps then line = line .. string.format(' = %f fps', 1 / (e.reald or -1)) end
    lines[#lines + 1] = line
  end
  return table.concat(lines, '\n')
end

function Profiler:printAll()
  if not self.off then print(self:formatAll()) end
end
