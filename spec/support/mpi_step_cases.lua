-- The cases of spec/mpi_step_spec.lua and its job (mpi_step_job.lua):
-- method, config, shard mode, bucket size (tiny: several buckets, parameters
-- split across them), optnet's recompute, tensor type, net (default the
-- MLP; 'lstm': time-step clones made in forward, after the step object)
local small = 64 / 2^20 -- 16 floats
return {
  {method = 'sgd', config = {learningRate = 0.1, momentum = 0.9, weightDecay = 1e-3}, shard = 'none',
   bucketMB = small, tname = 'torch.FloatTensor'},
  {method = 'adam', config = {learningRate = 0.01}, shard = 'none', tname = 'torch.FloatTensor'},
  {method = 'adam', config = {learningRate = 0.01, weightDecay = 1e-3}, shard = 'optim', bucketMB = small,
   tname = 'torch.FloatTensor'},
  {method = 'adam', config = {learningRate = 0.01}, shard = 'grad', bucketMB = small, tname = 'torch.FloatTensor'},
  {method = 'sgd', config = {learningRate = 0.1, momentum = 0.9}, shard = 'optim', bucketMB = small,
   recompute = 'sqrt', tname = 'torch.FloatTensor'},
  {method = 'rmsprop', config = {learningRate = 0.01}, shard = 'grad', bucketMB = 2 * small,
   tname = 'torch.DoubleTensor'},
  {method = 'adam', config = {learningRate = 0.01}, shard = 'none', tname = 'torch.DoubleTensor', net = 'lstm'},
  {method = 'sgd', config = {learningRate = 0.1, momentum = 0.9}, shard = 'optim', bucketMB = small,
   tname = 'torch.DoubleTensor', net = 'lstm'},
}
