-- The zoo nets the memory benchmarks measure, by name: {builder, options}.
return {
  alexnet = {'alexnet', {}},
  ['vgg-A'] = {'vgg', {modelType = 'A'}},
  googlenet = {'googlenet', {}},
  ['resnet-110'] = {'resnet', {dataset = 'cifar10', depth = 110}},
  densenet = {'densenet', {dataset = 'cifar10', depth = 100, growthRate = 12}},
  ['resnet-50'] = {'resnet', {dataset = 'imagenet', depth = 50}},
}
