-- threads.sharedserialize: the serialization that shares tensors, storages and
-- shareable userdata (docs/threads.md) between threads: the receiver sees
-- the same memory, each storage held by one reference per state.
-- save(value) -> CharStorage and load(storage) -> value, as upstream;
-- encode/decode are what the queues of threads.Threads use.
return require('threads.codec').serializer('threads.sharedserialize', true)
