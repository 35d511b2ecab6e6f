-- mpi: Open MPI for tensors (docs/mpi.md). Ranks are 0-based as MPI's.
--   local mpi = require 'mpi'
--   mpi.init()                        -- once per process; returns rank, size
--   mpi.allreduce(t [, 'sum'|'max'|'min'|'prod'])    -- in place, returns t
--   mpi.broadcast(t [, root])         -- root's t everywhere (root 0 by default)
--   mpi.reducescatter(recv, send [, op [, counts]])  -- recv := my block of the reduction
--   mpi.allgather(recv [, send [, counts]])          -- recv := every rank's block
--   mpi.iallreduce / ibroadcast / ireducescatter / iallgather: the same, returning
--     an mpi.Request (req:wait(), req:test()); the tensors are owned by MPI until then
--   mpi.barrier(), mpi.rank(), mpi.size(), mpi.wtime(), mpi.abort(msg), mpi.finalize()
-- A script that ends without mpi.finalize(): on an error (exit status not
-- 0) the whole job aborts with a message, so the other ranks never wait for
-- it; at a normal end MPI is finalized for it (as mpi4py does), waiting at
-- most TH_MPI_FINALIZE_TIMEOUT seconds (default 300) for the other ranks.
require 'torch'
local C = require 'mpi.core'

local mpi = {}
for k, v in pairs(C) do mpi[k] = v end

-- mpi.range(n [, rank]): rank's block of n elements under the even split
-- the collectives use: its first index (1-based) and its length
function mpi.range(n, rank)
  if math.type(n) ~= 'integer' or n < 0 then
    error(string.format("mpi.range: a count >= 0 expected, got %s", tostring(n)), 2)
  end
  local R = mpi.size()
  rank = rank or mpi.rank()
  if math.type(rank) ~= 'integer' or rank < 0 or rank >= R then
    error(string.format("mpi.range: rank in 0..%d expected, got %s", R - 1, tostring(rank)), 2)
  end
  local lo, hi = rank * n // R, (rank + 1) * n // R
  return lo + 1, hi - lo
end

-- mpi.waitall(requests): waits for every request of the list
function mpi.waitall(reqs)
  for _, r in ipairs(reqs) do r:wait() end
end

return mpi
