-- dataset: data sets and minibatches for training scripts, nothing downloaded.
--   local dataset = require 'dataset'
--   local train = dataset.mnist.load('/data/mnist', 'train')   -- MNIST idx files
--   local test  = dataset.cifar.load('/data/cifar', 'test')    -- CIFAR-10 binary
--   dataset.mnist.writeSynthetic(dir, n), dataset.cifar.writeSynthetic(dir, n)
--                                   -- small files in the same formats
--   local loader = dataset.Loader(train, {batchSize = 64, shuffle = true})
--   for inputs, targets in loader:run() do ... end
-- A set is {data = N x C x H x W tensor, labels = LongTensor of N (classes
-- 1..K)} answering set:size() and set[i] = {data[i], labels[i]} (what
-- nn.StochasticGradient reads). The package sets no global: use the value
-- require returns (a script's own 'dataset' variable is left alone).
-- docs/scripts.md, "Training scripts", walks through a script that uses it.
require 'torch'

local dataset = {}

dataset.file = require 'dataset.file'
-- dataset.set(data, labels): a set table (above) of the two tensors, checked
dataset.set = dataset.file.set
dataset.mnist = require 'dataset.mnist'
dataset.cifar = require 'dataset.cifar'
dataset.Loader = require 'dataset.Loader'

return dataset
