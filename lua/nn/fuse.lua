-- nn.fuse(net) / nn.unfuse(net): the ReLU fusion pass. In every
-- nn.Sequential of net, a module that can write max(y, 0) in its own pass
-- (it answers m:fusesReLU(): batch norm, an in-place CAddTable) followed by
-- an in-place ReLU (nn.ReLU(true), Threshold(0, 0, true)) is marked to run
-- as one pass: the first writes max(y, 0), the ReLU's forward, which would
-- only threshold that tensor in place again, makes its output the tensor as
-- its own forward would and skips the pass. The numbers are the same bit for
-- bit (ResNets, DenseNets: one memory pass fewer per pair). The Sequential
-- itself stays a plain loop and knows no class.
--
-- The mark is data, 'fuseReLU = true' on the first module of a pair: it
-- travels with the net through torch.save/load, clone and type. It is a
-- statement about the net as it stands: a net whose containers are edited
-- (the ReLU of a pair taken out) is given to nn.fuse again, which re-marks
-- from scratch, or to nn.unfuse. A module that runs other code than its
-- class's updateOutput (an instance override, a hook: m:hooked()) is left
-- out by the pass, and a marked module hooked later runs unfused: a hook
-- sees the batch norm's own output, as without the pass.
--
-- How the ReLU knows: the first module marks its output tensor "clipped"
-- (below) when it did write max(y, 0); the in-place ReLU that gets that very
-- tensor takes the mark and skips its pass. Transient by construction: a
-- mark lives from one module's forward to the next's.
local torch = torch
local nn = nn

local fusion = {}

-- tensor -> true: its contents are max(y, 0) as the marked module left them
local clipped = setmetatable({}, {__mode = 'k'})

-- whether m runs its class's own updateOutput (no override, no hook)
local function plain(m)
  return rawget(m, 'updateOutput') == nil and not (m.hooked and m:hooked())
end

-- called by a module that answers fusesReLU at the top of its forward:
-- whether this forward is to write max(y, 0) (marked, and as its class runs)
function fusion.active(m)
  return rawget(m, 'fuseReLU') == true and plain(m)
end

-- after such a forward: t holds max(y, 0) (done) or not
function fusion.mark(t, done)
  clipped[t] = done or nil
end

-- the in-place ReLU: whether its input comes clipped (the mark is taken)
function fusion.take(t)
  if clipped[t] == nil then return false end
  clipped[t] = nil
  return true
end

local function firstOfPair(m)
  return m.fusesReLU ~= nil and m:fusesReLU() == true and plain(m)
end

local function inplaceReLU(m)
  return torch.isTypeOf(m, 'nn.Threshold') and m.updateOutput == nn.Threshold.updateOutput
    and m.inplace == true and m.threshold == 0 and m.val == 0 and plain(m)
end

local function check(fname, net)
  if not torch.isTypeOf(net, 'nn.Module') then
    error(string.format('nn.%s: nn.Module expected as argument 1, got %s', fname, torch.type(net)), 3)
  end
end

function nn.unfuse(net)
  check('unfuse', net)
  for _, m in ipairs(net:listModules()) do
    if rawget(m, 'fuseReLU') ~= nil then m.fuseReLU = nil end
  end
  return net
end

-- how many times each module stands in a container of the net: a module
-- that stands twice (the same object in two places) is fused in neither
local function occurrences(list)
  local seen = {}
  for _, c in ipairs(list) do
    if type(c.modules) == 'table' then
      for _, m in pairs(c.modules) do seen[m] = (seen[m] or 0) + 1 end
    end
  end
  return seen
end

-- returns net and the number of pairs marked
function nn.fuse(net)
  check('fuse', net)
  nn.unfuse(net)
  local n = 0
  local list = net:listModules()
  local seen = occurrences(list)
  for _, s in ipairs(list) do
    if torch.isTypeOf(s, 'nn.Sequential') and s.updateOutput == nn.Sequential.updateOutput then
      local mods = s.modules
      for i = 1, #mods - 1 do
        if firstOfPair(mods[i]) and inplaceReLU(mods[i + 1]) and seen[mods[i]] == 1 and seen[mods[i + 1]] == 1 then
          mods[i].fuseReLU = true
          n = n + 1
        end
      end
    end
  end
  return net, n
end

return fusion
