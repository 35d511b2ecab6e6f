-- Where the Torch7 reference fixtures are: $TH_FIXTURES, else ../shared next
-- to the checkout (the layout of this workplace and of CI), else /work/shared.
local function exists(dir)
  local f = io.open(dir .. 'README.md', 'rb')
  if f then f:close() return true end
  return false
end

local candidates = {}
if os.getenv('TH_FIXTURES') then candidates[1] = os.getenv('TH_FIXTURES'):gsub('/?$', '/') end
candidates[#candidates + 1] = '../shared/fixtures/torch7/'
candidates[#candidates + 1] = '/work/shared/fixtures/torch7/'
for _, dir in ipairs(candidates) do
  if exists(dir) then return dir end
end
error('spec/support/fixtures.lua: the Torch7 fixtures were not found (looked in '
  .. table.concat(candidates, ', ') .. '); set TH_FIXTURES')
