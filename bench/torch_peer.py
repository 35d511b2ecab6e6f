#!/usr/bin/python3
"""PyTorch side of `make bench-speed` (bench/speed.lua drives it).

    /usr/bin/python3 bench/torch_peer.py <model> <batch> <infer|train> [warmup]

Builds the network the zoo builds (models/*.lua) in plain torch.nn, float32,
torch.set_num_threads(2), then speaks the same line protocol as
bench/one.lua --serve, so the driver can alternate single steps of the two
processes:
    -> ready peak_mb=<VmHWM after the first step> baseline_mb=<RSS, net built>
             start_mb=<RSS before the net is built> blas=...
    <- step          -> ms=<wall milliseconds of one step>
    <- quit          -> done cpu_s=<process CPU seconds since ready> peak_mb=...
A training step is forward, NLLLoss, backward, with the gradients zeroed
(kept allocated, as Torch7's zeroGradParameters) outside the timed part;
an inference step is forward in eval mode under no_grad.
Run it with Debian's /usr/bin/python3, where python3-torch lives.
"""
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def conv(c_in, c_out, k, stride=1, pad=0, bias=True):
    return nn.Conv2d(c_in, c_out, k, stride=stride, padding=pad, bias=bias)


def mlp():
    layers, n = [], 784
    for h in (1024, 1024, 1024):
        layers += [nn.Linear(n, h), nn.ReLU(inplace=True)]
        n = h
    return nn.Sequential(*layers, nn.Linear(n, 10), nn.LogSoftmax(dim=1)), (784,), 10


def alexnet():
    # the zoo's default 'owt' single tower
    features = nn.Sequential(
        conv(3, 64, 11, 4, 2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2),
        conv(64, 192, 5, 1, 2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2),
        conv(192, 384, 3, 1, 1), nn.ReLU(inplace=True),
        conv(384, 256, 3, 1, 1), nn.ReLU(inplace=True),
        conv(256, 256, 3, 1, 1), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2))
    classifier = nn.Sequential(
        nn.Flatten(), nn.Dropout(0.5), nn.Linear(9216, 4096), nn.ReLU(inplace=True),
        nn.Dropout(0.5), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
        nn.Linear(4096, 1000), nn.LogSoftmax(dim=1))
    return nn.Sequential(features, classifier), (3, 224, 224), 1000


def vgg_a():
    layers, n = [], 3
    for v in (64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M'):
        if v == 'M':
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [conv(n, v, 3, 1, 1), nn.ReLU(inplace=True)]
            n = v
    classifier = nn.Sequential(
        nn.Flatten(), nn.Linear(512 * 7 * 7, 4096), nn.ReLU(inplace=True), nn.Dropout(0.5),
        nn.Linear(4096, 4096), nn.ReLU(inplace=True), nn.Dropout(0.5),
        nn.Linear(4096, 1000), nn.LogSoftmax(dim=1))
    return nn.Sequential(nn.Sequential(*layers), classifier), (3, 224, 224), 1000


class Block(nn.Module):
    """Basic residual block; shortcut 'A' subsamples and appends zero
    channels (the zoo's AveragePooling(1x1, stride) + Concat with
    MulConstant(0)), 'B' projects with a 1x1 convolution + BN where the
    shape changes."""

    def __init__(self, c_in, c_out, stride, kind):
        super().__init__()
        self.body = nn.Sequential(
            conv(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out),
            nn.ReLU(inplace=True),
            conv(c_out, c_out, 3, 1, 1, bias=False), nn.BatchNorm2d(c_out))
        self.kind, self.stride, self.extra = kind, stride, c_out - c_in
        self.proj = None
        if kind == 'B' and c_in != c_out:
            self.proj = nn.Sequential(conv(c_in, c_out, 1, stride, 0, bias=False),
                                      nn.BatchNorm2d(c_out))

    def forward(self, x):
        if self.proj is not None:
            short = self.proj(x)
        elif self.extra > 0:
            s = x[:, :, ::self.stride, ::self.stride]
            short = torch.cat([s, torch.zeros_like(s)[:, :self.extra]], 1)
        else:
            short = x
        return F.relu(self.body(x) + short, inplace=True)


def stages(widths, counts, first_stride, kind, c_in):
    blocks = []
    for i, (w, n) in enumerate(zip(widths, counts)):
        for j in range(n):
            blocks.append(Block(c_in, w, (first_stride if i == 0 else 2) if j == 0 else 1, kind))
            c_in = w
    return blocks


def resnet18():
    net = nn.Sequential(
        conv(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, 1),
        *stages((64, 128, 256, 512), (2, 2, 2, 2), 1, 'B', 64),
        nn.AvgPool2d(7, 1), nn.Flatten(), nn.Linear(512, 1000), nn.LogSoftmax(dim=1))
    return net, (3, 224, 224), 1000


def resnet56():
    net = nn.Sequential(
        conv(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
        *stages((16, 32, 64), (9, 9, 9), 1, 'A', 16),
        nn.AvgPool2d(8, 1), nn.Flatten(), nn.Linear(64, 10), nn.LogSoftmax(dim=1))
    return net, (3, 32, 32), 10


def resnet110():
    net = nn.Sequential(
        conv(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
        *stages((16, 32, 64), (18, 18, 18), 1, 'A', 16),
        nn.AvgPool2d(8, 1), nn.Flatten(), nn.Linear(64, 10), nn.LogSoftmax(dim=1))
    return net, (3, 32, 32), 10


class Bottleneck(nn.Module):
    """The zoo's bottleneck: 1x1, 3x3 (stride here), 1x1 x4, each with BN;
    shortcut B (a 1x1 projection + BN where the shape changes)."""

    def __init__(self, c_in, n, stride):
        super().__init__()
        self.body = nn.Sequential(
            conv(c_in, n, 1, bias=False), nn.BatchNorm2d(n), nn.ReLU(inplace=True),
            conv(n, n, 3, stride, 1, bias=False), nn.BatchNorm2d(n), nn.ReLU(inplace=True),
            conv(n, 4 * n, 1, bias=False), nn.BatchNorm2d(4 * n))
        self.proj = None
        if c_in != 4 * n:
            self.proj = nn.Sequential(conv(c_in, 4 * n, 1, stride, 0, bias=False),
                                      nn.BatchNorm2d(4 * n))

    def forward(self, x):
        short = self.proj(x) if self.proj is not None else x
        return F.relu(self.body(x) + short, inplace=True)


def resnet50():
    blocks, c_in = [], 64
    for i, (n, count) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3))):
        for j in range(count):
            blocks.append(Bottleneck(c_in, n, (2 if i > 0 else 1) if j == 0 else 1))
            c_in = 4 * n
    net = nn.Sequential(
        conv(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
        nn.MaxPool2d(3, 2, 1), *blocks,
        nn.AvgPool2d(7, 1), nn.Flatten(), nn.Linear(2048, 1000), nn.LogSoftmax(dim=1))
    return net, (3, 224, 224), 1000


class Inception(nn.Module):
    """Four branches concatenated: 1x1; 1x1-3x3; 1x1-5x5; zero padding 1,
    3x3 ceil-mode max pooling, 1x1 (the zoo's SpatialZeroPadding before
    the pool); ReLU after every convolution."""

    def __init__(self, c_in, cfg):
        super().__init__()
        def cr(a, b, k, p=0):
            return [conv(a, b, k, 1, p), nn.ReLU(inplace=True)]
        self.b1 = nn.Sequential(*cr(c_in, cfg[0], 1))
        self.b2 = nn.Sequential(*cr(c_in, cfg[1], 1), *cr(cfg[1], cfg[2], 3, 1))
        self.b3 = nn.Sequential(*cr(c_in, cfg[3], 1), *cr(cfg[3], cfg[4], 5, 2))
        self.b4 = nn.Sequential(nn.ZeroPad2d(1), nn.MaxPool2d(3, 1, ceil_mode=True),
                                *cr(c_in, cfg[5], 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], 1)


def googlenet():
    # the zoo's models/googlenet.lua with aux=false (the main classifier only)
    cfgs = [(64, 96, 128, 16, 32, 32), (128, 128, 192, 32, 96, 64), 'M',
            (192, 96, 208, 16, 48, 64), (160, 112, 224, 24, 64, 64), (128, 128, 256, 24, 64, 64),
            (112, 144, 288, 32, 64, 64), (256, 160, 320, 32, 128, 128), 'M',
            (256, 160, 320, 32, 128, 128), (384, 192, 384, 48, 128, 128)]
    layers = [conv(3, 64, 7, 2, 3), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, ceil_mode=True),
              nn.LocalResponseNorm(5, 0.0001, 0.75),
              conv(64, 64, 1), nn.ReLU(inplace=True), conv(64, 192, 3, 1, 1), nn.ReLU(inplace=True),
              nn.LocalResponseNorm(5, 0.0001, 0.75), nn.MaxPool2d(3, 2, ceil_mode=True)]
    n = 192
    for c in cfgs:
        if c == 'M':
            layers.append(nn.MaxPool2d(3, 2, ceil_mode=True))
        else:
            layers.append(Inception(n, c))
            n = c[0] + c[2] + c[4] + c[5]
    layers += [nn.AvgPool2d(7, 1), nn.Flatten(), nn.Dropout(0.4), nn.Linear(n, 1000),
               nn.LogSoftmax(dim=1)]
    return nn.Sequential(*layers), (3, 224, 224), 1000


class DenseLayer(nn.Module):
    """DenseNet-BC layer: x, then BN-ReLU-1x1 (4k)-BN-ReLU-3x3 (k), concatenated."""

    def __init__(self, c, k):
        super().__init__()
        self.branch = nn.Sequential(
            nn.BatchNorm2d(c), nn.ReLU(inplace=True), conv(c, 4 * k, 1, bias=False),
            nn.BatchNorm2d(4 * k), nn.ReLU(inplace=True), conv(4 * k, k, 3, 1, 1, bias=False))

    def forward(self, x):
        return torch.cat([x, self.branch(x)], 1)


def densenet():
    # the zoo's models/densenet.lua, cifar10, depth 100, growth 12, bottleneck, reduction 0.5
    k, N = 12, 16
    c = 2 * k
    layers = [conv(3, c, 3, 1, 1, bias=False)]
    for b in range(3):
        for _ in range(N):
            layers.append(DenseLayer(c, k))
            c += k
        if b < 2:
            out = c // 2
            layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True), conv(c, out, 1, bias=False),
                       nn.AvgPool2d(2, 2)]
            c = out
    layers += [nn.BatchNorm2d(c), nn.ReLU(inplace=True), nn.AvgPool2d(8, 1), nn.Flatten(),
               nn.Linear(c, 10), nn.LogSoftmax(dim=1)]
    return nn.Sequential(*layers), (3, 32, 32), 10


MODELS = {'mlp': mlp, 'alexnet': alexnet, 'vgg-A': vgg_a, 'resnet-18': resnet18,
          'resnet-56': resnet56, 'resnet-110': resnet110, 'resnet-50': resnet50,
          'googlenet': googlenet, 'densenet': densenet}


def vm(field):
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1]) / 1024.0
    return float('nan')


def blas():
    import ctypes
    try:
        lib = ctypes.CDLL('libopenblas.so.0')
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return '%s/%d' % (lib.openblas_get_corename().decode(), lib.openblas_get_num_threads())
    except OSError:
        return 'none'


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in MODELS or sys.argv[3] not in ('infer', 'train'):
        sys.exit('usage: torch_peer.py <%s> <batch> <infer|train> [warmup]' % '|'.join(MODELS))
    name, batch, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    torch.set_num_threads(2)
    torch.manual_seed(0)
    start = vm('VmRSS')  # the runtime alone, before the net is built
    net, shape, classes = MODELS[name]()
    x = torch.randn(batch, *shape)
    y = torch.randint(0, classes, (batch,))
    baseline = vm('VmRSS')
    if mode == 'infer':
        net.eval()

        def step():
            with torch.no_grad():
                net(x)
    else:
        net.train()
        loss = nn.NLLLoss()

        def step():
            net.zero_grad(set_to_none=False)
            t0 = time.perf_counter()
            loss(net(x), y).backward()
            return time.perf_counter() - t0

    def timed():
        t0 = time.perf_counter()
        r = step()
        return r if r is not None else time.perf_counter() - t0

    timed()
    first_peak = vm('VmHWM')
    for _ in range(warmup - 1):
        timed()
    print('ready peak_mb=%.1f baseline_mb=%.1f start_mb=%.1f blas=%s threads=%d torch=%s' % (
        first_peak, baseline, start, blas(), torch.get_num_threads(), torch.__version__), flush=True)
    cpu0 = time.process_time()
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == 'step':
            print('ms=%.3f' % (timed() * 1e3), flush=True)
        elif cmd == 'quit':
            break
    print('done cpu_s=%.3f peak_mb=%.1f' % (time.process_time() - cpu0, vm('VmHWM')), flush=True)


if __name__ == '__main__':
    main()
