-- optnet.optimizeMemory's foldBatchNorm (lua/optnet/fold.lua): batch norm
-- folded into the preceding convolution in inference, the output unchanged
-- but for rounding, removeOptimization putting back every weight bit for bit
-- and the batch norm module itself; options checked. A folded net refuses
-- training mode (forward) and backward, also as a clone, a :float() copy
-- and a saved and loaded copy (issue #32: net:training() then forward
-- silently computed another function).
require 'torch'
require 'nn'
local optnet = require 'optnet'
local helpers = require 'spec.support.helpers'

local function net(bias)
  local function conv(a, b)
    local c = nn.SpatialConvolution(a, b, 3, 3, 1, 1, 1, 1)
    if not bias then c:noBias() end
    return c
  end
  local n = nn.Sequential()
    :add(conv(3, 4)):add(nn.SpatialBatchNormalization(4)):add(nn.ReLU(true))
    :add(nn.Sequential():add(conv(4, 5)):add(nn.SpatialBatchNormalization(5, 1e-3, 0.1, false)))
    :add(conv(5, 6)):add(nn.SpatialBatchNormalization(6))
  -- batch norms with statistics and affine parameters away from the defaults
  for _, m in ipairs(n:findModules('nn.SpatialBatchNormalization')) do
    m.running_mean:uniform(-1, 1)
    m.running_var:uniform(0.5, 2)
    if m.weight then m.weight:uniform(0.5, 1.5); m.bias:uniform(-1, 1) end
  end
  return n:double():evaluate()
end

describe('optnet foldBatchNorm', function()
  it('folds conv + batch norm in inference, same output; removeOptimization restores it exactly', function()
    for _, bias in ipairs({true, false}) do
      torch.manualSeed(5)
      local n = net(bias)
      local x = torch.randn(2, 3, 7, 6):double()
      local y = n:forward(x):clone()
      local before = {}
      for i, p in ipairs(n:parameters()) do before[i] = p:clone() end
      local nModules = #n:listModules()
      optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
      assert.are.equal(0, #n:findModules('nn.SpatialBatchNormalization'))
      assert.are.equal(nModules - 3, #n:listModules())
      assert.is_true((n:forward(x) - y):abs():max() < 1e-12)
      optnet.removeOptimization(n)
      assert.are.equal(3, #n:findModules('nn.SpatialBatchNormalization'))
      assert.are.equal(nModules, #n:listModules())
      local after = n:parameters()
      assert.are.equal(#before, #after)
      helpers.identical(after, before, "parameters after removeOptimization")
      for _, c in ipairs(n:findModules('nn.SpatialConvolution')) do assert.are.equal(bias, c.bias ~= nil) end
      assert.is_true((n:forward(x) - y):abs():max() == 0)
    end
  end)

  it('folds in float within rounding of the float net', function()
    torch.manualSeed(6)
    local n = net(true):float()
    local x = torch.randn(2, 3, 9, 9):float()
    local y = n:forward(x):clone()
    optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
    assert.is_true((n:forward(x) - y):abs():max() < 1e-5 * math.max(1, torch.abs(y):max()))
    optnet.removeOptimization(n)
  end)

  it('leaves a batch norm in training mode, and one after another module, alone', function()
    local n = nn.Sequential():add(nn.SpatialConvolution(2, 2, 1, 1)):add(nn.ReLU())
      :add(nn.SpatialBatchNormalization(2)):double():evaluate()
    local x = torch.randn(1, 2, 3, 3):double()
    optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
    assert.are.equal(1, #n:findModules('nn.SpatialBatchNormalization'))
    optnet.removeOptimization(n)
  end)

  it('refuses foldBatchNorm in training mode and a non-boolean value', function()
    local n = net(true)
    local x = torch.randn(1, 3, 4, 4):double()
    local msg = helpers.errmsg(optnet.optimizeMemory, n, x, {mode = 'training', foldBatchNorm = true})
    assert.truthy(msg:find("foldBatchNorm needs mode = 'inference'", 1, true), msg)
    msg = helpers.errmsg(optnet.optimizeMemory, n, x, {foldBatchNorm = 1})
    assert.truthy(msg:find("option 'foldBatchNorm' must be a boolean", 1, true), msg)
    assert.are.equal(3, #n:findModules('nn.SpatialBatchNormalization'))
  end)
  local FOLD_MSG = "folded into the convolutions before them by optnet (optimizeMemory's foldBatchNorm"

  -- the minimal net of issue #32: conv + batch norm + ReLU, folded, then training
  local function small()
    torch.manualSeed(11)
    local n = nn.Sequential():add(nn.SpatialConvolution(2, 3, 3, 3)):add(nn.SpatialBatchNormalization(3))
      :add(nn.ReLU())
    local bn = n.modules[2]
    bn.running_mean:uniform(-1, 1); bn.running_var:uniform(0.5, 2)
    return n:double():evaluate(), torch.randn(2, 2, 5, 5):double()
  end

  local function refuses(n, x)
    local msg = helpers.errmsg(n.forward, n, x)
    assert.truthy(msg:find(FOLD_MSG, 1, true), msg)
    assert.truthy(msg:find('in training mode it would compute another function', 1, true), msg)
    assert.truthy(msg:find('optnet.removeOptimization(net)', 1, true), msg)
  end

  it('a folded net refuses training mode, as a clone, :float() and a loaded copy; evaluate() runs it again', function()
    local n, x = small()
    local plain = n:clone()
    local y = plain:forward(x):clone()
    optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
    local c = n:clone()
    local f = torch.MemoryFile()
    f:writeObject(n)
    f:seek(1)
    local l = f:readObject()
    f:close()
    for _, m in ipairs({n, c, l}) do
      m:training()
      refuses(m, x)
      m:evaluate()
      assert.is_true((m:forward(x) - y):abs():max() < 1e-12)
    end
    local fl = n:clone():float()
    fl:training()
    refuses(fl, x:float())
    -- backward is refused in evaluate mode too
    n:evaluate()
    n:forward(x)
    local msg = helpers.errmsg(n.backward, n, x, y)
    assert.truthy(msg:find('backward', 1, true), msg)
    -- removeOptimization gives the batch norm back: training works and is the plain net's
    optnet.removeOptimization(n)
    assert.are.equal(1, #n:findModules('nn.SpatialBatchNormalization'))
    n:training(); plain:training()
    assert.are.equal(0, (n:forward(x) - plain:forward(x)):abs():max())
    local g = y:clone():uniform(-1, 1)
    assert.are.equal(0, (n:backward(x, g) - plain:backward(x, g)):abs():max())
    -- so does it on the clone and the loaded copy
    for _, m in ipairs({c, l}) do
      optnet.removeOptimization(m)
      m:training()
      assert.are.equal(0, (m:forward(x) - plain:forward(x)):abs():max())
    end
  end)

  it('a folded net re-planned for a new input stays folded; in training mode it refuses before re-planning', function()
    local n, x = small()
    local plain = n:clone()
    optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
    local x3 = torch.randn(3, 2, 6, 6):double()
    assert.is_true((n:forward(x3) - plain:forward(x3)):abs():max() < 1e-12)
    assert.are.equal(0, #n:findModules('nn.SpatialBatchNormalization'))
    n:training()
    refuses(n, x)
    optnet.removeOptimization(n)
    assert.are.equal(1, #n:findModules('nn.SpatialBatchNormalization'))
    helpers.identical(n:parameters(), plain:parameters(), 'parameters after removeOptimization')
  end)

  it('a batch norm of the folded net put in training mode on its own is refused too', function()
    local n, x = small()
    local bn = n.modules[2]
    optnet.optimizeMemory(n, x, {mode = 'inference', foldBatchNorm = true})
    bn:training()
    refuses(n, x)
    bn:evaluate()
    n:forward(x)
    optnet.removeOptimization(n)
  end)

  -- folding in nested Sequentials, a gModule node, convolutions without
  -- bias; evaluate mode, exact against the net with its batch norms (the
  -- folded arithmetic is another: within rounding), and after removal exact
  it('folds inside nested containers and gModule nodes, with and without bias; removal exact', function()
    require 'nngraph'
    local function cbr(a, b, bias)
      local c = nn.SpatialConvolution(a, b, 3, 3, 1, 1, 1, 1)
      if not bias then c:noBias() end
      return nn.Sequential():add(c):add(nn.SpatialBatchNormalization(b)):add(nn.ReLU())
    end
    torch.manualSeed(12)
    local inner = nn.Sequential():add(cbr(5, 4, false)):add(nn.Concat(2):add(cbr(4, 2, true)):add(cbr(4, 3, false)))
    local xin = nn.Identity()()
    local a = cbr(3, 5, false)(xin)
    local b = inner(a)
    local g = nn.gModule({xin}, {nn.ConcatTable():add(nn.Identity()):add(cbr(5, 2, true))(b)})
    for _, m in ipairs(g:findModules('nn.SpatialBatchNormalization')) do
      m.running_mean:uniform(-1, 1); m.running_var:uniform(0.5, 2)
      m.weight:uniform(0.5, 1.5); m.bias:uniform(-1, 1)
    end
    g:double():evaluate()
    local plain = g:clone()
    local x = torch.randn(2, 3, 6, 6):double()
    local y = plain:forward(x)
    optnet.optimizeMemory(g, x, {mode = 'inference', foldBatchNorm = true})
    assert.are.equal(0, #g:findModules('nn.SpatialBatchNormalization'))
    local out = g:forward(x)
    for i = 1, 2 do assert.is_true((out[i] - y[i]):abs():max() < 1e-12) end
    g:training()
    local msg = helpers.errmsg(g.forward, g, x)
    assert.truthy(msg:find(FOLD_MSG, 1, true), msg)
    g:evaluate()
    out = g:forward(x)
    for i = 1, 2 do assert.is_true((out[i] - y[i]):abs():max() < 1e-12) end
    optnet.removeOptimization(g)
    assert.are.equal(5, #g:findModules('nn.SpatialBatchNormalization'))
    helpers.identical(g:parameters(), plain:parameters(), 'parameters after removeOptimization')
    out = g:forward(x)
    for i = 1, 2 do assert.are.equal(0, (out[i] - y[i]):abs():max()) end
    g:training(); plain:training()
    y = plain:forward(x)
    out = g:forward(x)
    for i = 1, 2 do assert.are.equal(0, (out[i] - y[i]):abs():max()) end
  end)
end)
