-- The classes' names before thrnn: this project's nn once defined
-- nn.LSTM, nn.GRU and nn.Recurrence, and files saved then name them so.
-- torch.load asks torch._legacyClass[name](fields) when a file names a
-- class nobody defines (lua/torch/File.lua): here, when the object's
-- fields are thrnn's layout, the answer is thrnn's class (thrnn is loaded
-- then, not before). A package that defines nn.LSTM itself (torch-rnn,
-- Element-Research/rnn) owns the name: torch.load uses its class and
-- never asks. nn/init.lua loads this file; it defines no class.
torch._legacyClass = torch._legacyClass or {}

local function count(v) return math.type(v) == 'integer' and v >= 1 end

-- nil when the fields are a thrnn.Recurrence's, else what is not
local function recurrenceMismatch(f)
  for _, k in ipairs{'nState', 'stateSize'} do
    if not count(f[k]) then return string.format("field '%s' is %s, not a positive integer", k, tostring(f[k])) end
  end
  if type(f.modules) ~= 'table' or not torch.isTypeOf(f.modules[1], 'nn.Module') then
    return "field 'modules' does not hold the step module"
  end
end

-- thrnn.LSTM and thrnn.GRU: a Recurrence with nState per layer states
local function layerMismatch(f, perLayer)
  local why = recurrenceMismatch(f)
  if why then return why end
  for _, k in ipairs{'inputSize', 'hiddenSize', 'layers'} do
    if not count(f[k]) then return string.format("field '%s' is %s, not a positive integer", k, tostring(f[k])) end
  end
  if f.nState ~= perLayer * f.layers or f.stateSize ~= f.hiddenSize then
    return string.format('its %d states of %d do not fit %d layers of %d', f.nState, f.stateSize, f.layers, f.hiddenSize)
  end
end

local function mapping(old, new, mismatch)
  torch._legacyClass[old] = function(fields)
    local why = mismatch(fields)
    if why then
      return nil, string.format('%s is not the %s of older files of this project, now %s: %s', old, old, new, why)
    end
    require 'thrnn'
    return new
  end
end

mapping('nn.Recurrence', 'thrnn.Recurrence', recurrenceMismatch)
mapping('nn.LSTM', 'thrnn.LSTM', function(f) return layerMismatch(f, 2) end)
mapping('nn.GRU', 'thrnn.GRU', function(f) return layerMismatch(f, 1) end)
