#!/bin/sh
# facebook/fb.resnet.torch's training loop, unchanged, on CPU (cutorch, cunn
# and cudnn stand-ins, docs/cuda.md): a ResNet-20 on a synthetic CIFAR-10
# (gen/cifar10.t7 in the loader's own format: 256 train and 128 val images)
# for 2 epochs with 2 data threads and checkpoints, then resumed from its
# latest checkpoint for a third epoch, then tested from it (-testOnly).
. "$(dirname "$0")/lib.sh"
# it requires cunn and cudnn unconditionally: the CPU stand-ins, asked for
export TH_CUDA_STANDIN=1
work=$(mktemp -d)
cp -r "$1"/. "$work/" && cd "$work" || exit 1
mkdir -p gen ckpt
"$TH" -e "
torch.manualSeed(1)
local function split(n)
  local labels = torch.ByteTensor(n):random(1, 10)
  local data = torch.ByteTensor(n, 3, 32, 32):random(0, 255)
  -- a learnable signal: the label brightens one band of rows
  for i = 1, n do data[i]:narrow(2, 3 * labels[i] - 2, 3):fill(250) end
  return {data = data, labels = labels}
end
torch.save('gen/cifar10.t7', {train = split(256), val = split(128)})" || exit 1
run() {
  plain "fb.resnet.torch main.lua $*" "$TH" main.lua -dataset cifar10 -depth 20 -batchSize 32 \
    -nThreads 2 -save ckpt -LR 0.05 "$@"
}
run -nEpochs 2
[ -f ckpt/model_2.t7 ] && [ -f ckpt/latest.t7 ] || { echo "fb.resnet.torch: no checkpoint written"; SUITE_FAILED=$((SUITE_FAILED + 1)); }
run -nEpochs 3 -resume ckpt
[ -f ckpt/model_3.t7 ] || { echo "fb.resnet.torch: the resumed run wrote no checkpoint"; SUITE_FAILED=$((SUITE_FAILED + 1)); }
run -testOnly true -resume ckpt
rm -rf "$work"
exit $SUITE_FAILED
