-- nn.Threshold(threshold, value [, inplace]): y = x > threshold ? x : value.
-- Any shape. In place, the input is overwritten and the output is a view of
-- it; that needs value <= threshold, so that backward, reading the
-- overwritten input, still sees which elements passed.
-- Kernel: src/nn/th_nn_activation.c (shared with ReLU).

local C = torch._C.nn
local fusion = require 'nn.fuse'
local Threshold, parent = torch.class('nn.Threshold', 'nn.Module')

function Threshold:__init(th, v, ip)
  parent.__init(self)
  local cls = torch.type(self)
  if (th ~= nil and type(th) ~= 'number') or (v ~= nil and type(v) ~= 'number') then
    error(string.format('%s: threshold and value must be numbers, got %s and %s', cls,
                        type(th), type(v)), 2)
  end
  if ip ~= nil and type(ip) ~= 'boolean' then
    error(string.format('%s: in-place flag must be boolean, got %s', cls, type(ip)), 2)
  end
  self.threshold = th or 1e-6
  self.val = v or 0
  self.inplace = ip or false
  self:validateParameters()
end

function Threshold:validateParameters()
  self.inplace = self.inplace or false  -- modules saved before the flag existed
  C.act_check(self, 'Threshold', self.inplace, self.threshold, self.val)
end

-- modules whose next forward finds its input already thresholded (optnet's
-- recompute: batch norm re-made with the clipping of this in-place module)
local clipped = setmetatable({}, {__mode = 'k'})

-- the next updateOutput takes its input as already passed through this
-- module: in place, the output is made its view, as the kernel would; only
-- for an in-place Threshold(0, 0) (nn.ReLU), whose pass changes nothing twice
function Threshold:_inputClipped()
  if not (self.inplace and self.threshold == 0 and self.val == 0) then return false end
  clipped[self] = true
  return true
end

function Threshold:updateOutput(input)
  if clipped[self] then
    clipped[self] = nil
    if torch.isTensor(input) then
      self.output:set(input)
      return self.output
    end
  end
  -- the input was clipped by the module before (nn.fuse): as the kernel
  -- would in place, the output is made its view
  if fusion.take(input) and self.inplace and self.threshold == 0 and self.val == 0
      and torch.type(self.output) == torch.type(input) then
    self.output:set(input)
    return self.output
  end
  C.Threshold_updateOutput(self, input, self.output, self.inplace, self.threshold, self.val)
  return self.output
end

function Threshold:updateGradInput(input, gradOutput)
  C.Threshold_updateGradInput(self, input, gradOutput, self.gradInput, nil, self.inplace,
                              self.threshold, self.val)
  return self.gradInput
end

function Threshold:memoryTraits()
  return {buffers = {}, needsInput = true, needsOutput = false, inplace = 'inplace'}
end

-- Torch7's invariant (validateParameters; the kernel's th_nn_act_check):
-- in place, backward reads the overwritten input, where an element that
-- did not pass holds value; value <= threshold keeps it from passing again.
-- (OptNet's alexnet and vgg use Threshold(0, 1e-6): never in place.)
function Threshold:inplaceAllowed()
  if self.val > self.threshold then
    return false, string.format('in-place processing requires value (%g) not exceed threshold (%g)',
                                self.val, self.threshold)
  end
  return true
end
