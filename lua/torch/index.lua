-- torch.cat, torch.sort, ...: the functional forms of the indexing,
-- masking and sorting methods (src/lua/th_lua_index.c). The C functions
-- dispatch on the tensors' types themselves and take Torch7's optional
-- leading result, so torch.f(...) is simply the method called as a function.

local torch = torch
local methods = torch._metatables['torch.DoubleTensor']

for _, name in ipairs{'cat', 'sort', 'topk', 'kthvalue', 'median', 'nonzero', 'index',
                      'indexCopy', 'indexAdd', 'indexFill', 'gather', 'scatter',
                      'maskedSelect', 'maskedFill', 'maskedCopy'} do
  torch[name] = methods[name]
end

return torch
