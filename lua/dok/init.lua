-- dok: the argument helpers of Torch7's documentation package (torch/dok),
-- which Torch7's image package and scripts of its time called:
--   dok.unpack(args, funcname, description, {arg=, type=, help=, req=,
--              default=, defaulta=}...)  named or positional arguments
--   dok.usage(funcname, description, example, ...)  the usage text
--   dok.error(message [, domain])  raises '<domain> message'
-- They are xlua's (the same functions in Torch7). The browser of Torch7's
-- HTML documentation (dok.help, dok.browse) is not provided. Requiring dok
-- sets the global 'dok', as Torch7's did.
require 'torch'
local xlua = require 'xlua'

local dok = {}

dok.unpack = xlua.unpack
dok.usage = xlua.usage

function dok.error(message, domain)
  if domain then message = '<' .. tostring(domain) .. '> ' .. tostring(message) end
  error(message, 2)
end

rawset(_G, 'dok', rawget(_G, 'dok') or dok)
package.loaded.dok = dok
return dok
