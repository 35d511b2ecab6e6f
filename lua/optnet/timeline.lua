-- optnet.timeline: the bytes of activations (outputs, gradInputs, buffers)
-- alive at every step of the traced pass, before and after optimization,
-- with the lower bound and the planned arena; as data and as an SVG chart.
--   local t = optnet.timeline(net, input, {mode = 'training'})
--   io.open('timeline.svg', 'w'):write(t.svg)
-- opts: any optimizeMemory option (default: the net's own when it is
-- optimized), title, width, height (of the picture, in pixels).
--
-- The steps are the trace's (optnet.trace): one per module call, forward
-- then backward. A storage is alive from the step that first writes it to
-- the last step that reads it (the net's results to the end). "Before" is
-- the net without optimization: its live curve is what it needs, and its
-- allocated curve what it holds (an nn net frees nothing, so that curve
-- only rises). "After" is the optimized net's live curve: its peak is the
-- lower bound no plan can beat, and the arena is what the plan allocates.
-- (Each element type has its own arena: with several, the lower bound is
-- the sum of their peaks, in after.pools, and may exceed the total's peak.)
-- Returns {mode, nSteps, nForward, steps = {{module, type, kind}},
--   before = {live, allocated, peak, peakStep, lowerBound},
--   after = {live, peak, peakStep, pools = {dtype = {live, peak, peakStep}}},
--   lowerBound, arena, svg}   (live/allocated: bytes per step)
-- The net is left as it was found (an optimized net is planned again, for
-- this input).
local trace = require 'optnet.trace'
local plan = require 'optnet.plan'
local view = require 'optnet.view'
local svg = require 'optnet.svg'

local KNOWN = {title = true, width = true, height = true}

-- live bytes per step (1..n), from intervals; and bytes allocated so far
local function curves(entries, n)
  local delta, alloc = {}, {}
  for s = 1, n + 1 do delta[s], alloc[s] = 0, 0 end
  for _, e in ipairs(entries) do
    local first = math.max(1, e.first)
    local last = math.min(n, e.last)
    if first <= last then
      delta[first] = delta[first] + e.bytes
      delta[last + 1] = delta[last + 1] - e.bytes
    end
    alloc[first] = alloc[first] + e.bytes
  end
  local live, allocated, l, a = {}, {}, 0, 0
  for s = 1, n do
    l, a = l + delta[s], a + alloc[s]
    live[s], allocated[s] = l, a
  end
  return live, allocated
end

local function peak(values)
  local best, at = -1, 1
  for s, v in ipairs(values) do
    if v > best then best, at = v, s end
  end
  return math.max(best, 0), at
end

local function sum(t)
  local s = 0
  for _, v in pairs(t) do s = s + v end
  return s
end

local function sameOpts(a, b)
  for k, v in pairs(a) do if b[k] ~= v then return false end end
  for k, v in pairs(b) do if a[k] ~= v then return false end end
  return true
end

local COLORS = {allocated = '#9e9e9e', before = '#e6550d', after = '#3182bd', bound = '#31a354', arena = '#756bb1'}

local function stepName(st)
  return string.format('%s %s (%s)', st.module, st.type, st.kind)
end

-- the chart: steps on x, bytes on y
local function render(d, o)
  local W, H = o.width or 960, o.height or 500
  local L, R, T, B = 78, 24, 76, 118
  local pw, ph = W - L - R, H - T - B
  local n = d.nSteps
  local ymax = math.max(d.before.allocated[n] or 0, d.arena, d.before.peak, 1)
  local unit, div = view.unit(ymax)
  local yticks, ystep = svg.ticks(0, ymax / div * 1.05, 5)
  local ytop = yticks[#yticks] < ymax / div and (yticks[#yticks] + ystep) or yticks[#yticks]
  local function X(s) return L + (s - 0.5) / math.max(n, 1) * pw end
  local function Y(bytes) return T + ph - bytes / div / ytop * ph end

  local doc = svg.new(W, H)
  local title = o.title or string.format('activation memory per step (%s)', d.mode)
  doc:title(title)
  doc:text(L, 22, title, {['font-size'] = 16, ['font-weight'] = 'bold'})
  -- grid and y axis
  for _, v in ipairs(yticks) do
    local y = Y(v * div)
    doc:line(L, y, L + pw, y, {stroke = '#e0e0e0'})
    doc:line(L - 5, y, L, y, {stroke = 'black'})
    doc:text(L - 8, y + 4, string.format(ystep < 1 and '%.1f' or '%g', v), {['font-size'] = 11, ['text-anchor'] = 'end'})
  end
  doc:text(18, T + ph / 2, 'live bytes (' .. unit .. ')',
    {['font-size'] = 12, ['text-anchor'] = 'middle', transform = string.format('rotate(-90 18 %s)', svg.num(T + ph / 2))})
  -- x axis: step numbers
  local xticks = svg.ticks(1, n, 10)
  for _, s in ipairs(xticks) do
    if s >= 1 and s == math.floor(s) then
      local x = X(s)
      doc:line(x, T + ph, x, T + ph + 5, {stroke = 'black'})
      doc:text(x, T + ph + 18, string.format('%d', s), {['font-size'] = 11, ['text-anchor'] = 'middle'})
    end
  end
  doc:text(L + pw / 2, T + ph + 36, 'step (module calls in execution order)', {['font-size'] = 12, ['text-anchor'] = 'middle'})
  doc:line(L, T, L, T + ph, {stroke = 'black'})
  doc:line(L, T + ph, L + pw, T + ph, {stroke = 'black'})
  -- where backward starts
  if d.mode == 'training' and d.nForward < n then
    local x = X(d.nForward + 0.5)
    doc:line(x, T, x, T + ph, {stroke = '#666666', ['stroke-dasharray'] = '2,3'})
    doc:text(x - 4, T + 12, 'forward', {['font-size'] = 11, ['text-anchor'] = 'end', fill = '#666666'})
    doc:text(x + 4, T + 12, 'backward', {['font-size'] = 11, fill = '#666666'})
  end
  -- the curves, as steps: a value holds for its whole step
  local function steps(values, attrs)
    local pts = {X(0.5), Y(values[1])}
    for s = 2, n do
      if values[s] ~= values[s - 1] then
        local x = X(s - 0.5)
        pts[#pts + 1] = x; pts[#pts + 1] = Y(values[s - 1])
        pts[#pts + 1] = x; pts[#pts + 1] = Y(values[s])
      end
    end
    pts[#pts + 1] = X(n + 0.5); pts[#pts + 1] = Y(values[n])
    doc:polyline(pts, attrs)
  end
  steps(d.before.allocated, {stroke = COLORS.allocated, ['stroke-width'] = 1.5, ['stroke-dasharray'] = '6,3'})
  -- wide and light, so that where the optimized curve is the same it shows as a halo
  steps(d.before.live, {stroke = COLORS.before, ['stroke-width'] = 4, ['stroke-opacity'] = 0.45})
  doc:line(L, Y(d.arena), L + pw, Y(d.arena), {stroke = COLORS.arena, ['stroke-width'] = 1.5, ['stroke-dasharray'] = '2,2'})
  doc:line(L, Y(d.lowerBound), L + pw, Y(d.lowerBound), {stroke = COLORS.bound, ['stroke-width'] = 1.5, ['stroke-dasharray'] = '8,4'})
  steps(d.after.live, {stroke = COLORS.after, ['stroke-width'] = 2})
  -- the peaks: a dot on the curve, a thin line up, the module named above
  -- the plot (so that no label hides a curve)
  local function mark(which, color, row)
    local c = d[which]
    local x, y = X(c.peakStep), Y(c.peak)
    doc:line(x, T, x, y, {stroke = color, ['stroke-width'] = 0.8, ['stroke-dasharray'] = '1,2'})
    doc:circle(x, y, 4, {fill = color, stroke = 'white'})
    doc:text(L, 40 + 16 * row, string.format('%s peak: %s at step %d, %s', which,
      view.bytes(c.peak), c.peakStep, stepName(d.steps[c.peakStep])), {['font-size'] = 12, fill = color})
  end
  mark('before', COLORS.before, 0)
  mark('after', COLORS.after, 1)
  -- legend, below the axis
  local items = {
    {COLORS.allocated, '6,3', 'before: allocated (an nn net frees nothing)'},
    {COLORS.before, nil, 'before: live bytes', 4, 0.45},
    {COLORS.after, nil, 'after optimizeMemory: live bytes'},
    {COLORS.bound, '8,4', 'lower bound ' .. view.bytes(d.lowerBound)},
    {COLORS.arena, '2,2', 'planned arena ' .. view.bytes(d.arena)},
  }
  for i, it in ipairs(items) do
    local col, row = (i - 1) % 3, (i - 1) // 3
    local x, y = L + col * (pw / 3), T + ph + 62 + row * 20
    doc:line(x, y - 4, x + 28, y - 4, {stroke = it[1], ['stroke-width'] = it[4] or 2,
      ['stroke-opacity'] = it[5], ['stroke-dasharray'] = it[2]})
    doc:text(x + 34, y, it[3], {['font-size'] = 11})
  end
  return doc:render()
end

local function timeline(net, input, opts)
  view.checkNet('timeline', net)
  view.checkInput('timeline', input)
  local o = view.checkOpts('timeline', opts, KNOWN, true)
  local W, H = o.width or 960, o.height or 500
  if type(W) ~= 'number' or type(H) ~= 'number' or W < 320 or H < 240 then
    view.fail('timeline', 'width and height must be numbers of pixels (at least 320x240), got %s x %s',
      tostring(W), tostring(H))
  end
  if o.title ~= nil and type(o.title) ~= 'string' then
    view.fail('timeline', 'title must be a string, got %s', type(o.title))
  end
  local mode = view.mode('timeline', net, o)
  local optnet = require 'optnet'
  local st = optnet._state(net)
  local prevOpts = st and st.opts
  -- the plan's options: the net's own, overridden by opts
  local oo = {}
  for k, v in pairs(prevOpts or {}) do oo[k] = v end
  for k, v in pairs(o) do if optnet._isOption(k) then oo[k] = v end end
  oo.mode = mode
  local paths = view.paths(net)
  -- a training step's net (optnet.trainStep) is re-planned with its object kept
  local keep = prevOpts and prevOpts.planGrads and optnet._keepStep or function(f) return f() end
  return keep(function()
  if st then optnet.removeOptimization(net) end
  local ok, d = pcall(function()
    local rec = view.sideEffectFree(net, function() return trace.run(net, input, mode, oo.planGrads) end)
    local before = plan.intervals(rec, net, input, {mode = mode, shareInput = oo.shareInput, planGrads = oo.planGrads})
    -- the plain net holds every gradient through the whole pass
    for _, e in ipairs(before.entries) do
      if e.role == 'gradParam' then e.first, e.last = 1, rec.nSteps end
    end
    optnet.optimizeMemory(net, input, oo)
    local after = optnet._state(net)
    local n = rec.nSteps
    local d = {mode = mode, nSteps = n, nForward = rec.nForward, steps = {}, before = {}, after = {}}
    for s, step in ipairs(rec.steps) do
      d.steps[s] = {module = paths[step.module] or '?', type = view.typeName(step.module), kind = step.kind}
    end
    d.before.live, d.before.allocated = curves(before.entries, n)
    d.before.peak, d.before.peakStep = peak(d.before.live)
    d.before.lowerBound = sum(plan.lowerBound(before.entries))
    d.after.live = curves(after.plan.entries, n)
    d.after.peak, d.after.peakStep = peak(d.after.live)
    -- per element type: each has its own arena, so the lower bound is the
    -- sum of their peaks, which may fall at different steps
    local byType = {}
    for _, e in ipairs(after.plan.entries) do
      byType[e.dtype] = byType[e.dtype] or {}
      table.insert(byType[e.dtype], e)
    end
    d.after.pools = {}
    for dtype, list in pairs(byType) do
      local c = {live = curves(list, n)}
      c.peak, c.peakStep = peak(c.live)
      d.after.pools[dtype] = c
    end
    d.lowerBound = sum(after.result.lowerBound)
    d.arena = sum(after.result.arena)
    return d
  end)
  -- leave the net as it was found
  if prevOpts then
    local now = optnet._state(net)
    if not now or not sameOpts(now.opts, prevOpts) then
      if now then optnet.removeOptimization(net) end
      optnet.optimizeMemory(net, input, prevOpts)
    end
  elseif optnet.isOptimized(net) then
    optnet.removeOptimization(net)
  end
  if not ok then error(d, 0) end
  d.svg = render(d, o)
  return d
  end)
end

return timeline
