-- Runs the ```lua code blocks of markdown files as written, each file's
-- blocks in order in one environment of their own (a block may use what
-- an earlier block of its file defined), in the current directory.
--   bin/th spec/support/docblocks.lua results.txt file.md...
-- Writes one line per block to results.txt:
--   ok <file>:<line> <seconds>
--   fail <file>:<line> <message (one line)>
--   norun <file>:<line> <reason>   (a '<!-- norun: reason -->' line right
--                                   before the fence, blank lines allowed)
-- The blocks' own output goes to stdout. Other fences (```th, ```sh, ...)
-- are not Lua to run.

local results = assert(io.open(assert(arg[1], 'results file expected'), 'w'))

-- a fence closes only with as many backticks as opened it (CommonMark):
-- a ````markdown example may show ```lua blocks, which are not run
local function blocks(path)
  local list, open, cur, marker, n = {}, nil, nil, nil, 0
  for line in io.lines(path) do
    n = n + 1
    local ticks = line:match('^%s*(```+)')
    if open then
      if ticks and #ticks >= #open and line:match('^%s*```+%s*$') then
        open = nil
        list[#list + 1] = cur
      else
        cur.lines[#cur.lines + 1] = line
      end
    elseif ticks and #ticks == 3 and line:match('^%s*```lua%s*$') then
      open, cur = ticks, {line = n, lines = {}, norun = marker}
      marker = nil
    elseif ticks then
      open, cur = ticks, {line = n, lines = {}, skip = true}
      marker = nil
    else
      local reason = line:match('^<!%-%-%s*norun:%s*(.-)%s*%-%->')
      if reason then marker = reason elseif line:match('%S') then marker = nil end
    end
  end
  return list
end

local clock = os.clock
-- a block that exits would end the run: it fails instead
local realexit = os.exit
os.exit = function(code) error('the block called os.exit(' .. tostring(code) .. ')', 2) end
for i = 2, #arg do
  local path = arg[i]
  local env = setmetatable({}, {__index = _G})
  torch.setdefaulttensortype('torch.DoubleTensor')  -- each file starts from the default
  for _, b in ipairs(blocks(path)) do
    local where = path .. ':' .. b.line
    if b.norun then
      results:write('norun ', where, ' ', b.norun, '\n')
    elseif not b.skip then
      -- the fence's line first, so messages give the file's line numbers
      local code = string.rep('\n', b.line) .. table.concat(b.lines, '\n')
      local t0 = clock()
      local chunk, err = load(code, '@' .. path, 't', env)
      local ok = chunk ~= nil
      if chunk then ok, err = xpcall(chunk, debug.traceback) end
      io.stdout:flush()
      if ok then
        results:write(string.format('ok %s %.2f\n', where, clock() - t0))
      else
        results:write('fail ', where, ' ', (tostring(err):gsub('\n', ' | ')), '\n')
      end
      results:flush()
    end
  end
end
results:close()
realexit(0, true)
