-- nn.SpatialAutoCropMSECriterion([sizeAverage=true]): MSECriterion between
-- an input (C x H x W or batch x C x H x W) and the centre crop of a target
-- at least as large in height and width (same batch and channels): rows
-- from 1 + floor((tH - H)/2), columns likewise. Torch7 crops in forward
-- only (its backward needs a target of the input's size); here backward
-- crops too, which gives the same numbers where Torch7 works.
-- Lua: a cropped view of the target, then the MSE kernel.

local SpatialAutoCropMSECriterion, parent = torch.class('nn.SpatialAutoCropMSECriterion', 'nn.MSECriterion')

function SpatialAutoCropMSECriterion:__init(sizeAverage)
  parent.__init(self, sizeAverage)
end

local function cropped(input, target, method)
  local who = 'nn.SpatialAutoCropMSECriterion:' .. method
  nn.utils.checkTensor(input, who)
  nn.utils.checkTensor(target, who, 'target')
  if input:dim() ~= 3 and input:dim() ~= 4 then
    nn.utils.error(who, 'input must be 3D (C x H x W) or 4D (batch), got %s', nn.utils.shapeString(input))
  end
  if target:dim() ~= input:dim() then
    nn.utils.error(who, 'target must have the input\'s %d dimensions, got %s', input:dim(), nn.utils.shapeString(target))
  end
  local d = input:dim()
  for i = 1, d - 2 do
    if target:size(i) ~= input:size(i) then
      nn.utils.error(who, 'target must have the input\'s %s (%s), got %s',
                     (d == 4 and i == 1) and 'batch size' or 'number of channels',
                     nn.utils.sizeString(input), nn.utils.sizeString(target))
    end
  end
  local h, w, th, tw = input:size(d - 1), input:size(d), target:size(d - 1), target:size(d)
  if h > th or w > tw then
    nn.utils.error(who, 'input resolution %dx%d must be at most the target\'s, got %dx%d', h, w, th, tw)
  end
  local r0, c0 = 1 + math.floor((th - h) / 2), 1 + math.floor((tw - w) / 2)
  return target:narrow(d - 1, r0, h):narrow(d, c0, w)
end

function SpatialAutoCropMSECriterion:updateOutput(input, target)
  return parent.updateOutput(self, input, cropped(input, target, 'updateOutput'))
end

function SpatialAutoCropMSECriterion:updateGradInput(input, target)
  return parent.updateGradInput(self, input, cropped(input, target, 'updateGradInput'))
end
