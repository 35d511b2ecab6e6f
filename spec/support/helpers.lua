-- Helpers shared by the specs (busted does not load this file as a spec).
-- They use the torch and nn globals the requiring spec has loaded.
local assert = require 'luassert'  -- busted's assert: required modules do not see the spec's
local M = {}

function M.errmsg(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, 'expected an error')
  return tostring(err)
end

function M.errors(f, text)
  local ok, err = pcall(f)
  assert.is_false(ok, 'expected an error containing: ' .. text)
  err = tostring(err)
  assert(err:find(text, 1, true), 'error "' .. err .. '" does not contain "' .. text .. '"')
end

function M.has(msg, part)
  assert.is_truthy(msg:find(part, 1, true), 'message was: ' .. msg)
end

function M.fails(patterns, f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, 'expected an error')
  err = tostring(err)
  for _, p in ipairs(type(patterns) == 'table' and patterns or {patterns}) do
    if not err:find(p, 1, true) then error(string.format('message %q lacks %q', err, p), 2) end
  end
  return err
end

function M.errorOf(f)
  local ok, err = pcall(f)
  assert.is_false(ok)
  return (tostring(err):gsub('^[^:]*:%d+: ', ''))
end

function M.same(a, b, eps)
  eps = eps or 0
  if a:nElement() ~= b:nElement() then return false end
  local fa, fb = a:contiguous():view(a:nElement()), b:contiguous():view(b:nElement())
  for i = 1, fa:nElement() do if math.abs(fa[i] - fb[i]) > eps then return false end end
  return true
end

M.errorMessage = M.errmsg

function M.inputJacobianError(m, x) return nn.Jacobian.testJacobian(m, x) end

function M.maxAbsDiff(a, b)
  local fa, fb = a:contiguous():view(a:nElement()), b:contiguous():view(b:nElement())
  local m = 0
  for i = 1, fa:nElement() do m = math.max(m, math.abs(fa[i] - fb[i])) end
  return m
end

function M.clone(v)
  if torch.isTensor(v) then return v:clone() end
  if type(v) ~= 'table' then return v end   -- numbers (SplitTable of a 1D input)
  local r = {}
  for k, x in pairs(v) do r[k] = M.clone(x) end
  return r
end

function M.readfile(p)
  local f = assert(io.open(p, 'rb'))
  local s = f:read('a')
  f:close()
  return s
end

function M.flat(x, out)
  out = out or {}
  if type(x) ~= 'table' then out[#out + 1] = x return out end
  for _, v in ipairs(x) do M.flat(v, out) end
  return out
end

-- f(tensor, path) for every tensor in v (a tensor or nested tables), path
-- naming it from 'path' down ('output.1.2')
function M.each(v, f, path)
  path = path or 'output'
  if torch.isTensor(v) then return f(v, path) end
  if type(v) ~= 'table' or torch.typename(v) then return end  -- numbers, strings, objects: no tensors here
  for k, x in pairs(v) do M.each(x, f, path .. '.' .. tostring(k)) end
end

-- asserts a and b (tensors or tables of tensors) are identical: same paths,
-- sizes and numbers; 'what' opens the message
function M.identical(a, b, what)
  local fa = {}
  M.each(a, function(t, p) fa[p] = t end)
  M.each(b, function(t, p)
    assert(fa[p], what .. ': missing ' .. p)
    assert.are.same(fa[p]:size():totable(), t:size():totable())
    local d = t:nElement() > 0 and (fa[p]:double() - t:double()):abs():max() or 0
    assert(d == 0, string.format('%s: %s differs by %g', what, p, d))
  end)
end

-- a gradOutput shaped like out (a tensor or table), uniform in [-1, 1]:
-- from seed (each table entry from seed + its key), or from the generator
-- as it is when no seed is given
function M.gradFor(out, seed)
  if seed then torch.manualSeed(seed) end
  if torch.isTensor(out) then return out:clone():uniform(-1, 1) end
  local g = {}
  for k, v in pairs(out) do g[k] = M.gradFor(v, seed and seed + k) end
  return g
end

-- runs src (Lua source) as a script in a fresh bin/th of this tree, with the
-- build the specs run against; returns its output (stdout and stderr) and
-- exit status
local root = debug.getinfo(1, 'S').source:match('^@(.-)spec/support/helpers%.lua$') or ''
local function sh(str) return "'" .. str:gsub("'", "'\\''") .. "'" end
function M.th(src)
  local core = package.searchpath('torch.core', package.cpath)
  local build = core and core:match('^(.*)/torch/core%.so$') or 'build'
  local script = os.tmpname()
  local f = assert(io.open(script, 'w'))
  f:write(src)
  f:close()
  local p = io.popen(string.format('cd %s && TH_BUILD=%s bin/th %s 2>&1', sh(root ~= '' and root or '.'), sh(build),
                                   sh(script)))
  local out = p:read('a')
  local _, _, status = p:close()
  os.remove(script)
  return out, status
end

return M
