-- threads.serialize: the default serialization between threads: tensors
-- and storages are copied (torch's format); shareable userdata (tds,
-- threads' own objects) are still shared, they cannot be copied.
-- save(value) -> CharStorage and load(storage) -> value, as upstream;
-- encode/decode are what the queues of threads.Threads use.
return require('threads.codec').serializer('threads.serialize', false)
