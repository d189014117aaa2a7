"""The models of bench/models: one table row per model, built with random
weights from a fixed seed (nothing is downloaded: torchvision models are
built with weights=None) and exported by torch.onnx.export at opset 17.

A row is NAME: (default?, builder, input shapes[, options]).
builder(torch, torchvision) returns the nn.Module; the inputs are f32
tensors drawn from a seeded generator. Rows marked default run when no
--models is given; the others are other members of the same families, for
trying a change on graphs it was not written against (`--models=all`).
options: "group", a name --models selects instead of a list; rows of a
group are left out of `all` (they are many, or slow to compile or run):
group "extra" is the rest of torchvision's classifier zoo
(`--models=extra`).
"""
import os
import warnings

SEED = 0


def _mlp(t):
    nn = t.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def _encoder(t, layers, activation="relu", d=256, heads=4, ff=1024):
    """TransformerEncoderLayer (batch_first), or LAYERS of them in a
    TransformerEncoder, each with weights of its own (the encoder
    deep-copies one layer, so every layer's parameters are drawn again, in
    order, from the seed); activation "gelu_tanh" is tanh-approximated
    GELU."""
    nn = t.nn
    if activation == "gelu_tanh":
        activation = lambda v: nn.functional.gelu(v, approximate="tanh")  # noqa: E731
    one = nn.TransformerEncoderLayer(d_model=d, nhead=heads, dim_feedforward=ff,
                                     activation=activation, batch_first=True)
    if layers == 1:
        return one
    m = nn.TransformerEncoder(one, num_layers=layers, enable_nested_tensor=False)
    for mod in m.modules():
        if isinstance(mod, nn.MultiheadAttention):
            mod._reset_parameters()
        elif mod is not m and hasattr(mod, "reset_parameters"):
            mod.reset_parameters()
    return m


MODELS = {
    "resnet18": (True, lambda t, tv: tv.models.resnet18(weights=None), [(1, 3, 224, 224)]),
    "mobilenet_v2": (True, lambda t, tv: tv.models.mobilenet_v2(weights=None), [(1, 3, 224, 224)]),
    "encoder": (True, lambda t, tv: t.nn.TransformerEncoderLayer(
        d_model=256, nhead=4, dim_feedforward=1024, batch_first=True), [(1, 128, 256)]),
    "encoder_gelu": (True, lambda t, tv: _encoder(t, 1, "gelu"), [(1, 128, 256)]),
    "encoder_4layers": (True, lambda t, tv: _encoder(t, 4), [(1, 128, 256)]),
    "mlp": (True, lambda t, tv: _mlp(t), [(8, 784)]),
    # Not in the default run: more members of the same families.
    "resnet34": (False, lambda t, tv: tv.models.resnet34(weights=None), [(1, 3, 224, 224)]),
    "resnet50": (False, lambda t, tv: tv.models.resnet50(weights=None), [(1, 3, 224, 224)]),
    "mobilenet_v3_small": (False, lambda t, tv: tv.models.mobilenet_v3_small(weights=None),
                           [(1, 3, 224, 224)]),
    "mobilenet_v3_large": (False, lambda t, tv: tv.models.mobilenet_v3_large(weights=None),
                           [(1, 3, 224, 224)]),
    "shufflenet_v2_x1_0": (False, lambda t, tv: tv.models.shufflenet_v2_x1_0(weights=None),
                           [(1, 3, 224, 224)]),
    "mnasnet1_0": (False, lambda t, tv: tv.models.mnasnet1_0(weights=None), [(1, 3, 224, 224)]),
    "squeezenet1_1": (False, lambda t, tv: tv.models.squeezenet1_1(weights=None),
                      [(1, 3, 224, 224)]),
    "efficientnet_b0": (False, lambda t, tv: tv.models.efficientnet_b0(weights=None),
                        [(1, 3, 224, 224)]),
    "regnet_x_400mf": (False, lambda t, tv: tv.models.regnet_x_400mf(weights=None),
                       [(1, 3, 224, 224)]),
    # Encoders by depth, activation and width (bench/compile's rows), then
    # other sizes, sequence lengths, batch and the tanh GELU.
    "encoder2": (False, lambda t, tv: _encoder(t, 2), [(1, 128, 256)]),
    "encoder2_gelu": (False, lambda t, tv: _encoder(t, 2, "gelu"), [(1, 128, 256)]),
    "encoder12": (False, lambda t, tv: _encoder(t, 12), [(1, 128, 256)]),
    "encoder12_gelu": (False, lambda t, tv: _encoder(t, 12, "gelu"), [(1, 128, 256)]),
    "encoder_d128": (False, lambda t, tv: _encoder(t, 1, d=128, ff=512), [(1, 64, 128)]),
    "encoder2_d128_gelu": (False, lambda t, tv: _encoder(t, 2, "gelu", d=128, ff=512),
                           [(1, 64, 128)]),
    "encoder_d512_s64_gelu": (False, lambda t, tv: _encoder(t, 1, "gelu", 512, 8, 2048),
                              [(1, 64, 512)]),
    "encoder_d768_gelu": (False, lambda t, tv: _encoder(t, 1, "gelu", 768, 12, 3072),
                          [(1, 128, 768)]),
    "encoder_d128_s256": (False, lambda t, tv: _encoder(t, 1, d=128, heads=2, ff=512),
                          [(1, 256, 128)]),
    "encoder_d384_s7_gelu": (False, lambda t, tv: _encoder(t, 1, "gelu", 384, 6, 1536),
                             [(1, 7, 384)]),
    "encoder_d96_s129_gelu_tanh": (False, lambda t, tv: _encoder(t, 1, "gelu_tanh", 96, 3, 384),
                                   [(1, 129, 96)]),
    "encoder_b4_s32_gelu": (False, lambda t, tv: _encoder(t, 1, "gelu", 256, 8, 1024),
                            [(4, 32, 256)]),
}

# The rest of torchvision's classifiers (group "extra", `--models=extra`):
# the unseen members of the CNN families, each with a structure the rows
# above lack (11x11 stems and big FC layers, inception branches and
# asymmetric 1x7/7x1 kernels, dense concatenation, grouped bottlenecks,
# SE blocks on grouped convs, channel shuffles at x0.5, 5x5 depthwise,
# LayerNorm + GELU + 7x7 depthwise, fused MBConv). GoogLeNet and
# Inception-v3 are built without their training-only auxiliary heads;
# Inception-v3 keeps PyTorch's default initialization (its own, normal
# with std 0.1 whatever the fan-in, grows the activations to ~1e13 over
# 94 convolutions, where an absolute error bound means nothing).
def _tv(name, **kw):
    return lambda t, tv: getattr(tv.models, name)(weights=None, **kw)


EXTRA = {
    "alexnet": (_tv("alexnet"), [(1, 3, 224, 224)]),
    "vgg11": (_tv("vgg11"), [(1, 3, 224, 224)]),
    "googlenet": (_tv("googlenet", aux_logits=False, init_weights=True), [(1, 3, 224, 224)]),
    "inception_v3": (_tv("inception_v3", aux_logits=False, init_weights=False),
                     [(1, 3, 299, 299)]),
    "densenet121": (_tv("densenet121"), [(1, 3, 224, 224)]),
    "resnext50_32x4d": (_tv("resnext50_32x4d"), [(1, 3, 224, 224)]),
    "wide_resnet50_2": (_tv("wide_resnet50_2"), [(1, 3, 224, 224)]),
    "regnet_y_400mf": (_tv("regnet_y_400mf"), [(1, 3, 224, 224)]),
    "shufflenet_v2_x0_5": (_tv("shufflenet_v2_x0_5"), [(1, 3, 224, 224)]),
    "mnasnet0_5": (_tv("mnasnet0_5"), [(1, 3, 224, 224)]),
    "squeezenet1_0": (_tv("squeezenet1_0"), [(1, 3, 224, 224)]),
    "efficientnet_b1": (_tv("efficientnet_b1"), [(1, 3, 240, 240)]),
    "convnext_tiny": (_tv("convnext_tiny"), [(1, 3, 224, 224)]),
    "efficientnet_v2_s": (_tv("efficientnet_v2_s"), [(1, 3, 384, 384)]),
}
MODELS.update({n: (False,) + row + ({"group": "extra"},) for n, row in EXTRA.items()})


def _group(name):
    row = MODELS[name]
    return row[3].get("group") if len(row) > 3 else None


def names(spec):
    """The model names a --models value selects: '' is the default rows,
    'all' every row outside a group, a group's name its rows, else a
    comma-separated list of names."""
    if not spec:
        return [n for n, row in MODELS.items() if row[0]]
    if spec == "all":
        return [n for n in MODELS if not _group(n)]
    if any(_group(n) == spec for n in MODELS):
        return [n for n in MODELS if _group(n) == spec]
    out = [n.strip() for n in spec.split(",") if n.strip()]
    for n in out:
        if n not in MODELS:
            raise SystemExit("bench/models: unknown model '%s' (known: %s)"
                             % (n, ", ".join(MODELS)))
    return out


def build(name, torch, torchvision):
    """(module in eval mode, list of input tensors) for NAME, seeded."""
    _, builder, shapes = MODELS[name][:3]
    torch.manual_seed(SEED)
    m = builder(torch, torchvision)
    m.eval()
    # BatchNorm with its initial statistics (mean 0, var 1) is nearly an
    # identity; random running statistics make it a real computation.
    g = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm):
                mod.running_mean.copy_(torch.randn(mod.num_features, generator=g) * 0.1)
                mod.running_var.copy_(torch.rand(mod.num_features, generator=g) + 0.5)
    xs = [torch.randn(*s, generator=g) for s in shapes]
    return m, xs


def export(name, torch, torchvision, work):
    """Exports NAME to WORK/NAME.onnx (opset 17, inputs x0, x1, ...,
    outputs y0, ...) and writes each input as WORK/NAME.xI.npy and raw
    little-endian f32 WORK/NAME.xI.bin. Returns (module, inputs, onnx path)."""
    import numpy as np
    m, xs = build(name, torch, torchvision)
    path = os.path.join(work, name + ".onnx")
    with torch.no_grad():
        y = m(*xs)
    n_out = len(y) if isinstance(y, (tuple, list)) else 1
    with warnings.catch_warnings():  # the exporter's notes on tracing
        warnings.simplefilter("ignore")
        torch.onnx.export(m, tuple(xs), path, opset_version=17,
                          input_names=["x%d" % i for i in range(len(xs))],
                          output_names=["y%d" % i for i in range(n_out)])
    for i, x in enumerate(xs):
        a = x.numpy().astype(np.float32)
        np.save(os.path.join(work, "%s.x%d.npy" % (name, i)), a)
        a.tofile(os.path.join(work, "%s.x%d.bin" % (name, i)))
    return m, xs, path
