-- nn.VolumetricMaxUnpooling(poolingModule): the inverse of an
-- nn.VolumetricMaxPooling whose kernel equals its stride. Each input element
-- is put back where the pooling module's 'indices' say its maximum came
-- from, in a volume of the pooling module's last input size; everything
-- else is zero. The pooling module must have run forward on the matching
-- input. Kernel: the spatial one (src/nn/th_nn_unpool.c) on a view that
-- merges T and H: the indices are flat positions within a plane, so a
-- T x H x W plane is a (T*H) x W one.

local C = torch._C.nn
local VolumetricMaxUnpooling, parent = torch.class('nn.VolumetricMaxUnpooling', 'nn.Module')

function VolumetricMaxUnpooling:__init(poolingModule)
  parent.__init(self)
  if torch.type(poolingModule) ~= 'nn.VolumetricMaxPooling' then
    error(string.format('nn.VolumetricMaxUnpooling: argument must be a nn.VolumetricMaxPooling module, got %s',
                        torch.type(poolingModule)), 2)
  end
  local p = poolingModule
  if p.kT ~= p.dT or p.kH ~= p.dH or p.kW ~= p.dW then
    error(string.format("nn.VolumetricMaxUnpooling: the pooling module's kernel must equal its stride, got kernel %dx%dx%d, stride %d,%d,%d",
                        p.kT, p.kW, p.kH, p.dT, p.dW, p.dH), 2)
  end
  self.pooling = poolingModule
end

function VolumetricMaxUnpooling:setParams(method)
  local p = self.pooling
  if p.itime == nil then
    error(string.format('%s:%s: the pooling module has not run forward yet', torch.type(self), method), 3)
  end
  self.otime, self.oheight, self.owidth = p.itime, p.iheight, p.iwidth
  self.dT, self.dH, self.dW = p.dT, p.dH, p.dW
  self.padT, self.padH, self.padW = p.padT, p.padH, p.padW
end

local function sizestr(t)
  local s = {}
  for d = 1, t:dim() do s[d] = tostring(t:size(d)) end
  return #s > 0 and table.concat(s, 'x') or 'empty'
end

-- t (4D or 5D) as a 3D or 4D tensor with T and H merged
local function merged(self, t, method, what)
  if not torch.isTensor(t) then
    error(string.format('%s:%s: %s must be a tensor, got %s', torch.type(self), method, what,
                        torch.type(t)), 3)
  end
  local n = t:dim()
  if n ~= 4 and n ~= 5 then
    error(string.format('%s:%s: %s must be 4D or 5D (batch), got %dD %s', torch.type(self), method,
                        what, n, sizestr(t)), 3)
  end
  local size = t:size():totable()
  size[n - 2] = size[n - 2] * size[n - 1]
  table.remove(size, n - 1)
  return t:contiguous():view(table.unpack(size))
end

-- the pooling module's indices (not kept in a field of this module: they
-- are the pooling module's buffer), checked against the input
local function indices(self, input, method)
  local ind = self.pooling.indices
  if not ind:isSameSizeAs(input) then
    error(string.format("%s:%s: input must be %s (the size of the pooling module's output), got %s",
                        torch.type(self), method, sizestr(ind), sizestr(input)), 3)
  end
  return merged(self, ind, method, 'indices')
end

local function fullSize(input, oT, oH, oW)
  local size = input:size():totable()
  local n = #size
  size[n - 2], size[n - 1], size[n] = oT, oH, oW
  return size
end

function VolumetricMaxUnpooling:updateOutput(input)
  self:setParams('updateOutput')
  local x = merged(self, input, 'updateOutput', 'input')
  C.maxunpool_updateOutput(self, x, self.output, indices(self, input, 'updateOutput'),
                           self.owidth, self.otime * self.oheight)
  self.output:resize(table.unpack(fullSize(input, self.otime, self.oheight, self.owidth)))
  return self.output
end

function VolumetricMaxUnpooling:updateGradInput(input, gradOutput)
  self:setParams('updateGradInput')
  local x = merged(self, input, 'updateGradInput', 'input')
  local want = fullSize(input, self.otime, self.oheight, self.owidth)
  if not torch.isTensor(gradOutput) or not gradOutput:isSize(torch.LongStorage(want)) then
    error(string.format('%s:updateGradInput: gradOutput must be %s (the output size), got %s', torch.type(self),
                        table.concat(want, 'x'), torch.isTensor(gradOutput) and sizestr(gradOutput)
                        or torch.type(gradOutput)), 2)
  end
  local go = merged(self, gradOutput, 'updateGradInput', 'gradOutput')
  C.maxunpool_updateGradInput(self, x, go, self.gradInput, indices(self, input, 'updateGradInput'),
                              self.owidth, self.otime * self.oheight)
  self.gradInput:resize(input:size())
  return self.gradInput
end

-- 'indices' belongs to the pooling module; backward reads only the input's
-- sizes. Of the pooling module only 'indices' is read, not its output.
function VolumetricMaxUnpooling:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false, held = {pooling = {'indices'}}}
end

function VolumetricMaxUnpooling:empty()
  self:clearState()
end

function VolumetricMaxUnpooling:__tostring__()
  return 'nn.VolumetricMaxUnpooling associated to ' .. tostring(self.pooling)
end
