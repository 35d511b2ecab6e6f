-- optnet.utils: OptNet's helper API, for scripts written against OptNet
-- (its tests.lua uses recursiveClone; analysis code keepTrack and copyTable).
--   utils.keepTrack(t, track, entry_fun, fun, ...)
--   utils.recursiveClone(out)
--   utils.copyTable(t)
require 'torch'
local utils = {}

local function fail(fname, fmt, ...)
  error(string.format('optnet.utils.%s: ' .. fmt, fname, ...), require('optnet.view').callerLevel())
end

-- Walks a tensor or a (nested) array of tensors. The first time a storage
-- is met, track[torch.pointer(storage)] = entry_fun(tensor, ...); then, for
-- every tensor met (the first and those sharing a storage seen before),
-- fun(tensor, track, ...) when fun is given. Only the array part of tables
-- is walked (ipairs), and a tensor without storage (empty) is skipped.
local function walkTrack(t, track, entry_fun, fun, ...)
  if torch.isTensor(t) then
    local s = t:storage()
    if s == nil then return end
    local key = torch.pointer(s)
    if track[key] == nil then track[key] = entry_fun(t, ...) end
    if fun then fun(t, track, ...) end
  elseif type(t) == 'table' and not torch.typename(t) then
    for _, v in ipairs(t) do walkTrack(v, track, entry_fun, fun, ...) end
  end
end

function utils.keepTrack(t, track, entry_fun, fun, ...)
  if type(track) ~= 'table' then
    fail('keepTrack', 'table expected as argument 2 (track), got %s', torch.type(track))
  end
  if type(entry_fun) ~= 'function' then
    fail('keepTrack', 'function expected as argument 3 (entry_fun), got %s', torch.type(entry_fun))
  end
  if fun ~= nil and type(fun) ~= 'function' then
    fail('keepTrack', 'function or nil expected as argument 4 (fun), got %s', torch.type(fun))
  end
  walkTrack(t, track, entry_fun, fun, ...)
end

-- a deep copy of a tensor or of a nested array of tensors (each tensor
-- cloned: contiguous, its own storage); only the array part is copied
local function cloneTensors(out)
  if torch.isTensor(out) then return out:clone() end
  if type(out) ~= 'table' or torch.typename(out) then
    fail('recursiveClone', 'tensor or table of tensors expected, got %s inside', torch.type(out))
  end
  local res = {}
  for i, v in ipairs(out) do res[i] = cloneTensors(v) end
  return res
end

function utils.recursiveClone(out)
  if not torch.isTensor(out) and (type(out) ~= 'table' or torch.typename(out)) then
    error(string.format('optnet.utils.recursiveClone: tensor or table of tensors expected, got %s',
      torch.type(out)), 2)
  end
  return cloneTensors(out)
end

-- a deep copy of a plain table's keys and values (tables inside copied,
-- the rest, tensors included, shared); a non-table comes back as is
local function copyTable(t)
  if type(t) ~= 'table' then return t end
  local r = {}
  for k, v in pairs(t) do r[k] = copyTable(v) end
  return r
end
utils.copyTable = copyTable

return utils
