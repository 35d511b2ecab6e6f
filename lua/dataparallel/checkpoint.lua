-- dataparallel.checkpoint: what dp.new's trainers and dp.trainStep's step
-- objects share to write and read checkpoints across ranks. Every step a
-- rank takes alone (rank 0's write, rank 0's read, each rank's decoding and
-- checks) runs under dataparallel.agree.run: a failure on any rank raises
-- the same error on every rank, so none is left waiting in a collective.
require 'torch'
local mpi = require 'mpi'
local agree = require 'dataparallel.agree'

local M = {}

-- fault injection for spec/dataparallel_faults_spec.lua: M.inject, when
-- set, is called with the name of each step (see docs/dev/hardening-36.md)
function M.fault(where)
  if M.inject then M.inject(where) end
end

-- M.write(path, make): every rank calls it; rank 0 saves make() with
-- torch.save through path .. '.tmp', renamed over path (a crash never leaves
-- half a checkpoint). Returns when rank 0's file is in place; any failure
-- raises on every rank.
function M.write(fname, path, make)
  agree.run(function()
    M.fault('checkpoint.write')
    if mpi.rank() ~= 0 then return end
    local ok, err = pcall(torch.save, path .. '.tmp', make())
    if not ok then
      os.remove(path .. '.tmp')
      error(string.format('%s: cannot write %s: %s', fname, path, tostring(err)), 0)
    end
    local renamed, rerr = os.rename(path .. '.tmp', path)
    if not renamed then error(string.format('%s: cannot write %s: %s', fname, path, tostring(rerr)), 0) end
  end)
end

-- M.read(fname, path): every rank calls it; rank 0 reads path and
-- broadcasts it (no shared file system needed). Returns the checkpoint's
-- table on every rank, or raises on every rank.
-- Functions in it (a schedule in 'extra'): Lua bytecode loads only when
-- it is trusted (torch.trustBytecode). Rank 0 decides, reading the file: it
-- wrote the bytecode in this process, or the script trusts it there. What
-- rank 0 broadcasts is its own torch.serialize of what it loaded, so the
-- other ranks load the bytecode rank 0 vetted: every rank accepts, or
-- every rank refuses with rank 0's message.
function M.read(fname, path)
  local len, bytes, ck = torch.LongTensor(1):zero(), nil, nil
  agree.run(function()
    M.fault('resume.read')
    if mpi.rank() ~= 0 then return end
    local ok, res = pcall(torch.load, path)
    if not ok then error(string.format('%s: cannot read %s: %s', fname, path, tostring(res)), 0) end
    ck = res
    local s = torch.serialize(ck)
    bytes, len[1] = torch.ByteTensor(torch.ByteStorage():string(s)), #s
  end)
  mpi.broadcast(len, 0)
  if mpi.rank() ~= 0 then bytes = torch.ByteTensor(len[1]) end
  mpi.broadcast(bytes, 0)
  return agree.run(function()
    M.fault('resume.decode')
    if mpi.rank() == 0 then return ck end
    local was = torch.trustBytecode(true)   -- rank 0's, vetted there (above)
    local ok, res = pcall(torch.deserialize, bytes:storage():string())
    torch.trustBytecode(was)
    if not ok then error(string.format('%s: cannot decode rank 0\'s copy of %s: %s', fname, path, tostring(res)), 0) end
    return res
  end)
end

return M
