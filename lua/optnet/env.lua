-- optnet.env: the optnet table itself, as OptNet's package layout has it
-- (its modules and tests start with `local optnet = require 'optnet.env'`).
-- Requiring it loads optnet, so whichever of the two comes first, both
-- names give the same table: what a script assigns on one (optnet.test
-- from OptNet's tests.lua) is seen through the other.
return require 'optnet'
