#!/usr/bin/python3
"""One PyTorch model through Kiln, compared with PyTorch.

usage: run_model.py MODEL --compile=KILN_COMPILE --run=KILN_RUN --work=DIR
           [--opset=17] [--import=KILN_ONNX_IMPORT] [--device=local-task]
           [--tol=1e-3] [--expected=EXPECTED_PASSES] [--compile-flag=FLAG]...
           [--emulator=COMMAND]
MODEL is mlp, cnn, resnet18, mobilenet_v2 or encoder (a two-layer
nn.TransformerEncoder, d_model 64, 4 heads, feed-forward 128, sequence 16,
batch 2), one of the odd-shape transformer encoders of ENCODERS, vit_tiny or swin_tiny
(small torchvision VisionTransformer and SwinTransformer), gpt_tiny (a
small GPT-2-style decoder of bench/models, token ids in), or
tiny_mlp (a two-layer MLP small enough for any code generator, which
keeps the whole export-compile-run-compare path exercised), or one of the
cnn_* graphs (_cnn_cases): small convolutional graphs with odd shapes
(channel counts that are not multiples of any vector width, strides,
dilations, asymmetric kernels and padding, groups, depthwise with and
without a channel multiplier, pools, concatenation, residual adds,
squeeze-excitation, batch > 1) for the channels-last convolution path, or
one of the rnn_* nets (_rnn_cases): an LSTM and a GRU of odd sizes.

Builds MODEL with random weights from a fixed seed (nothing is downloaded:
torchvision's models are built with weights=None; BatchNorm running
statistics and LayerNorm affine parameters are randomized too, so they
compute something), exports it with torch.onnx.export at OPSET (torch
1.13 writes opsets 7..17; the ONNX importer converts the older operator
versions), compiles the .onnx with kiln-compile (or through
kiln-onnx-import when kiln-compile does not take ONNX), runs it on DEVICE
with kiln-run and compares the output with PyTorch's in eval mode.
Prints compile time, run time and the max abs error. The model's key in
EXPECTED_PASSES is MODEL at opset 17 and MODEL@opsetN otherwise. Exit
status: 0 when the max abs error is at most TOL; 1 on any other result
(compile error, run error, mismatch) for a key listed in EXPECTED_PASSES
(one a line, '#' comments; the list may only grow); 77 (skip, with the
reason printed) when torch or torchvision is not installed, when the
importer refuses the model (the op is printed), or when a model not yet
listed fails (the failure is printed). Without --expected every model
counts as listed. --compile-flag adds a kiln-compile option (a
--target=llvm-cpu:aarch64, say); --emulator is a command line put before
kiln-run (qemu-aarch64-static for a cross-built one).
"""
import argparse
import os
import subprocess
import sys
import time

import re
import shlex

import numpy as np

SEED = 0
# The ONNX layer's messages: "onnx: KIND: where: what" (never a path such
# as "model.onnx: ...").
ONNX_MSG_RE = re.compile(r"(^|[\s(])onnx: [a-z-]+: ", re.M)


# PyTorch TransformerEncoder(Layer)s, batch_first, eval mode:
# name: (batch, sequence, d_model, heads, dim_feedforward, activation,
# layers). Odd shapes on purpose: sequences of 1, 7 and 129 (edge tiles,
# a single row), 1 to 8 heads, head and hidden sizes that are not
# multiples of any vector width, erf and tanh GELU.
ENCODERS = {
    "encoder_s1_h8": (1, 1, 64, 8, 96, "relu", 1),
    "encoder_s7_h3_gelu": (1, 7, 36, 3, 50, "gelu", 1),
    "encoder_s129_h5_gelu_tanh": (1, 129, 40, 5, 72, "gelu_tanh", 1),
    "encoder_s33_h1": (1, 33, 20, 1, 31, "relu", 1),
    "encoder_b2_s17_h6_gelu_4layers": (2, 17, 48, 6, 100, "gelu", 4),
    "encoder_s128_d256_h4": (1, 128, 256, 4, 1024, "relu", 1),
    # 256 rows: the matmuls' 128-row tiles with a partial column tile
    # (QKV 240, FFN 208 columns) and GELU fused into the register tiles.
    "encoder_s256_h5_gelu": (1, 256, 80, 5, 208, "gelu", 1),
}


def _se_fold(nn, se):
    return nn.Sequential(nn.Conv2d(12, 36, 3, 1, 1), nn.ReLU(), se(36, 8),
                         nn.Conv2d(36, 20, 1), nn.ReLU(), se(20, 4),
                         nn.Conv2d(20, 20, 3, 1, 0, dilation=2, groups=20), nn.ReLU(), se(20, 4),
                         nn.Conv2d(20, 24, 3, 2, 0), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(24, 5))


def _cnn_cases(torch):
    """name -> (module, input shape): graphs exercising the conv paths."""
    nn = torch.nn

    class Residual(nn.Module):
        def __init__(self, body, act=None):
            super().__init__()
            self.body, self.act = body, act

        def forward(self, x):
            y = x + self.body(x)
            return self.act(y) if self.act else y

    class Shortcut(nn.Module):
        def __init__(self, body, short, act):
            super().__init__()
            self.body, self.short, self.act = body, short, act

        def forward(self, x):
            return self.act(self.body(x) + self.short(x))

    class Concat(nn.Module):
        def __init__(self, *branches):
            super().__init__()
            self.branches = nn.ModuleList(branches)

        def forward(self, x):
            return torch.cat([b(x) for b in self.branches], 1)

    class SqueezeExcite(nn.Module):
        def __init__(self, c, r):
            super().__init__()
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc1, self.fc2 = nn.Conv2d(c, r, 1), nn.Conv2d(r, c, 1)

        def forward(self, x):
            s = torch.relu(self.fc1(self.pool(x)))
            return x * nn.functional.hardsigmoid(self.fc2(s))

    class MBConv(nn.Module):
        """An inverted residual (MobileNetV2 / EfficientNet): a 1x1
        expanding to `exp` channels, a k x k depthwise at `stride`, an
        optional squeeze-excitation on the expanded channels, a 1x1
        projection; the input added back when the shapes agree."""
        def __init__(self, cin, exp, cout, k, stride, act, se=None):
            super().__init__()
            self.expand = nn.Sequential(nn.Conv2d(cin, exp, 1, bias=False), nn.BatchNorm2d(exp), act())
            self.dw = nn.Sequential(nn.Conv2d(exp, exp, k, stride, k // 2, groups=exp, bias=False),
                                    nn.BatchNorm2d(exp), act())
            self.se = se(exp, 8) if se else nn.Identity()
            self.project = nn.Sequential(nn.Conv2d(exp, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            y = self.project(self.se(self.dw(self.expand(x))))
            return x + y if self.residual else y

    class ShuffleUnit(nn.Module):
        """ShuffleNetV2's unit: stride 1 splits the channels in halves and
        transforms the second, stride 2 transforms the input twice; the
        halves are concatenated and shuffled in `groups` groups (NCHW
        view, transpose, view back, as torchvision writes it)."""
        def __init__(self, cin, cout, stride, groups, dilation=1):
            super().__init__()
            b = cout // 2
            self.stride, self.groups = stride, groups
            inner = cin if stride > 1 else b
            self.branch2 = nn.Sequential(
                nn.Conv2d(inner, b, 1, bias=False), nn.BatchNorm2d(b), nn.ReLU(),
                nn.Conv2d(b, b, 3, stride, dilation, dilation=dilation, groups=b, bias=False),
                nn.BatchNorm2d(b), nn.Conv2d(b, b, 1, bias=False), nn.BatchNorm2d(b), nn.ReLU())
            self.branch1 = nn.Sequential(
                nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin),
                nn.Conv2d(cin, b, 1, bias=False), nn.BatchNorm2d(b), nn.ReLU()) if stride > 1 else None

        def forward(self, x):
            if self.stride == 1:
                x1, x2 = x.chunk(2, dim=1)
                y = torch.cat((x1, self.branch2(x2)), 1)
            else:
                y = torch.cat((self.branch1(x), self.branch2(x)), 1)
            n, c, h, w = y.size()
            y = y.view(n, self.groups, c // self.groups, h, w).transpose(1, 2).contiguous()
            return y.view(n, -1, h, w)

    class DenseLayer(nn.Module):
        """DenseNet's layer: BatchNorm, ReLU and a 1x1 to 4 x growth, the
        same and a 3x3 to growth, its output concatenated to its input."""
        def __init__(self, c, growth):
            super().__init__()
            self.body = nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, 4 * growth, 1, bias=False),
                                      nn.BatchNorm2d(4 * growth), nn.ReLU(),
                                      nn.Conv2d(4 * growth, growth, 3, 1, 1, bias=False))

        def forward(self, x):
            return torch.cat([x, self.body(x)], 1)

    def dense_net(c, growth, blocks):
        layers = [nn.Conv2d(3, c, 3, 1, 1, bias=False)]
        for i, n in enumerate(blocks):
            for _ in range(n):
                layers.append(DenseLayer(c, growth))
                c += growth
            if i + 1 < len(blocks):  # transition: halve channels and sides
                layers += [nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1, bias=False),
                           nn.AvgPool2d(2, 2)]
                c //= 2
        return nn.Sequential(*layers, nn.BatchNorm2d(c), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                             nn.Flatten(), nn.Linear(c, 5))

    def fc_head():
        return nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Dropout(), nn.Linear(480, 160), nn.ReLU(), nn.Dropout(),
                             nn.Linear(160, 112), nn.ReLU(), nn.Linear(112, 10))

    class MatMulParam(nn.Module):
        """x @ W with W a [K, N] parameter: ONNX MatMul, B stored [K, N]
        (a Gemm's transB = 0 form; nn.Linear exports transB = 1)."""
        def __init__(self, k, n):
            super().__init__()
            self.w = nn.Parameter(torch.randn(k, n) / k ** 0.5)

        def forward(self, x):
            return x @ self.w

    def fc_stream():
        return nn.Sequential(nn.Linear(2100, 2053), nn.ReLU(), MatMulParam(2053, 2051), nn.ReLU(),
                             nn.Linear(2051, 10))

    class Fire(nn.Module):
        """SqueezeNet's fire module: a 1x1 squeeze read by a 1x1 and by
        the pad of a 3x3 expand, the two concatenated."""
        def __init__(self, cin, s, a, b):
            super().__init__()
            self.squeeze = nn.Sequential(nn.Conv2d(cin, s, 1), nn.ReLU())
            self.e1 = nn.Sequential(nn.Conv2d(s, a, 1), nn.ReLU())
            self.e3 = nn.Sequential(nn.Conv2d(s, b, 3, 1, 1), nn.ReLU())

        def forward(self, x):
            x = self.squeeze(x)
            return torch.cat((self.e1(x), self.e3(x)), 1)

    class PadReaders(nn.Module):
        """One value padded (asymmetrically) for a 3x3, also read by a max
        pool and a strided 1x1, each branch globally pooled."""
        def __init__(self, c):
            super().__init__()
            self.branches = nn.ModuleList([
                nn.Sequential(nn.ZeroPad2d((1, 2, 0, 1)), nn.Conv2d(c, 11, 3), nn.ReLU()),
                nn.MaxPool2d(2, 2), nn.Conv2d(c, 9, 1, 2)])

        def forward(self, x):
            return torch.cat([b(x).mean((2, 3), keepdim=True) for b in self.branches], 1)

    class SplitReaders(nn.Module):
        """Channel slices of uneven sizes read by a grouped 3x3, a 1x1 and
        a concat."""
        def __init__(self):
            super().__init__()
            self.dw = nn.Conv2d(7, 7, 3, 1, 1, groups=7)
            self.pw = nn.Conv2d(13, 10, 1)

        def forward(self, x):
            x1, x2, x3 = x.split([7, 13, 21], dim=1)
            return torch.cat((x3, self.dw(x1), self.pw(x2)), 1)

    class ConcatPlaced(nn.Module):
        """Concatenations whose pieces their producers write in place
        (place-concats): a 3x3 from 48 to 64 (a filter of 108 KiB, stored
        in channel blocks of 32) first, a 1x1 to 9 and a 3x3 max pool of
        23 channels after it (96 in all, read through a pad by a 3x3); the
        blocked piece after 11 channels (an offset its blocks do not
        divide: the copy stays); a concatenation along the height."""
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(5, 48, 1), nn.ReLU())
            self.big = nn.Sequential(nn.Conv2d(48, 64, 3, 1, 1), nn.ReLU())
            self.small = nn.Sequential(nn.Conv2d(48, 9, 1), nn.ReLU())
            self.pool = nn.Sequential(nn.Conv2d(5, 23, 1), nn.ReLU(), nn.MaxPool2d(3, 1, 1))
            self.small2 = nn.Sequential(nn.Conv2d(48, 11, 1), nn.ReLU())
            self.big2 = nn.Conv2d(48, 64, 3, 1, 1)
            self.top, self.bottom = nn.Conv2d(48, 13, 1), nn.Conv2d(48, 13, 3, 1, 1)
            self.mix = nn.Conv2d(64 + 9 + 23, 7, 3, 1, 1)
            self.mix2 = nn.Conv2d(11 + 64, 7, 1)
            self.mix3 = nn.Conv2d(13, 7, 1, (2, 1))

        def forward(self, x):
            s = self.stem(x)
            a = torch.cat((self.big(s), self.small(s), self.pool(x)), 1)
            b = torch.cat((self.small2(s), self.big2(s)), 1)
            h = torch.cat((self.top(s), self.bottom(s)), 2)
            return self.mix(a) + self.mix2(b) + self.mix3(h)

    class ConcatShared(nn.Module):
        """Pieces that keep the copy: the graph input, values read by
        other ops too, one value concatenated twice; their readers'
        results concatenated in place."""
        def __init__(self):
            super().__init__()
            self.c1, self.c2 = nn.Conv2d(6, 10, 1), nn.Conv2d(6, 13, 3, 1, 1)
            self.c3, self.c4 = nn.Conv2d(29, 9, 1), nn.Conv2d(36, 17, 3, 1, 1)
            self.c5 = nn.Conv2d(26, 5, 1)

        def forward(self, x):
            a, b = torch.relu(self.c1(x)), torch.relu(self.c2(x))
            c = torch.cat((x, a, b), 1)
            d = torch.cat((a, b, b), 1)
            return self.c5(torch.cat((self.c3(c), torch.relu(self.c4(d))), 1))

    class ConcatOut(nn.Module):
        """A concatenation placed in place that is the model's result."""
        def __init__(self):
            super().__init__()
            self.c1, self.c2 = nn.Conv2d(4, 7, 1), nn.Conv2d(4, 5, 3, 1, 1)

        def forward(self, x):
            return torch.cat((torch.relu(self.c1(x)), torch.sigmoid(self.c2(x)),
                              nn.functional.max_pool2d(x, 3, 1, 1)), 1)

    class ConcatPadded(nn.Module):
        """Concatenations padded for what reads them (place-concats'
        padded windows, the border filled by the concat's dispatch): block
        outputs read by a 1x1 convolution too (share-pads) and through a
        pad of 1 by an average pool (count_include_pad), a 3x3
        convolution and a max pool; a 3x3 pool of stride 2 with ceil_mode
        (padded high only); an average pool excluding the pad after a
        concatenation keeping a piece other ops read (its copy stays in
        the border's dispatch); one keeping both pieces, 300 and 301
        channels (130 K elements: its copies and border split between the
        workers); a value padded twice (zero and lowest: the pads stay).
        Blocked 64-channel pieces, 7 to 23 channels, odd sides, batch 2."""
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(5, 48, 1), nn.ReLU())
            self.big = nn.Sequential(nn.Conv2d(48, 64, 3, 1, 1), nn.ReLU())
            self.small = nn.Sequential(nn.Conv2d(48, 9, 1), nn.ReLU())
            self.pool = nn.Sequential(nn.Conv2d(5, 23, 1), nn.ReLU(), nn.MaxPool2d(3, 1, 1))
            self.b1, self.b2 = nn.Conv2d(96, 11, 1), nn.Conv2d(96, 13, 1)
            self.w1, self.w2 = nn.Conv2d(24, 64, 3, 1, 1), nn.Conv2d(24, 32, 1)
            self.b3, self.b4 = nn.Conv2d(96, 13, 1), nn.Conv2d(96, 7, 1)
            self.t, self.side, self.out = nn.Conv2d(5, 6, 1), nn.Conv2d(6, 9, 1), nn.Conv2d(15, 5, 1)
            self.twice = nn.Conv2d(20, 8, 1)
            self.v1, self.v2, self.vout = nn.Conv2d(5, 300, 1), nn.Conv2d(5, 301, 1), nn.Conv2d(601, 3, 1)

        def forward(self, x):
            s = self.stem(x)
            a = torch.cat((self.big(s), self.small(s), self.pool(x)), 1)
            c = torch.cat((self.b1(a), self.b2(nn.functional.avg_pool2d(a, 3, 1, 1))), 1)
            d = torch.cat((self.w1(c), self.w2(c)), 1)
            h = torch.cat((self.b3(nn.functional.max_pool2d(d, 3, 1, 1)), self.b4(d)), 1)
            e = nn.functional.max_pool2d(h, 3, 2, ceil_mode=True)
            k = self.twice(nn.functional.avg_pool2d(h, 3, 1, 1) + nn.functional.max_pool2d(h, 3, 1, 1))
            t = torch.relu(self.t(x))
            f = torch.cat((t, torch.relu(self.side(t))), 1)
            g = self.out(nn.functional.avg_pool2d(f, 3, 1, 1, count_include_pad=False)) + t.sum(1, keepdim=True)
            v1, v2 = torch.relu(self.v1(x)), torch.relu(self.v2(x))
            v = self.vout(nn.functional.avg_pool2d(torch.cat((v1, v2), 1), 3, 1, 1))
            v = v + v1.mean(1, keepdim=True) + v2.amax(1, keepdim=True)
            return torch.cat((e.flatten(1), g.flatten(1), k.flatten(1), v.flatten(1)), 1)

    def inverted_residual(c, e, stride):
        body = nn.Sequential(
            nn.Conv2d(c, e, 1, bias=False), nn.BatchNorm2d(e), nn.ReLU6(),
            nn.Conv2d(e, e, 3, stride, 1, groups=e, bias=False), nn.BatchNorm2d(e), nn.ReLU6(),
            nn.Conv2d(e, c, 1, bias=False), nn.BatchNorm2d(c))
        return Residual(body) if stride == 1 else body

    return {
        # strided 3x3 with bias and ReLU, 5 -> 13 channels, batch 2
        "cnn_conv_stride": (nn.Sequential(nn.Conv2d(5, 13, 3, 2, 1), nn.ReLU()), (2, 5, 17, 19)),
        # dilation 2, 3 -> 24 channels, ReLU6 (Clip)
        "cnn_conv_dilated": (nn.Sequential(nn.Conv2d(3, 24, 3, 1, 2, dilation=2), nn.ReLU6()),
                             (1, 3, 15, 14)),
        # an asymmetric kernel, stride and padding; 7 -> 9 channels
        "cnn_conv_asym": (nn.Sequential(nn.Conv2d(7, 9, (3, 5), (2, 1), (1, 2)), nn.Tanh()),
                          (3, 7, 11, 10)),
        # 1x1 convolutions with a residual add, 20 -> 40 -> 20, batch 3
        "cnn_conv_1x1": (Residual(nn.Sequential(nn.Conv2d(20, 40, 1), nn.ReLU(), nn.Conv2d(40, 20, 1)),
                                  nn.ReLU()), (3, 20, 7, 9)),
        # depthwise 3x3 stride 2 with BatchNorm and ReLU6, 17 channels
        "cnn_depthwise": (nn.Sequential(nn.Conv2d(17, 17, 3, 2, 1, groups=17), nn.BatchNorm2d(17),
                                        nn.ReLU6()), (2, 17, 13, 11)),
        # depthwise 5x5 with a channel multiplier of 2, dilation 2
        "cnn_depthwise_mult": (nn.Sequential(nn.Conv2d(6, 12, 5, 1, 4, dilation=2, groups=6),
                                             nn.ReLU()), (2, 6, 9, 12)),
        # grouped 3x3, 4 groups of 3 -> 5 channels, then a 1x1 across them
        "cnn_grouped": (nn.Sequential(nn.Conv2d(12, 20, 3, 1, 1, groups=4), nn.ReLU(),
                                      nn.Conv2d(20, 11, 1)), (2, 12, 10, 9)),
        # pools after convolutions: max 3x3/2 pad 1, average (padding
        # excluded), global average; 19 channels
        "cnn_pools": (nn.Sequential(nn.Conv2d(3, 19, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
                                    nn.Conv2d(19, 19, 3, 1, 1), nn.AvgPool2d(3, 2, 1, count_include_pad=False),
                                    nn.Conv2d(19, 7, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                    nn.Linear(7, 5)), (2, 3, 21, 18)),
        # two branches concatenated on channels (a fire module), 9 + 14
        "cnn_concat": (nn.Sequential(nn.Conv2d(4, 6, 1), nn.ReLU(),
                                     Concat(nn.Conv2d(6, 9, 1), nn.Conv2d(6, 14, 3, 1, 1)), nn.ReLU(),
                                     nn.Conv2d(23, 5, 3)), (2, 4, 8, 11)),
        # MobileNetV2 inverted residuals (odd widths) and a squeeze-excite
        "cnn_mobile_block": (nn.Sequential(nn.Conv2d(3, 10, 3, 2, 1), nn.ReLU6(),
                                           inverted_residual(10, 60, 1), inverted_residual(10, 36, 2),
                                           SqueezeExcite(10, 3), nn.AdaptiveAvgPool2d(1),
                                           nn.Flatten(), nn.Linear(10, 4)), (2, 3, 23, 20)),
        # large enough that the work is split across workgroups by batch
        # and 16-channel groups (48 channels): pads, a depthwise 3x3, a
        # squeeze-excite whose global pool recomputes the SiLU before it,
        # a depthwise 5x5 stride 2 (29x29) and a final global pool
        "cnn_wide_split": (nn.Sequential(nn.Conv2d(5, 48, 3, 1, 1), nn.BatchNorm2d(48), nn.SiLU(),
                                         nn.Conv2d(48, 48, 3, 1, 1, groups=48), nn.SiLU(),
                                         SqueezeExcite(48, 12),
                                         nn.Conv2d(48, 48, 5, 2, 2, groups=48), nn.ReLU6(),
                                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(48, 6)),
                           (2, 5, 58, 58)),
        # 1x1 stride-1 convolutions whose register tiles run over all
        # pixels (9x7 = 63 rows): 160 -> 112 (blocked filter of 16
        # channels: one vector per tile, 16 rows) -> 160 (blocks of 32)
        # with a residual add, then grouped 3x3s (10 groups of 16,
        # dilated; 2 groups of 24 = 16 + 8, strided), 48 -> 27 (16 + 8 +
        # 3 single lanes) and a 1x1 stride 2, batch 2
        "cnn_rows_merged": (nn.Sequential(nn.Conv2d(6, 160, 3, 1, 1), nn.ReLU(),
                                          Residual(nn.Sequential(nn.Conv2d(160, 112, 1), nn.ReLU(),
                                                                 nn.Conv2d(112, 160, 1)), nn.ReLU()),
                                          nn.Conv2d(160, 160, 3, 1, 2, dilation=2, groups=10), nn.ReLU(),
                                          nn.Conv2d(160, 48, 3, 2, 1, groups=2), nn.ReLU6(),
                                          nn.Conv2d(48, 27, 1), nn.Tanh(), nn.Conv2d(27, 40, 1, 2)),
                            (2, 6, 9, 7)),
        # more output channels than pixels with big weights that do not
        # halve: the workgroups split the channels into lane blocks with a
        # partial last one (200 = 3 x 64 + 8 after a strided, dilated,
        # padded 3x3; 1000 = 7 x 128 + 104 in a 1x1 with bias and the
        # sigmoid as its epilogue), batch 2
        "cnn_channel_tiles": (nn.Sequential(nn.Conv2d(40, 200, 3, 2, 2, dilation=2), nn.ReLU(),
                                            nn.Conv2d(200, 1000, 1), nn.Sigmoid()),
                              (2, 40, 9, 10)),
        # pads computed in the producer's dispatch (form-dispatch-regions
        # fuses a pad behind its convolution, bufferize-kernels writes the
        # window in place and fills only the border, the work splits by
        # rows): a 1x1 to 144 channels with a SiLU epilogue padded for a
        # depthwise 3x3, 21 channels (not a multiple of 16, fused all the
        # same) padded asymmetrically
        # (ZeroPad2d) and again by a strided dilated 3x3, a -inf pad after
        # 48 channels for a max pool, a zero pad after a sigmoid for an
        # average pool counting it; batch 2
        "cnn_pad_fused": (nn.Sequential(nn.Conv2d(5, 144, 1), nn.BatchNorm2d(144), nn.SiLU(),
                                        nn.Conv2d(144, 144, 3, 1, 1, groups=144), nn.ReLU6(),
                                        nn.Conv2d(144, 21, 1), nn.ReLU(), nn.ZeroPad2d((1, 2, 0, 3)),
                                        nn.Conv2d(21, 48, 3, 2, 2, dilation=2), nn.ReLU(),
                                        nn.MaxPool2d(3, 2, 1), nn.Conv2d(48, 32, 3, 1, 1, groups=4),
                                        nn.Sigmoid(), nn.AvgPool2d(3, 1, 1), nn.AdaptiveAvgPool2d(1),
                                        nn.Flatten(), nn.Linear(32, 6)),
                          (2, 5, 33, 30)),
        # pads of blocked convolutions (filters of 64 KiB or more write
        # [N, H, W, M/NB, NB], viewed as [N, H, W, M]): sink-reshapes
        # moves each pad above the view so it joins the producer's
        # dispatch. A 1x1 to 160 channels (5 blocks of 32, odd) padded for
        # a strided depthwise 3x3; a dilated 3x3 to 48 channels (3 blocks
        # of 16) whose ReLU is padded asymmetrically (ZeroPad2d) for a 1x1
        # to 400 (25 blocks of 16) with a sigmoid, padded for a grouped
        # 3x3 (25 groups); odd image sides, batch 2
        "cnn_pad_blocked": (nn.Sequential(nn.Conv2d(128, 160, 1), nn.ReLU(),
                                          nn.Conv2d(160, 160, 3, 2, 1, groups=160), nn.ReLU6(),
                                          nn.Conv2d(160, 48, 3, 1, 2, dilation=2), nn.ReLU(),
                                          nn.ZeroPad2d((2, 0, 1, 1)), nn.Conv2d(48, 400, 1),
                                          nn.Sigmoid(), nn.Conv2d(400, 400, 3, 1, 1, groups=25),
                                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(400, 10)),
                            (2, 128, 11, 9)),
        # channel shuffles between channels-last convolutions
        # (propagate-transposes: the layout transposes pass the views, the
        # shuffle is one channels-last transpose, the halves are channel
        # slices): 2 and 3 groups, 21 channels a half (odd), a strided and
        # a dilated depthwise 3x3, odd image sides, batch 2
        "cnn_shuffle": (nn.Sequential(nn.Conv2d(3, 20, 3, 2, 1), nn.ReLU(),
                                      ShuffleUnit(20, 42, 2, 3), ShuffleUnit(42, 42, 1, 2),
                                      ShuffleUnit(42, 42, 1, 3, dilation=2),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(42, 7)),
                        (2, 3, 17, 15)),
        # squeeze-excitation scales folded into the next convolution's
        # filter (fold-channel-scale: W' = W * s per call, when the filter
        # is smaller than the activation): a 1x1 to 20 channels, a dilated
        # depthwise 3x3 without padding; a strided 3x3 whose filter is the
        # larger keeps its scale pass. Batch 1 (folded) and batch 2 (each
        # image has its own scale: left alone)
        "cnn_se_fold": (_se_fold(nn, SqueezeExcite), (1, 12, 19, 17)),
        "cnn_se_fold_b2": (_se_fold(nn, SqueezeExcite), (2, 12, 19, 17)),
        # pads whose workgroups split the padded rows (each tile fills its
        # share of the border, the first also the rows above, the last
        # those below): a pad of 40 channels (not a multiple of 16) behind
        # its 1x1 for a strided depthwise 3x3 over 109 rows; a 1x1
        # to 48 channels with a SiLU computing into the window of the pad
        # of a dilated grouped 3x3 (55 rows); an asymmetric ZeroPad2d
        # (rows padded below only); a -inf pad of 24 channels for a max
        # pool; batch 2
        "cnn_pad_rows": (nn.Sequential(nn.Conv2d(5, 40, 1), nn.ReLU6(),
                                       nn.Conv2d(40, 40, 3, 2, 1, groups=40), nn.ReLU(),
                                       nn.Conv2d(40, 48, 1), nn.SiLU(),
                                       nn.Conv2d(48, 48, 3, 1, 2, dilation=2, groups=4), nn.ReLU(),
                                       nn.ZeroPad2d((2, 1, 0, 3)), nn.Conv2d(48, 24, 3), nn.ReLU(),
                                       nn.MaxPool2d(3, 2, 1), nn.AdaptiveAvgPool2d(1),
                                       nn.Flatten(), nn.Linear(24, 6)),
                         (2, 5, 109, 106)),
        # 1-D convolutions (computed as 2-D ones of height 1): a strided
        # padded stem of 5 channels, a dilated grouped one, BatchNorm and a
        # residual add over a 1x1, a depthwise k=4 with asymmetric output
        # length, a max pool; lengths not multiples of any tile, batch 2
        "cnn_conv1d": (nn.Sequential(nn.Conv1d(5, 24, 3, 2, 1), nn.ReLU(),
                                     nn.Conv1d(24, 36, 5, 1, 4, dilation=2, groups=3), nn.BatchNorm1d(36),
                                     Residual(nn.Sequential(nn.Conv1d(36, 36, 1), nn.ReLU6())),
                                     nn.Conv1d(36, 36, 4, 1, 0, groups=36), nn.GELU(),
                                     nn.MaxPool1d(3, 2), nn.Conv1d(36, 17, 1)),
                       (2, 5, 97)),
        # the graph input's pads (an asymmetric ZeroPad2d, then the
        # convolution's own) below the stem's NHWC transpose
        # (propagate-transposes), so they join its dispatch: 5 channels, a
        # strided dilated 3x3, then a grouped 3x3 padded after a SiLU,
        # odd image sides, batch 3
        "cnn_input_pad": (nn.Sequential(nn.ZeroPad2d((2, 1, 0, 3)),
                                        nn.Conv2d(5, 12, 3, 2, 2, dilation=2), nn.SiLU(),
                                        nn.Conv2d(12, 9, 3, 1, 1, groups=3)),
                          (3, 5, 19, 14)),
        # residual blocks whose input is padded for the first 3x3 and read
        # again by the add or a strided 1x1 shortcut (share-pads: they
        # read the pad's interior, the pad joins the producer): 20
        # channels, a dilated 3x3 and an asymmetric (3, 1) kernel; 96
        # channels (blocked filters, the pad moved above the collapse), a
        # grouped 3x3; 96 -> 160 stride 2 with a blocked 1x1 shortcut, the
        # last add inside the global pool; odd sides, batch 2
        "cnn_residual_pad": (nn.Sequential(
            nn.Conv2d(3, 20, 3, 2, 1), nn.ReLU(),
            Residual(nn.Sequential(nn.Conv2d(20, 20, 3, 1, 1), nn.BatchNorm2d(20), nn.ReLU(),
                                   nn.Conv2d(20, 20, 3, 1, 1), nn.BatchNorm2d(20)), nn.ReLU()),
            Residual(nn.Sequential(nn.Conv2d(20, 20, 3, 1, 2, dilation=2), nn.ReLU(),
                                   nn.Conv2d(20, 20, (3, 1), 1, (1, 0))), nn.ReLU()),
            nn.Conv2d(20, 96, 1), nn.ReLU(),
            Residual(nn.Sequential(nn.Conv2d(96, 96, 3, 1, 1), nn.ReLU(),
                                   nn.Conv2d(96, 96, 3, 1, 1, groups=3)), nn.ReLU()),
            Residual(nn.Sequential(nn.Conv2d(96, 96, 3, 1, 1), nn.ReLU(),
                                   nn.Conv2d(96, 96, 3, 1, 1)), nn.ReLU()),
            Shortcut(nn.Sequential(nn.Conv2d(96, 160, 3, 2, 1), nn.ReLU(),
                                   nn.Conv2d(160, 160, 3, 1, 1)),
                     nn.Conv2d(96, 160, 1, 2), nn.ReLU()),
            Residual(nn.Sequential(nn.Conv2d(160, 160, 3, 1, 1), nn.ReLU(),
                                   nn.Conv2d(160, 160, 3, 1, 1)), nn.ReLU()),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(160, 5)),
            (2, 3, 23, 19)),
        # blocked filters of 16 channels paired into register tiles of
        # two vectors (lower_conv.c block_loop; the workgroups take two
        # blocks each): a strided, dilated, padded 3x3 to 208 channels
        # (13 blocks: 6 pairs and one alone), 1x1s at 208 with the
        # residual add and ReLU as the epilogue, a 1x1 to 464 (29 blocks)
        # with a sigmoid, a padded 3x3 from 464 to 80 channels (5 blocks;
        # filter rows past the panel budget: reduction blocks read in
        # place); odd image sides, batch 2
        "cnn_block_pairs": (nn.Sequential(nn.Conv2d(7, 144, 3, 1, 1), nn.ReLU(),
                                          nn.Conv2d(144, 208, 3, 2, 2, dilation=2), nn.ReLU(),
                                          Residual(nn.Sequential(nn.Conv2d(208, 208, 1), nn.ReLU(),
                                                                 nn.Conv2d(208, 208, 1)), nn.ReLU()),
                                          nn.Conv2d(208, 464, 1), nn.Sigmoid(),
                                          nn.Conv2d(464, 80, 3, 1, 1), nn.AdaptiveAvgPool2d(1),
                                          nn.Flatten(), nn.Linear(80, 6)),
                            (2, 7, 29, 27)),
        # a DenseNet (torchvision's densenet*): each layer reads the
        # concatenation of all before it through a pre-activation
        # BatchNorm + ReLU (a channel affine no convolution can absorb),
        # its own channel count each; transitions halve the channels and
        # average-pool 2x2 (odd sides: the last row and column dropped)
        "cnn_dense": (dense_net(6, 3, (6, 6)), (1, 3, 11, 13)),
        # weights of 2 MiB or more, read in place, prefetched a panel
        # ahead (lower_conv.c prefetch_distance): a dilated 3x3 from 200
        # to 304 channels (19 blocks of 16: 9 pairs and one alone, the
        # next pair two blocks on), a strided 3x3 to 512 (blocks of 32,
        # filter rows past the panel budget: the next panel is the next
        # reduction block), a 1x1 to 1040 (65 blocks of 16) with its
        # ReLU as the epilogue; odd image sides, batch 2; the last
        # panel's prefetch points past the filter
        "cnn_prefetch": (nn.Sequential(nn.Conv2d(5, 200, 3, 1, 1), nn.ReLU(),
                                       nn.Conv2d(200, 304, 3, 1, 2, dilation=2), nn.ReLU(),
                                       nn.Conv2d(304, 512, 3, 2, 1), nn.ReLU(),
                                       nn.Conv2d(512, 1040, 1), nn.ReLU(),
                                       nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1040, 7)),
                         (2, 5, 13, 11)),
        # smaller weights (64 KiB to 2 MiB), read in place, prefetched a
        # panel ahead where each workgroup reads its own filter blocks
        # (lower_conv.c w_read_once): RegNet's 7x7 stage, 400 channels (25
        # blocks of 16: 12 pairs and one alone), its 1x1s in a residual
        # block with ReLU, then 400 -> 208 (13 blocks); odd input sides,
        # batch 1 (a batch of 2 reads each filter once per image: no
        # prefetch); the last panel's prefetch points past the filter
        "cnn_prefetch_once": (nn.Sequential(nn.Conv2d(5, 400, 3, 2, 1), nn.ReLU(),
                                            Residual(nn.Sequential(nn.Conv2d(400, 400, 1), nn.ReLU(),
                                                                   nn.Conv2d(400, 400, 1)), nn.ReLU()),
                                            nn.Conv2d(400, 208, 1), nn.ReLU(),
                                            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(208, 7)),
                              (1, 5, 13, 11)),
        # a small fully connected head at batch 1 and 3 (weights
        # pre-packed): 480 -> 160, ReLU, 160 -> 112, ReLU, 112 -> 10
        "cnn_fc_head": (fc_head(), (1, 3, 21, 23)),
        "cnn_fc_head_b3": (fc_head(), (3, 3, 21, 23)),
        # AlexNet's / VGG's head at batch 1 and 4: weights past the 16 MiB
        # pre-packing cap, streamed (cg_streamed_matmul): a Gemm with
        # transB = 1 (2100 -> 2053, 17 MB), ReLU, a MatMul of B [K, N]
        # (2053 -> 2051), ReLU, then 2051 -> 10 (small: pre-packed); N,
        # K odd (scalar columns, K % 4 rows left over)
        "cnn_fc_stream": (fc_stream(), (1, 2100)),
        "cnn_fc_stream_b4": (fc_stream(), (4, 2100)),
        # slices read in place (form-dispatch-regions, bufferize-kernels:
        # a view of the source's binding) and padded values read by small
        # named convolutions and pools through a slice of the pad's
        # interior (share-pads): fire modules squeezing to 13 and 19
        # channels (odd), expands of 20 + 21 channels; an
        # asymmetric pad read beside a max pool and a strided 1x1;
        # channel splits of 7, 13 and 21; odd image sides, batch 2
        "cnn_slice_views": (nn.Sequential(nn.Conv2d(3, 24, 3, 2, 1), nn.ReLU(),
                                          Fire(24, 13, 20, 21), nn.MaxPool2d(3, 2, ceil_mode=True),
                                          Fire(41, 19, 20, 21), SplitReaders(),
                                          nn.Conv2d(38, 17, 1), nn.ReLU(), PadReaders(17),
                                          nn.Flatten(), nn.Linear(37, 6)),
                            (2, 3, 33, 31)),
        # max pools fused behind a convolution's epilogue (hoist_max_chain.c:
        # a monotone chain runs once per output, after the max): bias + ReLU
        # before a ceil-mode 3x3/2 pool over 21 channels; ReLU6 (max and
        # min) of a convolution without bias before a 2x2/2 pool over 40;
        # BatchNorm + ReLU before a padded pool; a ReLU before a dilated
        # stride-1 pool; left alone: a SiLU (not monotone) and a LeakyReLU
        # (a select the match does not take) before pools; odd image
        # sides, batch 2
        "cnn_pool_chain": (nn.Sequential(nn.Conv2d(3, 21, 3), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
                                         nn.Conv2d(21, 40, 1, bias=False), nn.ReLU6(), nn.MaxPool2d(2, 2),
                                         nn.Conv2d(40, 40, 1), nn.BatchNorm2d(40), nn.ReLU(),
                                         nn.MaxPool2d(3, 2, 1), nn.Conv2d(40, 48, 3, 1, 2, dilation=2),
                                         nn.ReLU(), nn.MaxPool2d(3, 1, 1, dilation=2),
                                         nn.Conv2d(48, 35, 1), nn.SiLU(), nn.MaxPool2d(2, 1),
                                         nn.Conv2d(35, 17, 3, 1, 1), nn.LeakyReLU(0.1), nn.MaxPool2d(2, 2),
                                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(17, 6)),
                           (2, 3, 53, 45)),
        # concatenations written in place by their producers (place-concats)
        # and ones that keep the copy (ConcatPlaced, ConcatShared), odd
        # channel counts and sides, batch 2 and 3; a concatenation that is
        # the model's result (ConcatOut)
        "cnn_concat_placed": (ConcatPlaced(), (2, 5, 9, 11)),
        "cnn_concat_shared": (ConcatShared(), (3, 6, 7, 9)),
        "cnn_concat_out": (ConcatOut(), (2, 4, 5, 7)),
        # register tiles over several whole output rows (lower_conv.c
        # span_loop: rows shorter than half a tile's register rows): a
        # strided 3x3 to 48 channels at 7x6 (32 + 16: the pair of vectors
        # keeps one-row tiles, the single vector spans 2 rows: 2+2+2+1),
        # grouped 3x3s of 8 channels a group (8 lanes) with bias + ReLU and
        # of 16 a group, dilated, with the residual add as the epilogue; a
        # strided 3x3 to 64 at 4x3 (pairs of vectors: 2 rows a tile), a
        # (1, 3) kernel to 24 (16 + 8: all 4 rows in one tile of 12
        # pixels), a padded 3x3 to 20 (16 + 4 lanes); batch 2
        "cnn_rows_span": (nn.Sequential(nn.Conv2d(5, 48, 3, 2, 1), nn.ReLU(),
                                        nn.Conv2d(48, 48, 3, 1, 1, groups=6), nn.ReLU(),
                                        Residual(nn.Conv2d(48, 48, 3, 1, 2, dilation=2, groups=3), nn.ReLU()),
                                        nn.Conv2d(48, 64, 3, 2, 1), nn.ReLU6(),
                                        nn.Conv2d(64, 24, (1, 3), 1, (0, 1)), nn.Sigmoid(),
                                        nn.Conv2d(24, 20, 3, 1, 1), nn.ReLU(),
                                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(20, 6)),
                          (2, 5, 13, 11)),
        "cnn_concat_padded": (ConcatPadded(), (2, 5, 9, 12)),
        # Winograd F(2x2, 3x3) (flow winograd_convs.c; each 3x3 here has
        # 64+ input and 32+ output channels in blocks of 16 and 48+
        # tiles; the stem's 5 inputs keep it direct, and so does 144 ->
        # 72, whose 72 outputs convert-convs-to-nhwc leaves unblocked):
        # 136 input channels (not a multiple of 16) with BatchNorm +
        # ReLU, a residual add + ReLU as the epilogue, an unpadded 3x3
        # 72 -> 48 (72 inputs: near the 64 threshold, not a multiple of
        # 16; 48 outputs: three column blocks, below the 64 that took the
        # path before session 15; 11x9: partial tiles in both directions
        # after 13x11, whose 7x6 tiles are partial too); batch 2. The feature map itself is
        # the output, so an error of the transforms is not averaged away;
        # the sizes are the smallest that take the path (about 0.3 GFLOP)
        "cnn_winograd": (nn.Sequential(nn.Conv2d(5, 136, 3, 1, 1), nn.ReLU(),
                                       nn.Conv2d(136, 144, 3, 1, 1), nn.BatchNorm2d(144), nn.ReLU(),
                                       Residual(nn.Conv2d(144, 144, 3, 1, 1), nn.ReLU()),
                                       nn.Conv2d(144, 72, 3, 1, 1), nn.ReLU(),
                                       nn.Conv2d(72, 48, 3, 1, 0), nn.ReLU6()),
                         (2, 5, 13, 11)),
        # window ops and pads of a batch of 3 split their images first
        # (launch_rule.c outer_first), then the rows to an even count: the
        # input's pad copy, a depthwise 3x3 over 24 channels at 46x40
        # (3 images x 2 row halves), a squeeze-excite, a depthwise 5x5
        # stride 2 over 40 channels at 23x20 (odd rows: 3 x 23 tiles of a
        # row), a max pool and a depthwise 3x3 at 12x10 (3 x 2 tiles of 6
        # rows); hardswish as MobileNetV3 has it
        "cnn_batch_split": (nn.Sequential(nn.Conv2d(3, 24, 3, 1, 1), nn.Hardswish(),
                                          nn.Conv2d(24, 24, 3, 1, 1, groups=24), nn.ReLU(),
                                          SqueezeExcite(24, 8), nn.Conv2d(24, 40, 1), nn.Hardswish(),
                                          nn.Conv2d(40, 40, 5, 2, 2, groups=40), nn.Hardswish(),
                                          nn.MaxPool2d(3, 2, 1), nn.Conv2d(40, 40, 3, 1, 1, groups=40),
                                          nn.ReLU(), nn.Conv2d(40, 20, 1), nn.AdaptiveAvgPool2d(1),
                                          nn.Flatten(), nn.Linear(20, 5)),
                            (3, 3, 46, 40)),
        # window ops whose divisors give only odd tile counts take even
        # ones with a partial last tile (launch_rule.c window_even): a
        # depthwise 3x3 over 144 channels (9 lane groups) at 33x33 rows in
        # 2 x 3 tiles (rows 17 + 16), the squeeze-excite's global pool of
        # 144 channels in 80 + 64, a depthwise 5x5 stride 2 at 17x17 in
        # rows of 9 + 8; batch 1 (the channel scale folds into the 1x1)
        "cnn_odd_split": (nn.Sequential(nn.Conv2d(5, 144, 3, 1, 1), nn.ReLU(),
                                        nn.Conv2d(144, 144, 3, 1, 1, groups=144), nn.ReLU(),
                                        SqueezeExcite(144, 12), nn.Conv2d(144, 48, 1),
                                        nn.Conv2d(48, 48, 5, 2, 2, groups=48), nn.Hardswish(),
                                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(48, 5)),
                          (1, 5, 33, 33)),
        # dense convolutions over maps whose input passes a core's L2
        # (launch_rule.c pixel_tiles): workgroups of images and output
        # rows with all the output channels, so the input is read once:
        # a 1x1 96 -> 128 (HWCF filters, which the channel split cut into
        # 32-lane tiles), 128 -> 200 (6 vector pairs and 8 channels), 200
        # -> 96 in three blocks of 32 with ReLU into the padding of a 3x3,
        # the 3x3 (blocked too; dilated, so not Winograd) in a residual
        # add; a strided 1x1 96 -> 72
        # (64 + 8) shortcut beside a strided 3x3 stay as they were; odd
        # image sides (45 x 43: tiles of 9 and 15 rows), batch 2. The
        # inputs of 1 to 3 MB are about the smallest that take this
        # split; each layer is a few workgroups.
        "cnn_pixel_tiles": (nn.Sequential(nn.Conv2d(5, 96, 3, 1, 1), nn.ReLU(),
                                          nn.Conv2d(96, 128, 1), nn.ReLU(),
                                          nn.Conv2d(128, 200, 1), nn.ReLU(),
                                          nn.Conv2d(200, 96, 1), nn.ReLU(),
                                          Residual(nn.Conv2d(96, 96, 3, 1, 2, dilation=2), nn.ReLU()),
                                          Shortcut(nn.Conv2d(96, 72, 3, 2, 1), nn.Conv2d(96, 72, 1, 2),
                                                   nn.ReLU()),
                                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(72, 6)),
                            (2, 5, 45, 43)),
        # grouped 3x3s with few channels per group (ResNeXt, RegNet),
        # whose register tiles loop over the workgroup's groups inside
        # each output row: groups of 4 (12 groups) and of 12 (8 + 4
        # lanes) in a residual block with ReLU, 8 -> 16 channels a group
        # strided, 24 (16 + 8) with ReLU6, 48 -> 20 (16 + 4) strided,
        # dilated and padded, then groups of 2 (the generic path); odd
        # image sides, batch 2. Each shape is a few workgroups of several
        # groups, which is all the loop order depends on.
        "cnn_grouped_narrow": (nn.Sequential(nn.Conv2d(6, 48, 1), nn.ReLU(),
                                             Residual(nn.Sequential(
                                                 nn.Conv2d(48, 48, 3, 1, 1, groups=12), nn.ReLU(),
                                                 nn.Conv2d(48, 48, 3, 1, 1, groups=4)), nn.ReLU()),
                                             nn.Conv2d(48, 96, 3, 2, 1, groups=6), nn.ReLU(),
                                             nn.Conv2d(96, 96, 3, 1, 1, groups=4), nn.ReLU6(),
                                             nn.Conv2d(96, 40, 3, 2, 2, dilation=2, groups=2), nn.ReLU(),
                                             nn.Conv2d(40, 40, 3, 1, 1, groups=20), nn.Sigmoid(),
                                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(40, 6)),
                               (2, 6, 23, 19)),
        # grouped convolutions on vectors across groups (lower_conv.c
        # lane_groups: 4 or 2 channels a group in and out): 10 groups of 4
        # strided with bias and ReLU (vectors of 4 + 4 + 2 groups), 10
        # dilated in a residual add, 21 groups of 2 (16 + 4 + 1 groups: a
        # 2-lane last vector) with ReLU6, 21 of 2 with a (1, 3) kernel;
        # odd image sides, batch 2. A few workgroups of each suffice: the
        # path only depends on the tile's group count, taps and epilogue.
        "cnn_grouped_lanes": (nn.Sequential(nn.Conv2d(5, 40, 3, 1, 1), nn.ReLU(),
                                            nn.Conv2d(40, 40, 3, 2, 1, groups=10), nn.ReLU(),
                                            Residual(nn.Conv2d(40, 40, 3, 1, 2, dilation=2, groups=10)),
                                            nn.Conv2d(40, 42, 1), nn.ReLU(),
                                            nn.Conv2d(42, 42, 3, 1, 1, groups=21), nn.ReLU6(),
                                            nn.Conv2d(42, 42, (1, 3), 1, (0, 1), groups=21), nn.Tanh(),
                                            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(42, 6)),
                              (2, 5, 21, 27)),
        # grouped convolutions whose input passes a core's L2 take pixel
        # tiles with all the groups (launch_rule.c pixel_tiles): at
        # 45 x 43, batch 2 (inputs of 1.1 to 1.6 MB, about the smallest
        # that take the split; tiles of 9 rows): 16 groups of 4 (lane
        # path, all groups in one panel) with ReLU, 8 of 8 dilated in a
        # residual add, 8 of 12 (8 + 4 lanes), 48 of 2 (lane path, 2
        # lanes) with ReLU6, 32 of 3 (the generic path), 6 of 16 strided
        # to 23 x 22 (tiles of one row). Each layer is a few tiles, which
        # is all the split changes.
        "cnn_grouped_pixels": (nn.Sequential(nn.Conv2d(5, 64, 3, 1, 1), nn.ReLU(),
                                             nn.Conv2d(64, 64, 3, 1, 1, groups=16), nn.ReLU(),
                                             Residual(nn.Conv2d(64, 64, 3, 1, 2, dilation=2, groups=8)),
                                             nn.Conv2d(64, 96, 1), nn.ReLU(),
                                             nn.Conv2d(96, 96, 3, 1, 1, groups=8), nn.ReLU(),
                                             nn.Conv2d(96, 96, 3, 1, 1, groups=48), nn.ReLU6(),
                                             nn.Conv2d(96, 96, 3, 1, 1, groups=32), nn.ReLU(),
                                             nn.Conv2d(96, 96, 3, 2, 1, groups=6), nn.ReLU(),
                                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, 6)),
                               (2, 5, 45, 43)),
        # 1x1 convolutions over all the workgroup's pixels whose filters
        # fit L2 run each register tile of pixels over every column block
        # (lower_conv.c pixels_outer): 72 -> 100 (3 pairs of vectors and
        # a 4-lane one) -> 72 (a pair and 8 lanes) in a residual add with
        # ReLU, 360 -> 300 -> 360 (422 and 506 KiB filters, under the 512
        # KiB limit; 18 pairs and 8 lanes) in a residual add, and 360 ->
        # 400 (563 KiB, paired blocks of 16: the column blocks stay
        # outermost) with ReLU6; 23 x 17 pixels, workgroups of one row
        # (tiles of 6 + 6 and a remainder of 5), batch 2. A few tiles per
        # workgroup is all the loop order depends on.
        "cnn_pixels_outer": (nn.Sequential(nn.Conv2d(5, 72, 3, 1, 1), nn.ReLU(),
                                           Residual(nn.Sequential(nn.Conv2d(72, 100, 1), nn.ReLU(),
                                                                  nn.Conv2d(100, 72, 1)), nn.ReLU()),
                                           nn.Conv2d(72, 360, 1), nn.ReLU(),
                                           Residual(nn.Sequential(nn.Conv2d(360, 300, 1), nn.ReLU(),
                                                                  nn.Conv2d(300, 360, 1))),
                                           nn.Conv2d(360, 400, 1), nn.ReLU6(),
                                           nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(400, 6)),
                             (2, 5, 23, 17)),
        # grouped convolutions whose input pixels (of one tile row) lie a
        # multiple of 4 KiB apart, which take register tiles of at most
        # 8 rows (lower_conv.c l1_rows), and whose tiles prefetch the
        # next output row's input (prefetch_next_row): 512 channels at
        # stride 2 in groups of 8 (lane path on AVX-512, ymm before), 1024
        # at stride 1 in groups of 16,
        # 4 (lane path) in a residual add, 32 dilated, and 2 (lane path)
        # at stride 2; output rows of 19 (tiles of 7 + 6 + 6) and 10,
        # batch 2. One or two tiles a row is all the row count changes.
        "cnn_grouped_l1": (nn.Sequential(nn.Conv2d(5, 512, 1), nn.ReLU(),
                                         nn.Conv2d(512, 512, 3, 2, 1, groups=64), nn.ReLU(),
                                         nn.Conv2d(512, 1024, 1), nn.ReLU(),
                                         nn.Conv2d(1024, 1024, 3, 1, 1, groups=64), nn.ReLU6(),
                                         Residual(nn.Conv2d(1024, 1024, 3, 1, 1, groups=256)),
                                         nn.Conv2d(1024, 1024, 3, 1, 2, dilation=2, groups=32), nn.ReLU(),
                                         nn.Conv2d(1024, 1024, 3, 2, 1, groups=512), nn.Sigmoid(),
                                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1024, 6)),
                           (2, 5, 9, 37)),
        # grouped convolutions of 8 channels a group in and out on
        # vectors of two groups (lower_conv.c lane_groups on AVX-512;
        # one group's 8 lanes elsewhere): 5 groups strided with ReLU
        # (vectors of 2 + 2 groups, the last alone on 8 lanes), 5 dilated
        # in a residual add, 7 with a (1, 3) kernel and ReLU6 (3 vectors
        # and 1 alone), 12 at stride 2 padded 2 (6 vectors); rows of 8
        # and 5 pixels (tiles of 2, the last of 1), odd image sides,
        # batch 2. Each layer is small enough to be one workgroup of all
        # its groups (the launch rule splits larger ones by group first).
        "cnn_grouped_eights": (nn.Sequential(nn.Conv2d(5, 40, 3, 1, 1), nn.ReLU(),
                                             nn.Conv2d(40, 40, 3, 2, 1, groups=5), nn.ReLU(),
                                             Residual(nn.Conv2d(40, 40, 3, 1, 2, dilation=2, groups=5)),
                                             nn.Conv2d(40, 56, 1), nn.ReLU(),
                                             nn.Conv2d(56, 56, (1, 3), 1, (0, 1), groups=7), nn.ReLU6(),
                                             nn.Conv2d(56, 96, 1), nn.Tanh(),
                                             nn.Conv2d(96, 96, 3, 2, 2, groups=12), nn.ReLU(),
                                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(96, 6)),
                               (2, 5, 17, 15)),
        # MBConv blocks (expand 1x1 -> depthwise -> [SE] -> project 1x1):
        # a blocked expand (120 -> 144 channels, a filter of 64 KiB or
        # more) under a depthwise 3x3 with ReLU6; expanded widths 76 and
        # 100 (not multiples of 16) under depthwise 5x5 and 3x3 at
        # strides 1 and 2, with ReLU6 and SiLU, a residual add and an SE
        # block; 23x17 maps, batch 2
        "cnn_mbconv": (nn.Sequential(nn.Conv2d(3, 120, 3, 1, 1), nn.BatchNorm2d(120), nn.ReLU6(),
                                     MBConv(120, 144, 24, 3, 1, nn.ReLU6),
                                     MBConv(24, 76, 24, 5, 1, nn.ReLU6),
                                     MBConv(24, 100, 40, 5, 2, nn.SiLU, SqueezeExcite),
                                     MBConv(40, 76, 40, 3, 1, nn.SiLU),
                                     MBConv(40, 100, 48, 3, 2, nn.ReLU6),
                                     nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(48, 7)),
                       (2, 3, 23, 17)),
        # expanded values of 2 MiB or more, which split-into-bands
        # computes in bands of rows (halo rows recomputed, each band
        # padded with its share of the padding, joined by a concat): a
        # depthwise 5x5 at stride 1 in a residual MBConv (3 bands of 25
        # rows), a depthwise 3x3 at stride 2 with SiLU and SE (3 bands of
        # 13, 13 and 12 rows); before them a 1x1 with ReLU under a 3x3 max
        # pool at stride 1, which stays whole (the importer's pool is a
        # generic, not a named pooling op); odd sides 75 x 61, batch 2
        "cnn_mbconv_bands": (nn.Sequential(nn.Conv2d(3, 24, 3, 1, 1), nn.BatchNorm2d(24), nn.ReLU6(),
                                           nn.Conv2d(24, 64, 1), nn.ReLU(), nn.MaxPool2d(3, 1, 1),
                                           nn.Conv2d(64, 24, 1),
                                           MBConv(24, 100, 24, 5, 1, nn.ReLU6),
                                           MBConv(24, 100, 32, 3, 2, nn.SiLU, SqueezeExcite),
                                           nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 7)),
                             (2, 3, 75, 61)),
        # grouped convolutions of 8, 4 and 2 channels a group whose groups
        # the launch splits (inputs under 512 KB: no pixel tiles) take
        # tiles of whole 16-lane vectors of groups (launch_rule.c
        # lane_groups_tile), the last tile partial: 13 groups of 8 (tiles
        # of 2, the last of 1 on 8 lanes) with ReLU, 22 of 2 dilated in a
        # residual add (tiles of 8, 8 and 6), 22 of 4 at stride 2 (tiles
        # of 4, the last of 2), 13 of 8 at stride 2 padded 2 with ReLU6;
        # 23 x 21 pixels, batch 2.
        "cnn_grouped_tiles": (nn.Sequential(nn.Conv2d(5, 104, 3, 1, 1), nn.ReLU(),
                                            nn.Conv2d(104, 104, 3, 1, 1, groups=13), nn.ReLU(),
                                            nn.Conv2d(104, 44, 1), nn.ReLU(),
                                            Residual(nn.Conv2d(44, 44, 3, 1, 2, dilation=2, groups=22)),
                                            nn.Conv2d(44, 88, 1), nn.ReLU(),
                                            nn.Conv2d(88, 88, 3, 2, 1, groups=22), nn.ReLU(),
                                            nn.Conv2d(88, 104, 1), nn.ReLU(),
                                            nn.Conv2d(104, 104, 3, 2, 2, groups=13), nn.ReLU6(),
                                            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(104, 6)),
                              (2, 5, 23, 21)),
    }


def _rnn_cases(torch):
    """rnn_*: recurrent nets (nn.LSTM / nn.GRU, exported as the
    ONNX LSTM / GRU (linear_before_reset 1) ops): name -> (module,
    input shape). The output is Y, Y_h (and Y_c) flattened per batch entry
    and concatenated, so every output of the op is compared. Sizes are odd
    on purpose and small (seconds): hidden sizes 17 and 19 (not multiples
    of any vector width, so the hoisted X W^T and per-step H R^T products
    and the gate column slices have remainders), batch 3, a sequence of 7
    (a prime), two layers, both directions. Sequences of 1 and the RNN op
    are the ONNX node tests' (test_*_defaults: S 1, B 3) and onnx_forms'."""
    nn = torch.nn

    class Rnn(nn.Module):
        def __init__(self, rnn):
            super().__init__()
            self.rnn = rnn

        def forward(self, x):
            y, st = self.rnn(x)
            st = st if isinstance(st, tuple) else (st,)
            b = x.shape[0] if self.rnn.batch_first else x.shape[1]
            parts = [y.transpose(0, 1) if not self.rnn.batch_first else y] + [s.transpose(0, 1) for s in st]
            return torch.cat([p.reshape(b, -1) for p in parts], 1)

    return {
        "rnn_lstm_bidi_b3_s7": (Rnn(nn.LSTM(13, 17, num_layers=2, bidirectional=True, batch_first=True)),
                                (3, 7, 13)),
        "rnn_gru_bidi_b3_s7": (Rnn(nn.GRU(13, 19, num_layers=2, bidirectional=True)), (7, 3, 13)),
    }


def _bench_models():
    """bench/models/models.py (its transformer builders)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bench", "models"))
    import models
    return models


def build(name, torch):
    """(module in eval mode, example input) for MODEL NAME."""
    nn = torch.nn
    torch.manual_seed(SEED)
    if name.startswith("cnn_"):
        cases = _cnn_cases(torch)
        if name not in cases:
            raise SystemExit("run_model.py: unknown model '%s' (%s)" % (name, ", ".join(cases)))
        m, shape = cases[name]
        x = torch.randn(*shape)
    elif name.startswith("rnn_"):
        cases = _rnn_cases(torch)
        if name not in cases:
            raise SystemExit("run_model.py: unknown model '%s' (%s)" % (name, ", ".join(cases)))
        m, shape = cases[name]
        x = torch.randn(*shape)
    elif name == "mlp":
        m = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(),
                          nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
        x = torch.randn(4, 1, 28, 28)
    elif name == "tiny_mlp":
        m = nn.Sequential(nn.Flatten(), nn.Linear(48, 32), nn.ReLU(),
                          nn.Linear(32, 10), nn.Tanh())
        x = torch.randn(4, 3, 4, 4)
    elif name == "cnn":
        m = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
        x = torch.randn(2, 3, 32, 32)
    elif name in ("resnet18", "mobilenet_v2"):
        import torchvision
        m = getattr(torchvision.models, name)(weights=None)
        x = torch.randn(1, 3, 224, 224)
    elif name == "encoder":
        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0)
        m = nn.TransformerEncoder(layer, num_layers=2)
        x = torch.randn(16, 2, 64)
    elif name == "vit_tiny":
        # torchvision's VisionTransformer, small: a stride-8 patchify conv,
        # the class token expanded to the batch (shape via Where(Equal),
        # folded at import) and concatenated, 2 layers, 3 heads of 16
        import torchvision
        m = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=3,
                                                 hidden_dim=48, mlp_dim=96, num_classes=10)
        x = torch.randn(2, 3, 32, 32)
    elif name == "swin_tiny":
        # torchvision's SwinTransformer, small: 36x36 images in 4x4 patches
        # (9x9, then 5x5 after patch merging) in 4x4 windows, so the window
        # padding (Mod of constants, folded at import) is not 0; shifted
        # windows (Roll), relative position bias (a Gather of constants)
        import torchvision
        m = torchvision.models.SwinTransformer(patch_size=[4, 4], embed_dim=24, depths=[2, 2],
                                               num_heads=[2, 4], window_size=[4, 4],
                                               stochastic_depth_prob=0.0, num_classes=10)
        x = torch.randn(1, 3, 36, 36)
    elif name in ("gpt_tiny", "bert_tiny"):
        # bench/models' GPT-2-style decoder (embeddings, causal mask sliced
        # from a buffer and filled with -inf: a boolean constant in the
        # Q.K^T epilogue, tanh GELU, tied LM head) and BERT-style encoder
        # (its int64 attention mask is run_dynamic.py's second input), small
        m = _bench_models()._gpt(torch, layers=2, d=48, heads=3, vocab=61, ctx=24) if name == "gpt_tiny" \
            else _bench_models()._bert(torch, layers=2, d=48, heads=3, ff=80, vocab=61, ctx=24)
        x = torch.randint(0, 61, (2, 11))
    elif name in ENCODERS:
        batch, seq, d, heads, ff, act, layers = ENCODERS[name]
        if act == "gelu_tanh":
            act = lambda v: torch.nn.functional.gelu(v, approximate="tanh")  # noqa: E731
        layer = nn.TransformerEncoderLayer(d, heads, ff, batch_first=True, activation=act)
        m = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False) if layers > 1 else layer
        x = torch.randn(batch, seq, d)
    else:
        raise SystemExit("run_model.py: unknown model '%s' (mlp, tiny_mlp, cnn, resnet18, "
                         "mobilenet_v2, encoder, vit_tiny, swin_tiny, gpt_tiny, %s)" % (name, ", ".join(ENCODERS)))
    m.eval()
    # BatchNorm with its initial statistics (mean 0, var 1) would be an
    # identity; random running statistics make it a real computation.
    g = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
                mod.running_var.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
            elif isinstance(mod, nn.LayerNorm):
                mod.weight.copy_(torch.rand(mod.weight.shape, generator=g) + 0.5)
                mod.bias.copy_(torch.randn(mod.bias.shape, generator=g) * 0.1)
            elif isinstance(mod, nn.Linear) and not mod.weight.any():
                # a zero-initialized head (ViT's) would make the output 0
                mod.weight.copy_(torch.randn(mod.weight.shape, generator=g) * 0.1)
    return m, x


def listed(path, model):
    if not path:
        return True
    with open(path) as f:
        return model in (l.split("#", 1)[0].strip() for l in f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--compile", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--import", dest="import_", default=None)
    ap.add_argument("--work", required=True)
    ap.add_argument("--device", default="local-task")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--expected", default=None)
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--compile-flag", action="append", default=[])
    ap.add_argument("--emulator", default="")
    args = ap.parse_args()
    key = args.model if args.opset == 17 else "%s@opset%d" % (args.model, args.opset)
    return verdict(run(args), args.expected, key)


def verdict(rc, expected, key):
    """The exit status of a test of KEY that ended with RC: a failure (1)
    of a key not yet in EXPECTED skips (77), saying so; a pass of one says
    it should be added."""
    if rc == 1 and not listed(expected, key):
        print("skipped: %s fails and is not yet in %s (see the failure above)" % (key, expected))
        return 77
    if rc == 0 and not listed(expected, key):
        print("%s passes now: add it to %s" % (key, expected))
    return rc


def run(args):
    try:
        import torch
        if args.model in ("resnet18", "mobilenet_v2"):
            import torchvision  # noqa: F401
    except ImportError as e:
        print("skipped: %s (install python3-torch python3-torchvision: "
              "scripts/bootstrap.sh)" % e)
        return 77
    for tool in (args.compile, args.run):
        if not os.path.exists(tool):
            print("skipped: %s is not built" % tool)
            return 77

    work = os.path.join(args.work, args.model if args.opset == 17 else "%s_opset%d" % (args.model, args.opset))
    os.makedirs(work, exist_ok=True)
    onnx_path = os.path.join(work, "model.onnx")
    kiln = os.path.join(work, "model.kiln")
    x_path = os.path.join(work, "x.npy")
    y_path = os.path.join(work, "y.npy")
    for p in (onnx_path, kiln, y_path):
        if os.path.exists(p):
            os.remove(p)

    m, x = build(args.model, torch)
    with torch.no_grad():
        want = m(x).numpy()
    torch.onnx.export(m, x, onnx_path, opset_version=args.opset,
                      input_names=["x"], output_names=["y"])
    np.save(x_path, x.numpy())
    print("%s: exported %s (opset %d, %d bytes), input %s, output %s"
          % (args.model, onnx_path, args.opset, os.path.getsize(onnx_path),
             tuple(x.shape), tuple(want.shape)))

    t0 = time.monotonic()
    c = subprocess.run([args.compile, onnx_path, "-o", kiln] + args.compile_flag,
                       capture_output=True, text=True)
    if c.returncode != 0 and not ONNX_MSG_RE.search(c.stderr) and args.import_:
        # kiln-compile did not treat the file as ONNX (it does not take ONNX
        # yet, or its content sniffing missed the model): through MLIR text.
        print("%s: note: kiln-compile did not read the model as ONNX (%s); compiling "
              "through kiln-onnx-import" % (args.model, c.stderr.strip().splitlines()[0]))
        mlir = os.path.join(work, "model.mlir")
        c = subprocess.run([args.import_, onnx_path, "-o", mlir], capture_output=True, text=True)
        if c.returncode == 0:
            c = subprocess.run([args.compile, mlir, "-o", kiln] + args.compile_flag,
                               capture_output=True, text=True)
    compile_s = time.monotonic() - t0
    if c.returncode != 0:
        msg = c.stderr.strip()
        if re.search(r"onnx: (unsupported|opset|dynamic): ", msg):
            line = next(l for l in msg.splitlines() if "onnx: " in l)
            print("skipped: the importer rejects the model (after %.2f s): %s" % (compile_s, line))
            return 77
        print("FAIL: compile error after %.2f s:\n%s" % (compile_s, msg))
        return 1
    print("%s: compile time %.2f s (module %d bytes)" % (args.model, compile_s, os.path.getsize(kiln)))

    t0 = time.monotonic()
    r = subprocess.run(shlex.split(args.emulator) + [args.run, "--module=" + kiln, "--device=" + args.device,
                        "--input=@" + x_path, "--output=@" + y_path],
                       capture_output=True, text=True)
    run_s = time.monotonic() - t0
    if r.returncode != 0:
        print("FAIL: run error:\n" + r.stderr.strip())
        return 1
    print("%s: run time %.3f s on %s (kiln-run process: load, run, write)"
          % (args.model, run_s, args.device))
    got = np.load(y_path)
    if got.shape != want.shape or got.dtype != want.dtype:
        print("FAIL: output %s %s, PyTorch gives %s %s" % (got.dtype, got.shape, want.dtype, want.shape))
        return 1
    err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
    if not np.isfinite(err) or err > args.tol:
        print("FAIL: max abs error %.3g exceeds %g" % (err, args.tol))
        return 1
    print("%s: max abs error %.3g (tolerance %g; outputs up to %.3g in magnitude): passed"
          % (args.model, err, args.tol, float(np.max(np.abs(want)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
