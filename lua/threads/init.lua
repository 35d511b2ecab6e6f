-- threads: Torch7's threads package over real OS threads, each running
-- its own Lua state with this engine (docs/threads.md).
--   threads.Threads(N, init...)   the pool (addjob, dojob, synchronize, ...)
--   threads.Thread(code)          one thread running a Lua chunk
--   threads.Mutex([id]), threads.Condition([id]), threads.Queue(N)
--   threads.safe(func [, mutex])  func run by one thread at a time
--   threads.serialization(name)   'threads.serialize' (copies tensors) or
--                                 'threads.sharedserialize' (shares them)
require 'torch'
local core = require 'threads.core'

local threads = {}
threads.Thread = core.Thread
threads.Mutex = core.Mutex
threads.Condition = core.Condition
-- the receiving end of the shareable-userdata protocol for this
-- package's objects: tensors, storages, mutexes, conditions, queues
threads._adopt = core.adopt
threads.Threads = require 'threads.threads'
threads.Queue = require 'threads.queue'
threads.safe = require 'threads.safe'
threads.serialization = threads.Threads.serialization

-- torch tensors and storages follow the protocol (other packages may
-- hold them: mt.__share(obj) -> pointer, 'threads._adopt')
local function share(obj) return core.share(obj) end
for _, name in ipairs({'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double', 'Half', 'Bool'}) do
  for _, kind in ipairs({'Tensor', 'Storage'}) do
    local mt = torch.getmetatable('torch.' .. name .. kind)
    if mt then mt.__share = share end
  end
end

-- require 'threads' used to return the pool class: threads(4) and
-- threads.serialization(...) still work (Torch7's backward compatibility)
setmetatable(threads, getmetatable(threads.Threads))

return threads
