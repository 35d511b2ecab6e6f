-- cudnn.convert(net, dst, [exclude]): turns every nn.X of net that has a
-- cudnn.X into cudnn.X (dst = cudnn) or back (dst = nn), in place, as
-- Torch7's cudnn.convert did; exclude(module) true leaves a module as it is.
-- The classes share their state layout, so a module changes class and
-- nothing else: the converted net computes exactly what it computed before.
local cudnn = package.loaded.cudnn or _G.cudnn

function cudnn.convert(net, dst, exclude)
  if not torch.isTypeOf(net, 'nn.Module') then
    error(string.format('cudnn.convert: nn.Module expected as argument 1, got %s', torch.type(net)), 2)
  end
  if dst ~= cudnn and dst ~= nn then
    error('cudnn.convert: the cudnn or the nn package expected as argument 2 (cudnn.convert(net, cudnn) or cudnn.convert(net, nn))', 2)
  end
  if exclude ~= nil and type(exclude) ~= 'function' then
    error(string.format('cudnn.convert: function expected as argument 3, got %s', type(exclude)), 2)
  end
  local toCudnn = {}
  for name, nnName in pairs(cudnn.classes) do toCudnn[nnName] = 'cudnn.' .. name end
  for _, m in ipairs(net:listModules()) do
    local t = torch.type(m)
    local target
    if dst == cudnn then
      target = toCudnn[t]
      -- nn.HardTanh is cuDNN's ClippedReLU only when clipped at 0
      if t == 'nn.HardTanh' and (m.min_val ~= 0 or m.max_val <= 0) then target = nil end
    else
      local short = t:match('^cudnn%.(.+)$')
      target = short and cudnn.classes[short]
    end
    if target and not (exclude and exclude(m)) then
      setmetatable(m, torch.getmetatable(target))
    end
  end
  return net
end
