"""The models of bench/models: one table row per model, built with random
weights from a fixed seed (nothing is downloaded: torchvision models are
built with weights=None) and exported by torch.onnx.export at opset 17.

A row is NAME: (default?, builder, inputs[, options]). builder(torch,
torchvision) returns the nn.Module; an input is a shape (an f32 tensor
drawn from a seeded generator) or Ids/Mask (int64 token ids below a
vocabulary size; an int64 attention mask of ones whose batch rows past the
first end in padding zeros). Rows marked default run when no --models is
given; the others are other members of the same families, for trying a
change on graphs it was not written against (`--models=all`).
options: "group", a name --models selects instead of a list; rows of a
group are left out of `all` (they are many, or slow to compile or run):
group "extra" is the rest of torchvision's classifier zoo
(`--models=extra`), "xfmr-extra" other transformer shapes, "zoo"
further unseen members of both families (deeper, wider, other sizes,
batches, dynamic batch, decoders); "dynamic"
({input or output name: {axis: name}}, the exporter's dynamic_axes: the
module is compiled once for those symbolic dimensions and run at the
shapes given).
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


class Ids(tuple):
    """An int64 input of token ids in [0, vocab): Ids((batch, seq), vocab)."""
    def __new__(cls, shape, vocab):
        r = super().__new__(cls, shape)
        r.vocab = vocab
        return r


class Mask(tuple):
    """An int64 attention mask (1 = attend): batch row b > 0 ends in
    b * seq / 4 padding zeros (capped below seq), so padded keys are
    really masked out."""


def _gpt(t, layers=4, d=256, heads=4, vocab=2048, ctx=512):
    """GPT-2-style decoder-only stack: token and position embeddings
    (Gather; positions from arange, a Range over the run-time length),
    pre-LayerNorm blocks with one fused QKV Linear, a causal mask sliced
    from a ctx x ctx buffer and applied with -inf (masked_fill: Where),
    explicit softmax, tanh GELU MLP, a final LayerNorm and the LM head
    tied to the token embedding (MatMul by its transpose)."""
    import math
    nn = t.nn
    dh = d // heads

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
            self.register_buffer("causal", t.tril(t.ones(ctx, ctx, dtype=t.bool)).view(1, 1, ctx, ctx))

        def forward(self, x):
            b, n, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q = q.view(b, n, heads, dh).transpose(1, 2)
            k = k.view(b, n, heads, dh).transpose(1, 2)
            v = v.view(b, n, heads, dh).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(dh))
            att = att.masked_fill(~self.causal[:, :, :n, :n], float("-inf"))
            y = (att.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, n, d)
            x = x + self.proj(y)
            return x + self.out(nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(d)

        def forward(self, ids):
            pos = t.arange(ids.shape[1], dtype=t.long, device=ids.device)
            x = self.wte(ids) + self.wpe(pos).unsqueeze(0)
            for blk in self.blocks:
                x = blk(x)
            return self.ln_f(x) @ self.wte.weight.t()

    return GPT()


def _bert(t, layers=4, d=256, heads=4, ff=1024, vocab=3000, ctx=512):
    """BERT-style encoder: word + position + token-type embeddings (three
    Gathers) and LayerNorm, an int64 attention mask turned into an additive
    bias (1 - mask) * finfo.min broadcast over heads and query rows,
    post-LayerNorm layers with separate Q, K, V Linears, erf GELU FFN, and
    the pooler (tanh Linear of the first token) as a second output."""
    import math
    nn = t.nn
    dh = d // heads

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
            self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
            self.fc1, self.fc2 = nn.Linear(d, ff), nn.Linear(ff, d)

        def heads(self, x):
            b, n, _ = x.shape
            return x.view(b, n, heads, dh).permute(0, 2, 1, 3)

        def forward(self, x, bias):
            b, n, _ = x.shape
            s = self.heads(self.q(x)) @ self.heads(self.k(x)).transpose(-1, -2) / math.sqrt(dh)
            c = ((s + bias).softmax(-1) @ self.heads(self.v(x))).permute(0, 2, 1, 3).reshape(b, n, d)
            x = self.ln1(x + self.o(c))
            return self.ln2(x + self.fc2(nn.functional.gelu(self.fc1(x))))

    class Bert(nn.Module):
        def __init__(self):
            super().__init__()
            self.word, self.pos, self.tok_type = nn.Embedding(vocab, d), nn.Embedding(ctx, d), nn.Embedding(2, d)
            self.ln = nn.LayerNorm(d, eps=1e-12)
            self.layers = nn.ModuleList(Layer() for _ in range(layers))
            self.pool = nn.Linear(d, d)

        def forward(self, ids, mask):
            pos = t.arange(ids.shape[1], dtype=t.long, device=ids.device).unsqueeze(0)
            x = self.ln(self.word(ids) + self.pos(pos) + self.tok_type(t.zeros_like(ids)))
            bias = (1.0 - mask[:, None, None, :].to(t.float32)) * t.finfo(t.float32).min
            for layer in self.layers:
                x = layer(x, bias)
            return x, t.tanh(self.pool(x[:, 0]))

    return Bert()


def _vit(tv, layers=4, d=384, heads=6, mlp=1536):
    """torchvision's VisionTransformer, 224x224 images in 16x16 patches
    (a stride-16 conv), class token, learned positions."""
    return tv.models.VisionTransformer(image_size=224, patch_size=16, num_layers=layers, num_heads=heads,
                                       hidden_dim=d, mlp_dim=mlp, num_classes=1000)


_SEQ_DYNAMIC = {"x0": {0: "batch", 1: "seq"}, "x1": {0: "batch", 1: "seq"},
                "y0": {0: "batch", 1: "seq"}, "y1": {0: "batch"}}


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
    # Other transformer shapes (group xfmr-extra): vision transformers
    # (patchify conv, class token; Swin's shifted windows: rolls, window
    # partition reshapes/transposes, relative position bias), a GPT-2-style
    # causal decoder and a BERT-style masked encoder with embeddings, the
    # last two with dynamic batch and sequence length.
    "vit_s4": (False, lambda t, tv: _vit(tv), [(1, 3, 224, 224)], {"group": "xfmr-extra"}),
    "vit_b_16": (False, lambda t, tv: tv.models.vit_b_16(weights=None), [(1, 3, 224, 224)],
                 {"group": "xfmr-extra"}),
    "swin_t": (False, lambda t, tv: tv.models.swin_t(weights=None), [(1, 3, 224, 224)],
               {"group": "xfmr-extra"}),
    "gpt_l4_d256": (False, lambda t, tv: _gpt(t), [Ids((1, 128), 2048)],
                    {"group": "xfmr-extra", "dynamic": _SEQ_DYNAMIC}),
    "bert_l4_d256": (False, lambda t, tv: _bert(t), [Ids((2, 128), 3000), Mask((2, 128))],
                     {"group": "xfmr-extra", "dynamic": _SEQ_DYNAMIC}),
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


def _decoder(t, layers=1, d=256, heads=4, ff=1024, full=False):
    """nn.TransformerDecoderLayer (batch_first, a causal target mask built
    in forward) over two inputs, target and memory, of different lengths;
    FULL: a whole nn.Transformer (LAYERS encoder and decoder layers, erf
    GELU) taking the source and target sequences."""
    nn = t.nn

    class Dec(nn.Module):
        def __init__(self):
            super().__init__()
            if full:
                self.m = nn.Transformer(d, heads, layers, layers, ff, activation="gelu", batch_first=True)
            else:
                self.m = nn.TransformerDecoderLayer(d, heads, ff, batch_first=True)

        def forward(self, tgt, mem):
            n = tgt.shape[1]
            mask = t.triu(t.full((n, n), float("-inf")), diagonal=1)
            if full:
                return self.m(mem, tgt, tgt_mask=mask)
            return self.m(tgt, mem, tgt_mask=mask)

    return Dec()


def _t5(t, layers=2, d=256, heads=4, ff=1024, buckets=32, max_dist=128):
    """T5-style encoder: RMSNorm (no mean, no bias), Linears without bias,
    a relative position bias (|i - j| in exact then log-spaced buckets,
    sign apart, an Embedding of buckets x heads shared by the layers,
    added to the scores; computed from the run-time length), ReLU FFN."""
    import math
    nn = t.nn
    dh = d // heads

    class RMS(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(t.ones(d) + 0.1 * t.randn(d))

        def forward(self, x):
            return self.w * (x * t.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6))

    def bucket(rel):
        nb = buckets // 2
        exact = nb // 2
        n = rel.abs()
        large = exact + (t.log(n.float() / exact + 1e-9) / math.log(max_dist / exact) * (nb - exact)).to(t.long)
        large = t.minimum(large, t.full_like(large, nb - 1))
        return (rel > 0).to(t.long) * nb + t.where(n < exact, n, large)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
            self.wi, self.wo = nn.Linear(d, ff, bias=False), nn.Linear(ff, d, bias=False)
            self.n1, self.n2 = RMS(), RMS()

        def forward(self, x, bias):
            b, n, _ = x.shape
            h = self.n1(x)
            sp = lambda y: y.view(b, n, heads, dh).transpose(1, 2)  # noqa: E731
            s = sp(self.q(h)) @ sp(self.k(h)).transpose(-1, -2) + bias
            x = x + self.o((s.softmax(-1) @ sp(self.v(h))).transpose(1, 2).reshape(b, n, d))
            return x + self.wo(t.relu(self.wi(self.n2(x))))

    class T5(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb, self.rel = nn.Embedding(1000, d), nn.Embedding(buckets, heads)
            self.layers = nn.ModuleList(Layer() for _ in range(layers))
            self.norm = RMS()

        def forward(self, ids):
            pos = t.arange(ids.shape[1], dtype=t.long)
            bias = self.rel(bucket(pos[None, :] - pos[:, None])).permute(2, 0, 1).unsqueeze(0)
            x = self.emb(ids)
            for layer in self.layers:
                x = layer(x, bias)
            return self.norm(x)

    return T5()


def _bert_token_types(t, **kw):
    """_bert taking the token type ids as a third input."""
    m = _bert(t, **kw)

    class B(t.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = m

        def forward(self, ids, mask, types):
            b = self.m
            pos = t.arange(ids.shape[1], dtype=t.long).unsqueeze(0)
            x = b.ln(b.word(ids) + b.pos(pos) + b.tok_type(types))
            bias = (1.0 - mask[:, None, None, :].to(t.float32)) * t.finfo(t.float32).min
            for layer in b.layers:
                x = layer(x, bias)
            return x, t.tanh(b.pool(x[:, 0]))

    return B()


def _wav2vec_features(t):
    """wav2vec2's feature encoder: 7 Conv1d of 512 channels without bias
    (kernels 10, 3, 3, 3, 3, 2, 2; strides 5, 2, ...), GroupNorm(512, 512)
    after the first, GELU after each; then LayerNorm and a Linear to 256."""
    nn = t.nn
    layers, cin = [], 1
    for i, (k, s) in enumerate(zip([10, 3, 3, 3, 3, 2, 2], [5, 2, 2, 2, 2, 2, 2])):
        layers += [nn.Conv1d(cin, 512, k, s, bias=False)] + ([nn.GroupNorm(512, 512)] if i == 0 else [])
        layers.append(nn.GELU())
        cin = 512

    class FE(nn.Module):
        def __init__(self):
            super().__init__()
            self.c, self.ln, self.p = nn.Sequential(*layers), nn.LayerNorm(512), nn.Linear(512, 256)

        def forward(self, x):
            return self.p(self.ln(self.c(x).transpose(1, 2)))

    return FE()


def _kws(t):
    """Keyword spotting on 40 MFCCs x 101 frames: Conv1d + BN + ReLU, four
    depthwise-separable Conv1d blocks (45, 90, 135 channels; strides 1 and
    2), global average pool, Linear to 12 classes."""
    nn = t.nn

    def sep(ci, co, k, s):
        return nn.Sequential(nn.Conv1d(ci, ci, k, s, padding=k // 2, groups=ci, bias=False), nn.BatchNorm1d(ci),
                             nn.ReLU(), nn.Conv1d(ci, co, 1, bias=False), nn.BatchNorm1d(co), nn.ReLU())
    return nn.Sequential(nn.Conv1d(40, 45, 3, padding=1), nn.BatchNorm1d(45), nn.ReLU(), sep(45, 45, 9, 1),
                         sep(45, 90, 9, 2), sep(90, 90, 9, 1), sep(90, 135, 5, 2), nn.AdaptiveAvgPool1d(1),
                         nn.Flatten(), nn.Linear(135, 12))


def _rnn(t, kind):
    """Two stacked nn.LSTM layers (80 -> 160), or a bidirectional 2-layer
    nn.GRU, batch_first, then a Linear to 30 per step (ONNX's LSTM/GRU
    ops: import_rnn.c unrolls them over the static sequence)."""
    nn = t.nn
    bi = kind == "GRU"

    class R(nn.Module):
        def __init__(self):
            super().__init__()
            self.r = getattr(nn, kind)(80, 160, num_layers=2, batch_first=True, bidirectional=bi)
            self.fc = nn.Linear(320 if bi else 160, 30)

        def forward(self, x):
            return self.fc(self.r(x)[0])

    return R()


# Group "zoo": members of the same families that no other row (nor any
# change tuned on them) has seen: deeper and wider CNNs, other input
# sizes and batches, CNNs exported with a dynamic batch (compiled once,
# run at another batch), other transformer widths, sequence lengths and
# the decoder side (cross-attention, causal masks). `--models=zoo`.
_BATCH_DYNAMIC = {"x0": {0: "batch"}, "y0": {0: "batch"}}
ZOO = {
    "resnet101": (_tv("resnet101"), [(1, 3, 224, 224)]),
    "resnext50_b4": (_tv("resnext50_32x4d"), [(4, 3, 224, 224)]),
    "densenet169": (_tv("densenet169"), [(1, 3, 224, 224)]),
    "regnet_y_800mf": (_tv("regnet_y_800mf"), [(1, 3, 224, 224)]),
    "regnet_x_1_6gf": (_tv("regnet_x_1_6gf"), [(1, 3, 224, 224)]),
    "efficientnet_b2": (_tv("efficientnet_b2"), [(1, 3, 260, 260)]),
    "mobilenet_v3_large_b8": (_tv("mobilenet_v3_large"), [(8, 3, 224, 224)]),
    "shufflenet_v2_x1_5": (_tv("shufflenet_v2_x1_5"), [(1, 3, 224, 224)]),
    "mnasnet0_75": (_tv("mnasnet0_75"), [(1, 3, 224, 224)]),
    "squeezenet1_1_299": (_tv("squeezenet1_1"), [(1, 3, 299, 299)]),
    "googlenet_b2": (_tv("googlenet", aux_logits=False, init_weights=True), [(2, 3, 224, 224)]),
    "resnet18_dynbatch": (_tv("resnet18"), [(3, 3, 224, 224)], {"dynamic": _BATCH_DYNAMIC}),
    "mobilenet_v2_dynbatch": (_tv("mobilenet_v2"), [(2, 3, 224, 224)], {"dynamic": _BATCH_DYNAMIC}),
    "vit_p32_l4": (lambda t, tv: tv.models.VisionTransformer(
        image_size=224, patch_size=32, num_layers=4, num_heads=6, hidden_dim=384, mlp_dim=1536),
        [(1, 3, 224, 224)]),
    # swin_v2_t does not export on torch 1.13 (aten::zero): a narrower
    # Swin with 8x8 windows (swin_t's are 7x7) on 256x256 images instead.
    "swin_w8_e48": (lambda t, tv: tv.models.swin_transformer.SwinTransformer(
        [4, 4], 48, [2, 2, 4, 2], [3, 6, 12, 24], [8, 8]), [(1, 3, 256, 256)]),
    "decoder": (lambda t, tv: _decoder(t), [(1, 20, 256), (1, 37, 256)]),
    "transformer_l2_d192": (lambda t, tv: _decoder(t, 2, 192, 3, 768, full=True), [(2, 45, 192), (2, 33, 192)]),
    "gpt_l2_d192_s77": (lambda t, tv: _gpt(t, layers=2, d=192, heads=3, vocab=1000), [Ids((1, 77), 1000)],
                        {"dynamic": _SEQ_DYNAMIC}),
    "bert_l2_d384_s64": (lambda t, tv: _bert(t, layers=2, d=384, heads=6, ff=1536),
                         [Ids((3, 64), 3000), Mask((3, 64))], {"dynamic": _SEQ_DYNAMIC}),
    # Session 12: a bigger RegNetY, ConvNeXt with a dynamic batch; a
    # T5-style encoder (RMSNorm, relative position bias; dynamic batch and
    # sequence), a GPT compiled for any length timed at length 1 (a decode
    # step without a cache), BERT with token type ids; 1-D convolutions
    # (wav2vec2's feature encoder, a keyword spotter) and recurrent nets.
    "regnet_y_3_2gf": (_tv("regnet_y_3_2gf"), [(1, 3, 224, 224)]),
    "convnext_tiny_dynbatch": (_tv("convnext_tiny"), [(2, 3, 224, 224)], {"dynamic": _BATCH_DYNAMIC}),
    "t5_enc_l2_d256": (lambda t, tv: _t5(t), [Ids((1, 100), 1000)],
                       {"dynamic": {"x0": {0: "batch", 1: "seq"}, "y0": {0: "batch", 1: "seq"}}}),
    "gpt_l3_d320_s1": (lambda t, tv: _gpt(t, layers=3, d=320, heads=5, vocab=4000), [Ids((1, 1), 4000)],
                       {"dynamic": _SEQ_DYNAMIC}),
    "bert_types_l3_d256": (lambda t, tv: _bert_token_types(t, layers=3, d=256, heads=4, ff=1024),
                           [Ids((2, 48), 3000), Mask((2, 48)), Ids((2, 48), 2)],
                           {"dynamic": dict(_SEQ_DYNAMIC, x2={0: "batch", 1: "seq"})}),
    "wav2vec2_features": (lambda t, tv: _wav2vec_features(t), [(1, 1, 16000)]),
    "kws_conv1d_b2": (lambda t, tv: _kws(t), [(2, 40, 101)]),
    "lstm2_s50": (lambda t, tv: _rnn(t, "LSTM"), [(1, 50, 80)]),
    "bigru2_s40_b2": (lambda t, tv: _rnn(t, "GRU"), [(2, 40, 80)]),
}
MODELS.update({n: (False,) + row[:2] + (dict(row[2] if len(row) > 2 else {}, group="zoo"),)
               for n, row in ZOO.items()})


def _options(name):
    row = MODELS[name]
    return row[3] if len(row) > 3 else {}


def _group(name):
    return _options(name).get("group")


def names(spec):
    """The model names a --models value selects: '' is the default rows,
    'all' every row outside a group, else a comma-separated list of
    names and group names (a group's name selects its rows)."""
    if not spec:
        return [n for n, row in MODELS.items() if row[0]]
    if spec == "all":
        return [n for n in MODELS if not _group(n)]
    out = []
    for n in (n.strip() for n in spec.split(",") if n.strip()):
        group = [m for m in MODELS if _group(m) == n]
        if n not in MODELS and not group:
            raise SystemExit("bench/models: unknown model or group '%s' (known: %s)"
                             % (n, ", ".join(MODELS)))
        out += [m for m in (group or [n]) if m not in out]
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
            # Zero-initialized layers (ViT's classifier head) would make the
            # output 0 whatever the rest computes: draw them too.
            if isinstance(mod, torch.nn.Linear) and not mod.weight.any():
                mod.weight.copy_(torch.randn(mod.weight.shape, generator=g) * 0.02)
    xs = [_input(torch, s, g) for s in shapes]
    return m, xs


def _input(torch, shape, g):
    if isinstance(shape, Ids):
        return torch.randint(0, shape.vocab, tuple(shape), generator=g, dtype=torch.int64)
    if isinstance(shape, Mask):
        batch, seq = shape
        mask = torch.ones(batch, seq, dtype=torch.int64)
        for b in range(1, batch):
            mask[b, seq - min(seq - 1, b * seq // 4):] = 0
        return mask
    return torch.randn(*shape, generator=g)


def export(name, torch, torchvision, work):
    """Exports NAME to WORK/NAME.onnx (opset 17, inputs x0, x1, ...,
    outputs y0, ..., the row's dynamic axes symbolic) and writes each
    input as WORK/NAME.xI.npy and raw little-endian WORK/NAME.xI.bin (f32
    or int64). Returns (module, inputs, onnx path)."""
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
                          output_names=["y%d" % i for i in range(n_out)],
                          dynamic_axes=_options(name).get("dynamic"))
    for i, x in enumerate(xs):
        a = x.numpy()
        a = a.astype(np.int64 if a.dtype == np.int64 else np.float32)
        np.save(os.path.join(work, "%s.x%d.npy" % (name, i)), a)
        a.tofile(os.path.join(work, "%s.x%d.bin" % (name, i)))
    return m, xs, path
