-- ascii_driver.lua: what fuzz_ascii runs on each input (fuzz_load.c built
-- with this driver): the whole input is an ascii .t7 file, so every
-- mutation lands in the ascii reader (numbers, lengths, class names).
-- The checks are load_driver.lua's: only a clean 'torch.deserialize: '
-- error or an object whose every tensor element can be read.
local load = require 'fuzz.load_driver'  -- found through package.path (the root)
return function(bytes)
  return load('\1' .. bytes)
end
