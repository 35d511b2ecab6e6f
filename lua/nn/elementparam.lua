-- What nn.CAdd (a bias) and nn.CMul (a weight) share: the parameter's size
-- from the constructor's arguments, and how an input meets the parameter.
-- Internal: the two modules' files require it.
local ep = {}

-- size...: numbers or one LongStorage, for the parameter 'what' ('bias',
-- 'weight'); errors name the constructor's caller
function ep.size(cls, what, ...)
  local arg = {...}
  local size = torch.LongStorage()
  local n = select('#', ...)
  if n == 1 and torch.type(arg[1]) == 'torch.LongStorage' then
    local src = arg[1]
    size:resize(src:size())
    for i = 1, src:size() do size[i] = src[i] end
    return size
  end
  if n == 0 then error(string.format('%s: %s size expected (numbers or a LongStorage), got nothing', cls, what), 3) end
  size:resize(n)
  for i = 1, n do
    local s = math.tointeger(arg[i])
    if s == nil or s < 1 then
      error(string.format('%s: size %d must be a positive integer, got %s', cls, i, tostring(arg[i])), 3)
    end
    size[i] = s
  end
  return size
end

-- how the parameter p ('bias' or 'weight': 'what') meets an input: 'same'
-- (equal element counts), 'broadcast' (same dimension count, parameter
-- sizes 1 or equal) or 'batch'; else an error at 'level'
function ep.mode(self, p, what, input, method, level)
  nn.utils.checkTensor(input, torch.type(self) .. ':' .. method)
  if input:nElement() == p:nElement() then return 'same' end
  if input:dim() == p:dim() then
    local ok = true
    for i = 1, p:dim() do
      if p:size(i) ~= 1 and p:size(i) ~= input:size(i) then ok = false end
    end
    if ok then return 'broadcast' end
  elseif input:dim() > 0 and input:nElement() == input:size(1) * p:nElement() then
    return 'batch'
  end
  error(string.format("%s:%s: input must have the %s's %d elements (%s), a batch of them, or its dimensions with size-1 %s dimensions broadcast, got %s",
                      torch.type(self), method, what, p:nElement(), nn.utils.sizeString(p), what,
                      nn.utils.shapeString(input)), level and level + 1 or 0)
end

return ep
