-- thrnn.Recurrence(step, nState, stateSize): runs a one-step module over a
-- sequence, the base of thrnn.LSTM and thrnn.GRU. step maps {x_t, s_1, ..., s_n}
-- (n state tensors of batch x stateSize) to {s'_1, ..., s'_n}; the last
-- state is the output at each time step.
--   input  batch x T x inputSize      output  batch x T x stateSize
-- The states start at zero for every sequence. One clone of the step runs
-- each time step; all clones hold the step's very parameter tensors (not
-- copies sharing a storage), so parameters(), getParameters and
-- updateParameters see each weight once and every time step's gradient
-- adds into it. Clones are made as longer sequences come. Backward is
-- back-propagation through the whole sequence.
local Recurrence, parent = torch.class('thrnn.Recurrence', 'nn.Container')

local PARAMS = {'weight', 'bias', 'gradWeight', 'gradBias'}

-- f(...) with nngraph loaded, for a script that has not loaded it as if
-- it had not: its node syntax off again (calling a module runs forward)
-- and its require 'nngraph' still to come (it turns the syntax on then)
local function withNngraph(f, ...)
  if package.loaded.nngraph then return f(...) end
  local M, C = torch.getmetatable('nn.Module'), torch.getmetatable('nn.Criterion')
  local before = {M.__call__, M.__unm__, M.__sub__, C.__call__}
  require 'nngraph'
  local r = table.pack(pcall(f, ...))
  M.__call__, M.__unm__, M.__sub__, C.__call__ = table.unpack(before, 1, 4)
  package.loaded.nngraph = nil
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

-- the steps are nn.gModule graphs: a file holding one needs the class
withNngraph(function() end)

-- the step of models/<name>.lua (an nngraph graph)
function Recurrence.buildStep(name, opts)
  return withNngraph(function() return nngraph.build(require('models.' .. name), opts) end)
end

function Recurrence:__init(step, nState, stateSize)
  parent.__init(self)
  if not torch.isTypeOf(step, 'nn.Module') then
    error('thrnn.Recurrence: a step module expected, got ' .. torch.type(step), 2)
  end
  for _, kv in ipairs{{'nState', nState}, {'stateSize', stateSize}} do
    if math.type(kv[2]) ~= 'integer' or kv[2] < 1 then
      error(string.format('thrnn.Recurrence: %s must be a positive integer, got %s', kv[1], tostring(kv[2])), 2)
    end
  end
  self.nState, self.stateSize = nState, stateSize
  self.modules = {step}
  self._zero = torch.Tensor()
  self._dstate = {}
  self.output = torch.Tensor()
  self.gradInput = torch.Tensor()
end

-- the clone for time step t, holding the step's parameter tensors themselves
function Recurrence:_stepAt(t)
  local step = self.modules[1]
  for k = #self.modules + 1, t do
    local c = step:clone()
    local mine, theirs = step:listModules(), c:listModules()
    for i, m in ipairs(mine) do
      for _, f in ipairs(PARAMS) do
        if torch.isTensor(rawget(m, f)) then theirs[i][f] = m[f] end
      end
    end
    self.modules[k] = c
  end
  return self.modules[t]
end

function Recurrence:parameters()
  return self.modules[1]:parameters()
end

function Recurrence:zeroGradParameters()
  self.modules[1]:zeroGradParameters()
end

function Recurrence:updateParameters(lr)
  self.modules[1]:updateParameters(lr)
end

function Recurrence:_check(input, who)
  if not torch.isTensor(input) or input:dim() ~= 3 then
    error(string.format('%s:%s: input must be a 3D tensor (batch x time x features), got %s', torch.type(self), who,
                        torch.isTensor(input) and (input:dim() .. 'D') or torch.type(input)), 3)
  end
end

-- a step with one state gives (and takes the gradient of) a tensor, not a
-- table of one: nngraph's rule for a graph with one output
local function states(v) return torch.isTensor(v) and {v} or v end
local function asStep(self, g) return self.nState == 1 and g[1] or g end

-- the inputs of time step t: x_t and the states after step t - 1
function Recurrence:_inputsAt(input, t)
  local x = {input:select(2, t)}
  if t == 1 then
    for i = 1, self.nState do x[i + 1] = self._zero end
  else
    local prev = states(self.modules[t - 1].output)
    for i = 1, self.nState do x[i + 1] = prev[i] end
  end
  return x
end

function Recurrence:updateOutput(input)
  self:_check(input, 'updateOutput')
  local B, T = input:size(1), input:size(2)
  self._zero:resize(B, self.stateSize):zero()
  for t = 1, T do
    self:rethrowErrors(self:_stepAt(t), t, 'updateOutput', self:_inputsAt(input, t))
  end
  -- the output is written once every step has run: the memory optimizer
  -- plans a container's output from the container's step, after its children
  self.output:resize(B, T, self.stateSize)
  for t = 1, T do self.output:select(2, t):copy(states(self.modules[t].output)[self.nState]) end
  self._T = T
  return self.output
end

-- the gradient of every output of step t: what step t + 1 sent back, plus
-- the sequence's gradOutput on the last state
function Recurrence:_gradsAt(gradOutput, t)
  local T = self._T
  local g = self._dstate[t] or {}
  self._dstate[t] = g
  local B = gradOutput:size(1)
  for i = 1, self.nState do
    g[i] = g[i] or gradOutput.new()
    if t == T then g[i]:resize(B, self.stateSize):zero() else g[i]:resize(B, self.stateSize):copy(self.modules[t + 1].gradInput[i + 1]) end
  end
  g[self.nState]:add(gradOutput:select(2, t))
  return g
end

function Recurrence:updateGradInput(input, gradOutput)
  self:_check(input, 'updateGradInput')
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
    error(string.format('%s:updateGradInput: gradOutput must be %s like the output', torch.type(self),
                        table.concat(self.output:size():totable(), 'x')), 2)
  end
  for t = self._T, 1, -1 do
    self:rethrowErrors(self.modules[t], t, 'updateGradInput', self:_inputsAt(input, t),
                       asStep(self, self:_gradsAt(gradOutput, t)))
  end
  -- as the output: written once every step has run
  self.gradInput:resizeAs(input)
  for t = 1, self._T do self.gradInput:select(2, t):copy(self.modules[t].gradInput[1]) end
  return self.gradInput
end

function Recurrence:accGradParameters(input, gradOutput, scale)
  for t = self._T, 1, -1 do
    self:rethrowErrors(self.modules[t], t, 'accGradParameters', self:_inputsAt(input, t), asStep(self, self._dstate[t]),
                       scale)
  end
end

-- clones are made again from the step when needed
function Recurrence:clearState()
  for k = #self.modules, 2, -1 do self.modules[k] = nil end
  self._dstate = {}
  return parent.clearState(self)
end

-- it copies each step's last state into its output and each step's input
-- gradient into its gradInput at its own steps; it keeps the zero initial
-- state and the summed state gradients
function Recurrence:memoryTraits()
  return {buffers = {_zero = 'both', _dstate = 'backward'}, needsInput = false, needsOutput = false,
          childOutputs = true, childGradInputs = true, readsGradOutput = true}
end

function Recurrence:__tostring__()
  return string.format('%s(%d)', torch.type(self), self.stateSize)
end

return Recurrence
