-- nn.legacy: where classes that left nn went. This project's nn once
-- defined nn.LSTM, nn.GRU and nn.Recurrence; they are package thrnn's now
-- (thrnn.LSTM, ...), and files saved before name them so. torch.load asks
-- torch._legacyClass[name] when a file names a class nobody defines
-- (lua/torch/File.lua): here, thrnn is loaded then (not before: requiring nn
-- loads nothing above nn) and the object becomes thrnn's when its fields are
-- thrnn's layout (else the load fails as for an unknown class, saying why). A
-- package that defines nn.LSTM itself (torch-rnn, Element-Research/rnn) owns
-- the name: torch.load uses its class and never asks. Defines no class.
torch._legacyClass = torch._legacyClass or {}

local function count(v) return math.type(v) == 'integer' and v >= 1 end

-- nil when the fields are a thrnn.Recurrence's, else what is not: the
-- fields only thrnn's layout has (torch-rnn's nn.LSTM has input_dim,
-- hidden_dim, weight; Element-Research/rnn's have outputSize,
-- recurrentModule); the rest is checked as for any thrnn module
-- (nn.validate, once the object has its class)
local function recurrenceMismatch(f)
  for _, k in ipairs{'nState', 'stateSize'} do
    if not count(f[k]) then return string.format("field '%s' is %s, not a positive integer", k, tostring(f[k])) end
  end
  if type(f.modules) ~= 'table' or not torch.isTypeOf(f.modules[1], 'nn.Module') then
    return "field 'modules' does not hold the step module"
  end
end

-- thrnn.LSTM and thrnn.GRU: a Recurrence with its layers
local function layerMismatch(f)
  return recurrenceMismatch(f) or (not count(f.layers) and
    string.format("field 'layers' is %s, not a positive integer", tostring(f.layers))) or nil
end

local function mapping(old, new, mismatch)
  torch._legacyClass[old] = function()
    require 'thrnn'   -- with nngraph's classes: the file holds the step graph
    return new, function(fields)
      local why = mismatch(fields)
      return why and string.format('its fields are not those of the %s this project saved before it became %s: %s',
                                   old, new, why)
    end
  end
end

mapping('nn.Recurrence', 'thrnn.Recurrence', recurrenceMismatch)
mapping('nn.LSTM', 'thrnn.LSTM', layerMismatch)
mapping('nn.GRU', 'thrnn.GRU', layerMismatch)
