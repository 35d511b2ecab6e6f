-- nn.VolumetricReplicationPadding(pleft [, pright, ptop, pbottom, pfront, pback]):
-- pads a 4D (C x T x H x W) or 5D (batch) input by repeating its border
-- cells: W by pleft/pright, H by ptop/pbottom, T by pfront/pback (all default
-- to pleft); negative pads crop. Output C x (T+pfront+pback) x (H+ptop+pbottom)
-- x (W+pleft+pright). Kernel: src/nn/th_nn_volpad.c.

local C = torch._C.nn
local VolumetricReplicationPadding, parent =
  torch.class('nn.VolumetricReplicationPadding', 'nn.Module')

function VolumetricReplicationPadding:__init(pleft, pright, ptop, pbottom, pfront, pback)
  parent.__init(self)
  local cls = torch.type(self)
  local function int(v, what)
    local i = math.tointeger(v)
    if i == nil then
      error(string.format('%s: %s must be an integer, got %s', cls, what, tostring(v)), 3)
    end
    return i
  end
  self.pleft = int(pleft, 'pleft')
  self.pright = int(pright or self.pleft, 'pright')
  self.ptop = int(ptop or self.pleft, 'ptop')
  self.pbottom = int(pbottom or self.pleft, 'pbottom')
  self.pfront = int(pfront or self.pleft, 'pfront')
  self.pback = int(pback or self.pleft, 'pback')
end

function VolumetricReplicationPadding:updateOutput(input)
  C.volreppad_updateOutput(self, input, self.output)
  return self.output
end

function VolumetricReplicationPadding:updateGradInput(input, gradOutput)
  C.volreppad_updateGradInput(self, input, gradOutput, self.gradInput)
  return self.gradInput
end

-- backward reads only the input's sizes
function VolumetricReplicationPadding:memoryTraits()
  return {buffers = {}, needsInput = false, needsOutput = false}
end

function VolumetricReplicationPadding:__tostring__()
  return torch.type(self) ..
    string.format('(left=%d, right=%d, top=%d, bottom=%d, front=%d, back=%d)',
                  self.pleft, self.pright, self.ptop, self.pbottom, self.pfront, self.pback)
end
