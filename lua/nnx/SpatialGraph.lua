-- nn.SpatialGraph{dist='euclid' | 'cosine', normalize=true, connex=4}
-- (nnx): an edge-weighted 4-connex graph of a K x H x W input (K features
-- per pixel). Output 2 x H x W: plane 1 holds the edge from each pixel to
-- its right neighbour, plane 2 to the one below (the last column / row is
-- 0).
--   euclid: ||f(p) - f(q)|| (times 1/sqrt(K) with normalize, so features
--           in [0, 1] give distances in [0, 1])
--   cosine: K - <f(p) + e, f(q) + e> (e = 1e-12); normalize is refused
--           with cosine (as nnx: no gradient for it)
-- Also positional: nn.SpatialGraph(dist, normalize, connex).
local SpatialGraph, parent = torch.class('nn.SpatialGraph', 'nn.Module')

function SpatialGraph:__init(...)
  parent.__init(self)
  xlua.unpack_class(self, {...}, 'nn.SpatialGraph', 'an edge-weighted graph of feature maps',
    {arg = 'dist', type = 'string', help = 'euclid | cosine', default = 'euclid'},
    {arg = 'normalize', type = 'boolean', help = 'normalise euclidean distances', default = true},
    {arg = 'connex', type = 'number', help = 'connexity', default = 4})
  if self.connex ~= 4 then error('nn.SpatialGraph: 4 is the only connexity supported, got ' .. tostring(self.connex), 2) end
  if self.dist ~= 'euclid' and self.dist ~= 'cosine' then
    error("nn.SpatialGraph: dist must be 'euclid' or 'cosine', got " .. tostring(self.dist), 2)
  end
  if self.dist == 'cosine' and self.normalize then
    error('nn.SpatialGraph: normalized cosine is not supported (give normalize=false)', 2)
  end
end

-- the two neighbour pairs: (plane, dimension of the shift)
local edges = {{1, 3}, {2, 2}}

local function pair(t, dim)
  local n = t:size(dim) - 1
  return t:narrow(dim, 1, n), t:narrow(dim, 2, n)
end

function SpatialGraph:updateOutput(input)
  if input:dim() ~= 3 then
    error(string.format('nn.SpatialGraph: 3D input (K x H x W) expected, got %dD', input:dim()), 2)
  end
  local K = input:size(1)
  self.output:resize(2, input:size(2), input:size(3)):zero()
  for _, e in ipairs(edges) do
    local plane, dim = e[1], e[2]
    if input:size(dim) > 1 then
      local a, b = pair(input, dim)
      local out = pair(self.output[plane]:view(1, input:size(2), input:size(3)), dim)
      if self.dist == 'euclid' then
        out:sum(torch.add(a, -1, b):pow(2), 1):sqrt()
        if self.normalize then out:mul(1 / math.sqrt(K)) end
      else
        out:sum(torch.add(a, 1e-12):cmul(torch.add(b, 1e-12)), 1):mul(-1):add(K)
      end
    end
  end
  return self.output
end

function SpatialGraph:updateGradInput(input, gradOutput)
  nn.utils.needForward(self, self.output, 'output')
  local K, H, W = input:size(1), input:size(2), input:size(3)
  self.gradInput:resizeAs(input):zero()
  for _, e in ipairs(edges) do
    local plane, dim = e[1], e[2]
    if input:size(dim) > 1 then
      local a, b = pair(input, dim)
      local ga, gb = pair(self.gradInput, dim)
      local go = pair(gradOutput[plane]:view(1, H, W), dim)
      if self.dist == 'euclid' then
        -- d||a-b||/da = (a-b)/||a-b|| (0 where a == b)
        local out = pair(self.output[plane]:view(1, H, W), dim)
        local normer = self.normalize and 1 / K or 1
        local ratio = torch.cmul(go, out:clone():pow(-1)):mul(normer)
        ratio[out:eq(0)] = 0
        local d = torch.add(a, -1, b):cmul(ratio:expandAs(a))
        ga:add(d)
        gb:add(-1, d)
      else
        ga:add(-1, torch.cmul(b, go:expandAs(b)))
        gb:add(-1, torch.cmul(a, go:expandAs(a)))
      end
    end
  end
  return self.gradInput
end
