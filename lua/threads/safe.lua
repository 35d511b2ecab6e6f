-- threads.safe(func [, mutex]): func wrapped so that one thread at a time
-- runs it (Torch7's). The mutex is unlocked when func raises too, and
-- the error goes on; it is shared (not copied) when the wrapper is sent
-- to other threads, and freed with the last wrapper that holds it.
return function(func, mutex)
  local threads = require 'threads'
  if type(func) ~= 'function' then
    error('threads.safe: function expected as argument 1, got ' .. type(func), 2)
  end
  if mutex ~= nil and getmetatable(mutex) ~= debug.getregistry()['threads.Mutex'] then
    error('threads.safe: a threads.Mutex expected as argument 2, got ' .. torch.type(mutex), 2)
  end
  mutex = mutex or threads.Mutex()
  return function(...)
    mutex:lock()
    local res = table.pack(pcall(func, ...))
    mutex:unlock()
    if not res[1] then error(res[2], 0) end
    return table.unpack(res, 2, res.n)
  end
end
