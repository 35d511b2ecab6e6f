-- graph's pictures, through graphviz's dot program (Debian: graphviz; make
-- viz-deps). Torch7 called libgvc through LuaJIT's ffi; plain Lua runs the
-- program instead, with the same functions:
--   graph.graphvizFile(g, algorithm, fname)  renders g (a graph.Graph, or
--       DOT text) with a layout program ('dot', 'neato', ...) into fname,
--       the format taken from fname's extension (.svg, .png, .pdf, .dot, ...)
--   graph.graphvizLayout(g [, algorithm])    an n x 2 tensor of the nodes'
--       positions (row = node id), each coordinate in [0, 1]
--   graph.dot(g, title [, fname])            fname.dot (the DOT text) and
--       fname.svg; without fname, in a temporary place whose name is
--       printed (there is no Qt window to show it in); g may be DOT text
--       (optnet.graphgen's); without graphviz only the .dot, said on stderr
--   graph.hasGraphviz()                      whether the program is there

local function shellQuote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

function graph.hasGraphviz()
  return os.execute('command -v dot >/dev/null 2>&1') == true
end

local function dotText(g, fn)
  if type(g) == 'string' then return g end
  if type(g) == 'table' and g.todot then return g:todot() end
  error(string.format('%s: a graph.Graph or DOT text expected, got %s', fn, torch.type(g)), 3)
end

local function needGraphviz(fn)
  if not graph.hasGraphviz() then
    error(fn .. ': graphviz is not installed (the dot program; on Debian: apt-get install graphviz)', 3)
  end
end

local ALGORITHMS = {dot = true, neato = true, fdp = true, sfdp = true, twopi = true, circo = true,
                    osage = true, patchwork = true}

local function checkAlgorithm(algorithm, fn)
  algorithm = algorithm or 'dot'
  if not ALGORITHMS[algorithm] then
    error(string.format('%s: unknown layout algorithm %s (dot, neato, fdp, sfdp, twopi, circo)',
                        fn, tostring(algorithm)), 3)
  end
  return algorithm
end

-- runs the layout program on text with the given output options; returns
-- its standard output, or raises its error message
local function run(text, algorithm, outOpts, fn)
  local inFile, errFile, outFile = os.tmpname(), os.tmpname(), os.tmpname()
  local f = assert(io.open(inFile, 'w'))
  f:write(text)
  f:close()
  local ok = os.execute(string.format('dot -K%s %s %s > %s 2> %s', algorithm, outOpts,
                                      shellQuote(inFile), shellQuote(outFile), shellQuote(errFile)))
  local function slurp(p)
    local h = io.open(p)
    local s = h and h:read('a') or ''
    if h then h:close() end
    os.remove(p)
    return s
  end
  local out, err = slurp(outFile), slurp(errFile)
  os.remove(inFile)
  if ok ~= true then error(string.format('%s: graphviz failed: %s', fn, err), 3) end
  return out
end

function graph.graphvizFile(g, algorithm, fname)
  local fn = 'graph.graphvizFile'
  local text = dotText(g, fn)
  algorithm = checkAlgorithm(algorithm, fn)
  if type(fname) ~= 'string' or not fname:find('%.%w+$') then
    error(fn .. ': a file name with an extension (the format: .svg, .png, ...) expected as argument 3, got '
          .. tostring(fname), 2)
  end
  needGraphviz(fn)
  local format = fname:match('%.(%w+)$')
  run(text, algorithm, '-T' .. format .. ' -o ' .. shellQuote(fname), fn)
end

function graph.graphvizLayout(g, algorithm)
  local fn = 'graph.graphvizLayout'
  if type(g) ~= 'table' or not g.todot then
    error(string.format('%s: a graph.Graph expected, got %s', fn, torch.type(g)), 2)
  end
  algorithm = checkAlgorithm(algorithm, fn)
  needGraphviz(fn)
  -- -Tplain: "graph scale w h", then "node name x y ..." per node
  local out = run(g:todot(), algorithm, '-Tplain', fn)
  local w, h = out:match('^graph%s+%S+%s+(%S+)%s+(%S+)')
  w, h = tonumber(w), tonumber(h)
  local pos = torch.zeros(#g.nodes, 2)
  for name, x, y in out:gmatch('\nnode%s+n(%d+)%s+(%S+)%s+(%S+)') do
    local id = tonumber(name)
    if id and id >= 1 and id <= #g.nodes then
      pos[id][1] = w > 0 and tonumber(x) / w or 0
      pos[id][2] = h > 0 and tonumber(y) / h or 0
    end
  end
  return pos
end

-- DOT text with a title: graph.Graph:todot's title lines after the first '{'
local function titled(text, title)
  if not title then return text end
  local at = text:find('{', 1, true)
  return text:sub(1, at) .. '\nlabelloc="t";\nlabel="' .. title:gsub('"', '\\"') .. '";' .. text:sub(at + 1)
end

-- writes fname.dot and, with graphviz, fname.svg (fn: the caller's name
-- for messages). Without graphviz the .dot is written and a line on
-- stderr says the .svg was not (Torch7 raised "graphviz library could not
-- be loaded" and wrote nothing). Without fname, a temporary name is used
-- and printed (Torch7 showed the picture in a Qt window).
function graph._writeDot(fn, text, fname)
  local shown = fname == nil
  fname = fname or os.tmpname()
  local f, err = io.open(fname .. '.dot', 'w')
  if not f then error(string.format('%s: cannot write %s.dot: %s', fn, fname, tostring(err)), 3) end
  f:write(text)
  f:close()
  if graph.hasGraphviz() then
    run(text, 'dot', '-Tsvg -o ' .. shellQuote(fname .. '.svg'), fn)
    if shown then print(fn .. ': written to ' .. fname .. '.svg') end
  else
    io.stderr:write(string.format('%s: graphviz (the dot program) is not installed: wrote %s.dot, not %s.svg '
                                  .. '(on Debian: apt-get install graphviz)\n', fn, fname, fname))
  end
end

-- g: a graph.Graph, or DOT text (what optnet.graphgen returns, as OptNet's
-- example.lua passes it)
function graph.dot(g, title, fname)
  local fn = 'graph.dot'
  local isText = type(g) == 'string' and g:find('^%s*[%w%s]*graph[^{]*{') ~= nil
  if not isText and (type(g) ~= 'table' or not g.todot) then
    error(string.format('%s: a graph.Graph expected as argument 1 (or DOT text), got %s', fn, torch.type(g)), 2)
  end
  if title ~= nil and type(title) ~= 'string' then
    error(string.format('%s: a title (string) expected as argument 2, got %s', fn, torch.type(title)), 2)
  end
  if fname ~= nil and (type(fname) ~= 'string' or fname == '') then
    error(string.format('%s: a file name (without extension) expected as argument 3, got %s', fn, torch.type(fname)), 2)
  end
  local text = isText and titled(g, title) or g:todot(title)
  graph._writeDot(fn, text, fname)
end
