-- nn.SpatialMaxUnpooling(poolingModule): the inverse of an
-- nn.SpatialMaxPooling whose kernel equals its stride. Each input element is
-- put back where the pooling module's 'indices' say its maximum came from,
-- in a plane of the pooling module's last input size; everything else is
-- zero. The pooling module must have run forward on the matching input.
-- Kernel: src/nn/th_nn_unpool.c.

local C = torch._C.nn
local SpatialMaxUnpooling, parent = torch.class('nn.SpatialMaxUnpooling', 'nn.Module')

function SpatialMaxUnpooling:__init(poolingModule)
  parent.__init(self)
  if not torch.isTypeOf(poolingModule, 'nn.SpatialMaxPooling') then
    error(string.format('nn.SpatialMaxUnpooling: argument must be a nn.SpatialMaxPooling module, got %s',
                        torch.type(poolingModule)), 2)
  end
  if poolingModule.kH ~= poolingModule.dH or poolingModule.kW ~= poolingModule.dW then
    error(string.format("nn.SpatialMaxUnpooling: the pooling module's kernel must equal its stride, got kernel %dx%d, stride %d,%d",
                        poolingModule.kW, poolingModule.kH, poolingModule.dW, poolingModule.dH), 2)
  end
  self.pooling = poolingModule
end

function SpatialMaxUnpooling:setParams(method)
  if self.pooling.iheight == nil then
    error(string.format('%s:%s: the pooling module has not run forward yet', torch.type(self), method), 3)
  end
  self.indices = self.pooling.indices
  self.oheight = self.pooling.iheight
  self.owidth = self.pooling.iwidth
end

function SpatialMaxUnpooling:updateOutput(input)
  self:setParams('updateOutput')
  C.maxunpool_updateOutput(self, input, self.output, self.indices, self.owidth, self.oheight)
  return self.output
end

function SpatialMaxUnpooling:updateGradInput(input, gradOutput)
  self:setParams('updateGradInput')
  C.maxunpool_updateGradInput(self, input, gradOutput, self.gradInput, self.indices,
                              self.owidth, self.oheight)
  return self.gradInput
end

-- 'indices' belongs to the pooling module (which keeps it until its own
-- backward, after this module's); backward reads only the input's sizes.
-- Of the pooling module held in 'pooling' only 'indices' is read (optnet
-- keeps it alive until this module's last step), not its output.
function SpatialMaxUnpooling:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false, held = {pooling = {'indices'}}}
end

function SpatialMaxUnpooling:empty()
  self:clearState()
end

function SpatialMaxUnpooling:__tostring__()
  return 'nn.SpatialMaxUnpooling associated to ' .. tostring(self.pooling)
end
