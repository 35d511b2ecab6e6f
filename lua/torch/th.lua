-- The th program (bin/th runs it with lua5.4): torch.repl.main with the
-- command line, its answer the exit status.
local status = require('torch.repl').main(arg)
io.stdout:flush()
os.exit(status, true)
