#!/usr/bin/python3
"""PyTorch side of `make bench-step` (bench/step.lua drives it).

    /usr/bin/python3 bench/torch_step_peer.py <model> <batch> [steps]

One whole training step with Adam, as the zoo's net (models/*.lua) in plain
torch.nn, float32, torch.set_num_threads(2): forward, NLL loss (googlenet:
main + 0.3 x each auxiliary classifier), backward, optimizer.step(),
zero_grad(set_to_none=False) (gradients kept allocated, as Torch7's nets
keep them). Prints one line:
    baseline_mb=<VmRSS before the net is built: interpreter, torch, input>
    peak_mb=<VmHWM after the steps> step_ms=<median wall time of a step>
    params_mb=<parameter bytes> saved_mb=<bytes of the tensors autograd
    saves for backward in one forward, each storage once, parameters out>
so peak - baseline is what the step holds at its peak: parameters,
gradients, Adam's two moments, activations and the allocator's slack.
Run it with Debian's /usr/bin/python3, where python3-torch lives.
"""
import os
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_peer  # noqa: E402  (vgg_a, the cifar residual Block, stages, vm)

conv = torch_peer.conv


class Bottleneck(nn.Module):
    """1x1 - 3x3 - 1x1 (x4) bottleneck, shortcut 'B' (1x1 projection + BN
    where the shape changes), as models/resnet.lua's imagenet nets."""

    def __init__(self, c_in, n, stride):
        super().__init__()
        self.body = nn.Sequential(
            conv(c_in, n, 1, 1, 0, bias=False), nn.BatchNorm2d(n), nn.ReLU(inplace=True),
            conv(n, n, 3, stride, 1, bias=False), nn.BatchNorm2d(n), nn.ReLU(inplace=True),
            conv(n, n * 4, 1, 1, 0, bias=False), nn.BatchNorm2d(n * 4))
        self.proj = None
        if c_in != n * 4:
            self.proj = nn.Sequential(conv(c_in, n * 4, 1, stride, 0, bias=False), nn.BatchNorm2d(n * 4))

    def forward(self, x):
        short = self.proj(x) if self.proj is not None else x
        return F.relu(self.body(x) + short, inplace=True)


def resnet50():
    blocks, c_in = [], 64
    for i, (n, count) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3))):
        for j in range(count):
            blocks.append(Bottleneck(c_in, n, (1 if i == 0 else 2) if j == 0 else 1))
            c_in = n * 4
    net = nn.Sequential(
        conv(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, 1), *blocks,
        nn.AvgPool2d(7, 1), nn.Flatten(), nn.Linear(2048, 1000), nn.LogSoftmax(dim=1))
    return net, (3, 224, 224), 1000


def resnet110():
    net = nn.Sequential(
        conv(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
        *torch_peer.stages((16, 32, 64), (18, 18, 18), 1, 'A', 16),
        nn.AvgPool2d(8, 1), nn.Flatten(), nn.Linear(64, 10), nn.LogSoftmax(dim=1))
    return net, (3, 32, 32), 10


def conv_relu(c_in, c_out, k, s=1, p=0):
    return nn.Sequential(conv(c_in, c_out, k, s, p), nn.ReLU(inplace=True))


class Inception(nn.Module):
    def __init__(self, c_in, cfg):
        super().__init__()
        self.b1 = conv_relu(c_in, cfg[0], 1)
        self.b2 = nn.Sequential(conv_relu(c_in, cfg[1], 1), conv_relu(cfg[1], cfg[2], 3, 1, 1))
        self.b3 = nn.Sequential(conv_relu(c_in, cfg[3], 1), conv_relu(cfg[3], cfg[4], 5, 1, 2))
        self.b4 = nn.Sequential(nn.ZeroPad2d(1), nn.MaxPool2d(3, 1, ceil_mode=True), conv_relu(c_in, cfg[5], 1))
        self.out = cfg[0] + cfg[2] + cfg[4] + cfg[5]

    def forward(self, x):
        return torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], 1)


def aux(c_in, classes):
    return nn.Sequential(
        nn.AvgPool2d(5, 3, ceil_mode=True), conv_relu(c_in, 128, 1), nn.Flatten(),
        nn.Linear(128 * 4 * 4, 1024), nn.ReLU(inplace=True), nn.Dropout(0.7),
        nn.Linear(1024, classes), nn.LogSoftmax(dim=1))


def stage(c_in, cfgs):
    mods = []
    for c in cfgs:
        m = Inception(c_in, c)
        mods.append(m)
        c_in = m.out
    return nn.Sequential(*mods), c_in


class GoogLeNet(nn.Module):
    """models/googlenet.lua with its two auxiliary classifiers: three outputs."""

    def __init__(self, classes=1000):
        super().__init__()
        s3, n = stage(192, [(64, 96, 128, 16, 32, 32), (128, 128, 192, 32, 96, 64)])
        s4a, n = stage(n, [(192, 96, 208, 16, 48, 64)])
        self.stem = nn.Sequential(
            conv_relu(3, 64, 7, 2, 3), nn.MaxPool2d(3, 2, ceil_mode=True),
            nn.LocalResponseNorm(5, 0.0001, 0.75), conv_relu(64, 64, 1), conv_relu(64, 192, 3, 1, 1),
            nn.LocalResponseNorm(5, 0.0001, 0.75), nn.MaxPool2d(3, 2, ceil_mode=True),
            s3, nn.MaxPool2d(3, 2, ceil_mode=True), s4a)
        self.aux1 = aux(n, classes)
        self.mid, n4d = stage(n, [(160, 112, 224, 24, 64, 64), (128, 128, 256, 24, 64, 64),
                                  (112, 144, 288, 32, 64, 64)])
        self.aux2 = aux(n4d, classes)
        s4e, n5 = stage(n4d, [(256, 160, 320, 32, 128, 128)])
        s5, n5 = stage(n5, [(256, 160, 320, 32, 128, 128), (384, 192, 384, 48, 128, 128)])
        self.tail = nn.Sequential(s4e, nn.MaxPool2d(3, 2, ceil_mode=True), s5, nn.AvgPool2d(7, 1),
                                  nn.Flatten(), nn.Dropout(0.4), nn.Linear(n5, classes), nn.LogSoftmax(dim=1))

    def forward(self, x):
        a = self.stem(x)
        b = self.mid(a)
        return self.aux1(a), self.aux2(b), self.tail(b)


def googlenet():
    return GoogLeNet(), (3, 224, 224), 1000


MODELS = {'resnet-50': resnet50, 'vgg-A': torch_peer.vgg_a, 'googlenet': googlenet, 'resnet-110': resnet110}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in MODELS:
        sys.exit('usage: torch_step_peer.py <%s> <batch> [steps]' % '|'.join(MODELS))
    name, batch = sys.argv[1], int(sys.argv[2])
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    torch.set_num_threads(2)
    torch.manual_seed(0)
    build = MODELS[name]
    shape = {'resnet-110': (3, 32, 32)}.get(name, (3, 224, 224))
    x = torch.randn(batch, *shape)
    baseline = torch_peer.vm('VmRSS')
    net, shape, classes = build()
    y = torch.randint(0, classes, (batch,))
    net.train()
    nll = nn.NLLLoss()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)

    def step():
        out = net(x)
        if isinstance(out, tuple):
            loss = nll(out[2], y) + 0.3 * nll(out[0], y) + 0.3 * nll(out[1], y)
        else:
            loss = nll(out, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)

    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    peak = torch_peer.vm('VmHWM')
    # what the peak is made of: parameters (and as many gradient bytes, and
    # twice that in Adam's moments), and the tensors autograd saves for
    # backward in one forward (each storage once, parameters left out),
    # counted after the peak was read
    params = sum(p.numel() * p.element_size() for p in net.parameters())
    own = {p.data_ptr() for p in net.parameters()}
    saved = {}

    def pack(t):
        st = t.storage()
        if st.data_ptr() not in own:
            saved[st.data_ptr()] = max(saved.get(st.data_ptr(), 0), st.nbytes())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = net(x)
    del out
    print('baseline_mb=%.1f peak_mb=%.1f step_ms=%.1f params_mb=%.1f saved_mb=%.1f torch=%s' % (
        baseline, peak, statistics.median(times) * 1e3, params / 2 ** 20, sum(saved.values()) / 2 ** 20,
        torch.__version__), flush=True)


if __name__ == '__main__':
    main()
