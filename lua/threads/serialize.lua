-- threads.serialize: the default serialization between threads: tensors
-- and storages are copied (torch's format); shareable userdata (tds,
-- threads' own objects) are still shared, they cannot be copied.
-- save(value) -> CharStorage and load(storage) -> value, as upstream;
-- encode/decode are what the queues of threads.Threads use.
local codec = require 'threads.codec'
local core = require 'threads.core'

local M = {}

function M.encode(value) return codec.encode(value, false) end
M.decode = codec.decode
M.release = codec.release

function M.save(value)
  local bytes, refs = M.encode(value)
  -- the references travel as integers inside the storage
  local ints = {}
  for k = 1, #refs // 2 do ints[2 * k - 1], ints[2 * k] = core.ptrtoint(refs[2 * k - 1]), refs[2 * k] end
  local f = torch.MemoryFile()
  f:binary()
  f:writeObject({bytes = bytes, refs = ints})
  local st = f:storage()
  f:close()
  return st
end

function M.load(storage)
  if not (torch.isStorage(storage) or type(storage) == 'string') then
    error('threads.serialize.load: a CharStorage (from save) expected, got ' .. torch.type(storage), 2)
  end
  local f = torch.MemoryFile(storage)
  f:binary()
  local msg = f:readObject()
  f:close()
  local refs = {}
  for k = 1, #msg.refs // 2 do
    refs[2 * k - 1], refs[2 * k] = core.inttoptr(msg.refs[2 * k - 1]), msg.refs[2 * k]
  end
  return codec.decode(msg.bytes, refs)
end

return M
