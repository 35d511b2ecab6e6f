-- Torch7's package helpers: torch.packageLuaPath, torch.include and the
-- global include. A Torch7 package's init.lua runs its other files with
-- them: torch.include('totem', 'asserts.lua') runs the asserts.lua that
-- sits next to the totem/init.lua found on package.path, as luarocks
-- installs a package (foo/init.lua, foo/X.lua).

local torch = torch

local function dirname(path)
  return path:match('(.*)[/\\]')
end

-- torch.packageLuaPath([name]) -> the folder of the first file package.path
-- finds for 'name' (Torch7's search: each template with ? replaced,
-- no dots turned into slashes), or nil; without a name, the folder holding
-- torch's own folder
function torch.packageLuaPath(name)
  if name == nil then
    local here = torch.packageLuaPath('torch')
    return here and dirname(here)
  end
  if type(name) ~= 'string' then
    error(string.format('torch.packageLuaPath: package name (string) expected, got %s', torch.type(name)), 2)
  end
  for template in package.path:gmatch('[^;]+') do
    local path = template:gsub('%?', (name:gsub('%%', '%%%%')))
    local f = io.open(path)
    if f then
      f:close()
      return dirname(path)
    end
  end
  return nil
end

-- torch.include(package, file): runs 'file' from the package's folder;
-- returns what the file returns
function torch.include(package, file)
  if type(package) ~= 'string' then
    error(string.format('torch.include: package name (string) expected as argument 1, got %s', torch.type(package)), 2)
  end
  if type(file) ~= 'string' then
    error(string.format('torch.include: file name (string) expected as argument 2, got %s', torch.type(file)), 2)
  end
  local dir = torch.packageLuaPath(package)
  if not dir then
    error(string.format("torch.include: package '%s' not found on package.path (%s)", package, package.path), 2)
  end
  return dofile(dir .. '/' .. file)
end

-- include(file [, depth]): runs 'file' from the folder of the file that
-- calls include (depth: how many more calls up that file is)
local function include(file, depth)
  if type(file) ~= 'string' then
    error(string.format('include: file name (string) expected, got %s', torch.type(file)), 2)
  end
  if depth ~= nil and math.type(depth) ~= 'integer' then
    error(string.format('include: depth (integer) expected as argument 2, got %s', torch.type(depth)), 2)
  end
  local info = debug.getinfo(2 + (depth or 0), 'S')
  local src = info and info.source
  local dir = type(src) == 'string' and src:sub(1, 1) == '@' and dirname(src:sub(2))
  if dir and not file:match('^/') then file = dir .. '/' .. file end
  return dofile(file)
end
rawset(_G, 'include', include)

return torch
