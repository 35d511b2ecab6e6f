-- The th REPL prelude: loads the libraries and greets. The stock lua5.4
-- REPL (readline line editing and history) then prints expression values
-- through tostring, so tensors print in Torch7's format.
require 'torch'
pcall(require, 'nn')
pcall(require, 'optnet')
io.write(string.format('th: Lua 5.4 + torch%s%s  (default %s)\n',
  rawget(_G, 'nn') and ' + nn' or '', package.loaded.optnet and ' + optnet' or '',
  torch.getdefaulttensortype()))
