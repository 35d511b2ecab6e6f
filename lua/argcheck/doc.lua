-- argcheck.doc: collects the documentation packages write with doc[[...]]
-- and with argcheck{doc=...}. Nothing is kept until doc.record() is called
-- (require 'argcheck.dump' does it, and prints the whole at exit).

local doc = {}

-- doc.record(): start collecting
function doc.record()
  doc.__record = {}
end

-- doc.stop() -> every string collected since doc.record(), concatenated;
-- collecting stops
function doc.stop()
  local text = table.concat(doc.__record or {})
  doc.__record = nil
  return text
end

-- doc.doc(str) (or doc(str)): collect str when collecting
function doc.doc(str)
  if doc.__record then
    doc.__record[#doc.__record + 1] = str
  end
end

return setmetatable(doc, {__call = function(_, ...) return doc.doc(...) end})
