-- Replaces (or appends) one "## <title>" section of a markdown file.
local M = {}

function M.write(path, title, text)
  local f = io.open(path)
  local old = f and f:read('a') or '# Benchmarks\n\nWritten by `make bench-speed` and `make bench-memory`.\n'
  if f then f:close() end
  local head = '## ' .. title .. '\n'
  local s = old:find(head, 1, true)
  local out
  if s then
    local e = old:find('\n## ', s + #head, true)
    out = old:sub(1, s - 1) .. text .. (e and old:sub(e + 1) or '')
  else
    out = old:gsub('%s*$', '') .. '\n\n' .. text
  end
  f = assert(io.open(path, 'w'))
  f:write(out)
  f:close()
end

return M
