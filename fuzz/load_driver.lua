-- load_driver.lua: what fuzz_load.c runs on each input, and what
-- spec/fuzz_regression_spec.lua runs on the saved inputs.
-- Returns a function(bytes): byte 1 picks the mode (even: binary, odd:
-- ascii), the rest is deserialized. It raises (and so fails the run) when
-- the parser fails in an unclear way: an error not prefixed with
-- 'torch.deserialize: ', or one from Lua itself inside the parser
-- ("attempt to index a nil value" and the like, which mean a field was
-- not validated). A loaded object is walked and every element of every
-- tensor and storage read, so a view outside its storage shows under ASan.
require 'torch'
require 'nn'

-- the parser raises its own errors at level 0 ('<string>: corrupt ...');
-- a message carrying a Lua source position instead comes from Lua itself
-- ("File.lua:123: attempt to index a nil value") or from an error() that
-- was not meant for the user: a value the parser did not check. (A deeply
-- nested file's 'stack overflow' is an honest error and has no position.)
local internal = '^torch%.deserialize: [^%s:]+%.lua:%d+: '

local function walk(obj, seen, depth)
  if depth > 200 or seen[obj] then return end
  local tn = torch.typename(obj)
  if tn and tn:match('Tensor$') then
    seen[obj] = true
    -- stride-0 tensors from a file may be huge and still valid: read the small ones
    if obj:nElement() > 0 and obj:nElement() <= 65536 then
      local c = obj:clone()           -- reads every element through the view
      assert(c:nElement() == obj:nElement())
      if obj:type() ~= 'torch.ByteTensor' then local _ = obj:sum() end
    end
    return
  elseif tn and tn:match('Storage$') then
    seen[obj] = true
    local n = obj:size()
    if n > 0 then local _ = obj[1], obj[n] end
    return
  end
  if type(obj) == 'table' then
    seen[obj] = true
    for k, v in pairs(obj) do
      walk(k, seen, depth + 1)
      walk(v, seen, depth + 1)
    end
  end
end

return function(bytes)
  local mode = (bytes:byte(1) or 0) % 2 == 0 and 'binary' or 'ascii'
  local ok, res = pcall(torch.deserialize, bytes:sub(2), mode)
  if ok then
    walk(res, {}, 0)
    return true
  end
  if type(res) ~= 'string' or not res:find('^torch%.deserialize: ') then
    error('unprefixed error from torch.deserialize: ' .. tostring(res), 0)
  end
  if res:find(internal) then error('internal error in the parser: ' .. res, 0) end
  return false
end
