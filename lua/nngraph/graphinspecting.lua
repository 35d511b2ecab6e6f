-- nngraph.setDebug(true): when a graph's forward or backward fails, the
-- error names the node that failed (its annotations' name and where it was
-- made) and a picture of the graph with that node in red is written to
-- <name or nngraph_<n>in_<m>out>.dot (and .svg with graphviz).
-- nngraph.annotateNodes(): names the nodes held by the caller's local
-- variables after those variables. nngraph.display(g): writes g's picture.

-- the node being run: the local 'node' of the innermost neteval frame
local function failingNode()
  for level = 2, 200 do
    local info = debug.getinfo(level, 'n')
    if not info then return nil end
    if info.name == 'neteval' then
      local name, node = debug.getlocal(level, 1)
      if name == 'node' then return node end
    end
  end
end

local function dotWithFailure(g, title, failed)
  local text = g:todot(title)
  if not failed then return text end
  for _, node in ipairs(g.nodes) do
    if node.data == failed.data then
      return (text:gsub('}%s*$', '')) .. string.format('n%d[style=filled, fillcolor=red];\n}', node.id)
    end
  end
  return text
end

local function picture(gm, failed)
  local nIn = gm.nInputs or #gm.innode.children
  local base = gm.name or string.format('nngraph_%din_%dout', nIn, #gm.outnode.children)
  local text = dotWithFailure(gm.fg, base, failed)
  local f = io.open(base .. '.dot', 'w')
  if not f then return nil end
  f:write(text)
  f:close()
  if graph.hasGraphviz() then graph.graphvizFile(text, 'dot', base .. '.svg') end
  io.stderr:write(string.format('nngraph: the graph, failed node in red: %s.dot\n', base))
  return base
end

local original = {}

function nngraph.setDebug(enable)
  if not original.runForwardFunction then
    for _, k in ipairs{'runForwardFunction', 'updateGradInput', 'accGradParameters'} do original[k] = nn.gModule[k] end
  end
  for name, f in pairs(original) do
    if not enable then
      nn.gModule[name] = f
    else
      nn.gModule[name] = function(gm, ...)
        local failed
        local args = table.pack(...)
        local ok, res = xpcall(function() return f(gm, table.unpack(args, 1, args.n)) end, function(msg)
          failed = failingNode()
          return msg
        end)
        if ok then return res end
        local where = ''
        if failed then
          local a = failed.data.annotations
          where = string.format('nngraph: %s failed in node %s%s: ', name,
                                a.name and ("'" .. a.name .. "' ") or '', tostring(a._debugLabel))
          picture(gm, failed)
        end
        error(where .. tostring(res), 0)
      end
    end
  end
end

function nngraph.annotateNodes(stackLevel)
  stackLevel = stackLevel or 1
  for i = 1, math.huge do
    local name, value = debug.getlocal(stackLevel + 1, i)
    if not name then break end
    if torch.typename(value) == 'nngraph.Node' and not value.data.annotations.name then
      value:annotate({name = name})
    end
  end
end

-- writes the forward graph's picture and says where (no window here)
function nngraph.display(gm)
  local base = os.tmpname()
  graph.dot(gm.fg, gm.name or 'nngraph', base)
  return base
end
