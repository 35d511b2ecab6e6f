-- nn.SpatialMatching(maxh=11, maxw=11 [, full_output=false]) (nnx): the
-- squared distances between each pixel's K-vector in input[1] (K x H x W)
-- and the pixels of a maxh x maxw window of input[2]:
--   full_output = false: output[y][x][dy][dx] = ||in1(y, x) -
--     in2(y+dy-1, x+dx-1)||^2; input[2] must be at least (H+maxh-1) x
--     (W+maxw-1) (the window starts at the pixel)
--   full_output = true: the window is centred, offsets -(ceil(maxh/2)-1)
--     .. floor(maxh/2); positions outside the H x W image hold 1e30
-- Output: H x W x maxh x maxw. gradInput = {grad1, grad2}.
local SpatialMatching, parent = torch.class('nn.SpatialMatching', 'nn.Module')

function SpatialMatching:__init(maxh, maxw, full_output)
  parent.__init(self)
  self.maxw = maxw or 11
  self.maxh = maxh or 11
  self.full_output = full_output or false
  self.gradInput1 = torch.Tensor()
  self.gradInput2 = torch.Tensor()
  self.gradInput = {self.gradInput1, self.gradInput2}
end

-- calls f(dy, dx, rows1, cols1, rows2, cols2) for each window offset, with
-- the 1-based {first, count} ranges of the pixels that take part
function SpatialMatching:_offsets(H, W, f)
  for dy = 1, self.maxh do
    for dx = 1, self.maxw do
      if self.full_output then
        local oy, ox = dy - math.ceil(self.maxh / 2), dx - math.ceil(self.maxw / 2)
        local y0, y1 = math.max(1, 1 - oy), math.min(H, H - oy)
        local x0, x1 = math.max(1, 1 - ox), math.min(W, W - ox)
        if y1 >= y0 and x1 >= x0 then
          f(dy, dx, {y0, y1 - y0 + 1}, {x0, x1 - x0 + 1}, {y0 + oy, y1 - y0 + 1}, {x0 + ox, x1 - x0 + 1})
        end
      else
        f(dy, dx, {1, H}, {1, W}, {dy, H}, {dx, W})
      end
    end
  end
end

local function window(t, rows, cols)
  return t:narrow(2, rows[1], rows[2]):narrow(3, cols[1], cols[2])
end

function SpatialMatching:_check(input)
  if type(input) ~= 'table' or not torch.isTensor(input[1]) or not torch.isTensor(input[2])
     or input[1]:dim() ~= 3 or input[2]:dim() ~= 3 or input[1]:size(1) ~= input[2]:size(1) then
    error('nn.SpatialMatching: {K x H x W, K x H2 x W2} input expected', 3)
  end
  local H, W = input[1]:size(2), input[1]:size(3)
  if not self.full_output and (input[2]:size(2) < H + self.maxh - 1 or input[2]:size(3) < W + self.maxw - 1) then
    error(string.format('nn.SpatialMatching: input[2] must be at least %dx%d, got %dx%d', H + self.maxh - 1,
                        W + self.maxw - 1, input[2]:size(2), input[2]:size(3)), 3)
  end
  return H, W
end

function SpatialMatching:updateOutput(input)
  local H, W = self:_check(input)
  self.output:resize(H, W, self.maxh, self.maxw):fill(1e30)
  self:_offsets(H, W, function(dy, dx, r1, c1, r2, c2)
    local d = torch.add(window(input[1], r1, c1), -1, window(input[2], r2, c2))
    local out = self.output:select(4, dx):select(3, dy):narrow(1, r1[1], r1[2]):narrow(2, c1[1], c1[2])
    out:copy(d:pow(2):sum(1)[1])
  end)
  return self.output
end

function SpatialMatching:updateGradInput(input, gradOutput)
  local H, W = self:_check(input)
  self.gradInput1:resizeAs(input[1]):zero()
  self.gradInput2:resizeAs(input[2]):zero()
  self:_offsets(H, W, function(dy, dx, r1, c1, r2, c2)
    local d = torch.add(window(input[1], r1, c1), -1, window(input[2], r2, c2))
    local g = gradOutput:select(4, dx):select(3, dy):narrow(1, r1[1], r1[2]):narrow(2, c1[1], c1[2])
    d:cmul(g:contiguous():view(1, r1[2], c1[2]):expandAs(d)):mul(2)
    window(self.gradInput1, r1, c1):add(d)
    window(self.gradInput2, r2, c2):add(-1, d)
  end)
  self.gradInput = {self.gradInput1, self.gradInput2}
  return self.gradInput
end
