-- Helpers shared by the specs (busted does not load this file as a spec).
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

return M
