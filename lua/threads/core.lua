-- threads.core: the package's C functions (src/threads), compiled into
-- torch's core.so and opened from it by name, as a table of their own.
require 'torch'
local path = package.searchpath('torch.core', package.cpath)
if not path then error('threads: torch.core (core.so) not found on package.cpath', 2) end
local open, err = package.loadlib(path, 'luaopen_threads_core')
if not open then error('threads: cannot open the threads entry point of ' .. path .. ': ' .. tostring(err), 2) end
return open()
