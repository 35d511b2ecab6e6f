-- optim.FistaLS(f, g, pl, xinit [, params]): FISTA (Beck and Teboulle
-- 2009) with backtracking on L, as Torch7's optim.FistaLS: minimises
-- f(x) + g(x) for smooth f and non-smooth g, where pl(x, L) replaces x by
-- the minimiser of the quadratic model (e.g. soft thresholding for L1).
-- f(x) returns the value; f(x, 'dx') the value and the gradient.
-- params: L (0.1: 1 / step size), Lstep (1.5), maxiter (50), maxline (20),
-- errthres (1e-4), doFistaUpdate (true: FISTA; false: ISTA), verbose.
-- params keeps L and the buffers xkm, y, ply for the next call.
-- Returns the solution (also copied into xinit) and the history of each
-- iteration {nline, L, F, Fply, Gply, Q}.

require 'optim.sgd'  -- optim._checkCall, optim._evaluate
local optim = optim

function optim.FistaLS(f, g, pl, xinit, params)
  local who = 'optim.FistaLS'
  for i, fn in ipairs{f, g, pl} do
    if type(fn) ~= 'function' then
      error(string.format('%s: argument %d (f, g, pl) must be a function, got %s', who, i, torch.type(fn)), 2)
    end
  end
  if not torch.isTensor(xinit) then error(who .. ': xinit must be a tensor, got ' .. torch.type(xinit), 2) end
  params = params or {}
  local L = params.L or 0.1
  local Lstep = params.Lstep or 1.5
  local maxiter, maxline = params.maxiter or 50, params.maxline or 20
  local errthres = params.errthres or 1e-4
  local fistaUpdate = params.doFistaUpdate ~= false
  local verbose = params.verbose

  params.xkm = params.xkm or xinit.new()
  params.y = params.y or xinit.new()
  params.ply = params.ply or xinit.new()
  local xkm, y, ply = params.xkm:resizeAs(xinit):zero(), params.y:resizeAs(xinit):zero(),
                      params.ply:resizeAs(xinit):zero()
  local xk = xinit
  local history = {}
  local tk = 1
  local fval = math.huge
  for iter = 1, maxiter do
    local fy, gfy = f(y, 'dx')
    local fply, Q, nline = 0, 0, 0
    -- backtrack: grow L until the model bounds f at the proximal point
    while true do
      ply:copy(y):add(-1 / L, gfy)
      pl(ply, L)
      xk:copy(ply)
      fply = f(ply)
      ply:add(-1, y)
      Q = fy + gfy:dot(ply) + L / 2 * ply:dot(ply)
      if verbose then print(string.format('nline=%d L=%g fply=%g Q=%g fy=%g', nline, L, fply, Q, fy)) end
      local stop = fply <= Q or nline >= maxline
      if not (fply <= Q) and nline >= maxline then xk:copy(xkm) end  -- no better point: stay
      if not stop then L = L * Lstep end
      nline = nline + 1
      if stop then break end
    end
    local tkNext = 0
    if fistaUpdate then
      tkNext = (1 + math.sqrt(1 + 4 * tk * tk)) / 2
      xkm:add(-1, xk)
      y:copy(xk):add((1 - tk) / tkNext, xkm)
      xkm:copy(xk)
    else
      y:copy(xk)
    end
    tk = tkNext
    fply = f(y)
    local gply = g(y)
    if verbose then print(string.format('iter=%d eold=%g enew=%g', iter - 1, fval, fply + gply)) end
    fval = fply + gply
    history[iter] = {nline = nline, L = L, F = fval, Fply = fply, Gply = gply, Q = Q}
    if verbose then history[iter].xk, history[iter].y = xk:clone(), y:clone() end
    params.L = L
    if (iter > 1 and math.abs(history[iter].F - history[iter - 1].F) <= errthres) or iter >= maxiter then
      xinit:copy(y)
      return y, history
    end
  end
  xinit:copy(y)
  return y, history
end

return optim.FistaLS
