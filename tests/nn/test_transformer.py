"""MultiHeadAttention, the Transformer layers and scaled_dot_product_attention against numpy
written by hand; incremental decoding with caches against full decoding; gradients against
finite differences and through to_static; save/load round trips with None batch and length."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.roundtrip import RT, roundtrip_all
from tests.support import randn as r, seeded

nn = paddle.nn
F = paddle.nn.functional


# ------------------------------------------------------------------ numpy references
def np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def lin(layer, x):
    return x @ layer.weight.numpy().astype(np.float64) + layer.bias.numpy().astype(np.float64)


def np_mha(m, q, k, v, bias=None):
    """[batch, len, embed] inputs; returns (out, weights [batch, heads, lq, lk])."""
    def heads(x):
        b, n, _ = x.shape
        return x.reshape(b, n, m.num_heads, m.head_dim).transpose(0, 2, 1, 3)
    qh, kh, vh = heads(lin(m.q_proj, q)), heads(lin(m.k_proj, k)), heads(lin(m.v_proj, v))
    s = qh @ kh.transpose(0, 1, 3, 2) / np.sqrt(m.head_dim)
    if bias is not None:
        s = s + bias
    w = np_softmax(s)
    o = (w @ vh).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], -1)
    return lin(m.out_proj, o), w


def np_norm(layer, x, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * layer.weight.numpy() + layer.bias.numpy()


def np_sublayer(x, norm, fn, before):
    if before:
        return x + fn(np_norm(norm, x))
    return np_norm(norm, x + fn(x))


def np_ffn(layer, x, act=lambda v: np.maximum(v, 0)):
    return lin(layer.linear2, act(lin(layer.linear1, x)))


def np_encoder_layer(layer, x, bias=None):
    before = layer.normalize_before
    x = np_sublayer(x, layer.norm1, lambda h: np_mha(layer.self_attn, h, h, h, bias)[0], before)
    return np_sublayer(x, layer.norm2, lambda h: np_ffn(layer, h), before)


def np_decoder_layer(layer, x, mem, tgt_bias=None, mem_bias=None):
    before = layer.normalize_before
    x = np_sublayer(x, layer.norm1, lambda h: np_mha(layer.self_attn, h, h, h, tgt_bias)[0], before)
    x = np_sublayer(x, layer.norm2, lambda h: np_mha(layer.cross_attn, h, mem, mem, mem_bias)[0], before)
    return np_sublayer(x, layer.norm3, lambda h: np_ffn(layer, h), before)


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=tol, atol=tol)


def rng(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# ------------------------------------------------------------------ values
def test_multi_head_attention_matches_numpy_with_masks_and_weights():
    paddle.seed(1)
    m = nn.MultiHeadAttention(8, 2, kdim=6, vdim=5, need_weights=True)
    q, k, v = rng(1, 2, 3, 8), rng(2, 2, 4, 6), rng(3, 2, 4, 5)
    out, w = m(paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v))
    want, want_w = np_mha(m, q, k, v)
    close(out.numpy(), want)
    close(w.numpy(), want_w)
    assert out.shape == [2, 3, 8] and w.shape == [2, 2, 3, 4]
    keep = np.array([[1, 1, 0, 1]] * 3, dtype=bool)                 # bool: True attends
    out, w = m(paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v), attn_mask=paddle.to_tensor(keep))
    want, want_w = np_mha(m, q, k, v, (keep.astype(np.float64) - 1) * 1e9)
    close(out.numpy(), want)
    assert np.all(w.numpy()[..., 2] < 1e-6)
    additive = rng(4, 2, 1, 3, 4)                                     # float: added to the scores
    out, _ = m(paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v), attn_mask=paddle.to_tensor(additive))
    close(out.numpy(), np_mha(m, q, k, v, additive)[0])
    m.need_weights = False
    assert m(paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v)).shape == [2, 3, 8]


@pytest.mark.parametrize("normalize_before", [False, True])
def test_encoder_layer_and_encoder_match_numpy(normalize_before):
    paddle.seed(2)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=normalize_before)
    enc = nn.TransformerEncoder(layer, 2, nn.LayerNorm(8))
    assert enc.layers[0] is layer and enc.layers[1] is not layer
    assert not np.allclose(enc.layers[1].linear1.weight.numpy(), layer.linear1.weight.numpy())
    x = rng(3, 2, 5, 8)
    mask = np.tril(np.ones((5, 5), bool))
    bias = (mask.astype(np.float64) - 1) * 1e9
    close(layer(paddle.to_tensor(x), paddle.to_tensor(mask)).numpy(), np_encoder_layer(layer, x, bias), 1e-4)
    want = x.astype(np.float64)
    for sub in enc.layers:
        want = np_encoder_layer(sub, want, bias)
    close(enc(paddle.to_tensor(x), paddle.to_tensor(mask)).numpy(), np_norm(enc.norm, want), 1e-4)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_decoder_and_transformer_match_numpy(normalize_before):
    paddle.seed(3)
    t = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, normalize_before=normalize_before, activation="gelu")
    src, tgt = rng(4, 2, 5, 8), rng(5, 2, 3, 8)
    mask = t.generate_square_subsequent_mask(3)
    assert np.isinf(mask.numpy()[0, 1]) and mask.numpy()[1, 0] == 0
    got = t(paddle.to_tensor(src), paddle.to_tensor(tgt), tgt_mask=mask)
    import math
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + math.erf(v / math.sqrt(2))))
    mem = src.astype(np.float64)
    for layer in t.encoder.layers:
        before = layer.normalize_before
        mem = np_sublayer(mem, layer.norm1, lambda h, l=layer: np_mha(l.self_attn, h, h, h)[0], before)
        mem = np_sublayer(mem, layer.norm2, lambda h, l=layer: np_ffn(l, h, gelu), before)
    mem = np_norm(t.encoder.norm, mem)
    out = tgt.astype(np.float64)
    bias = mask.numpy().astype(np.float64)
    for layer in t.decoder.layers:
        before = layer.normalize_before
        out = np_sublayer(out, layer.norm1, lambda h, l=layer: np_mha(l.self_attn, h, h, h, bias)[0], before)
        out = np_sublayer(out, layer.norm2, lambda h, l=layer: np_mha(l.cross_attn, h, mem, mem)[0], before)
        out = np_sublayer(out, layer.norm3, lambda h, l=layer: np_ffn(l, h, gelu), before)
    close(got.numpy(), np_norm(t.decoder.norm, out), 1e-4)
    # one decoder layer alone, with the relu default
    dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, normalize_before=normalize_before)
    close(dec(paddle.to_tensor(tgt), paddle.to_tensor(src)).numpy(), np_decoder_layer(dec, tgt, src), 1e-4)


def test_incremental_decoding_with_caches_matches_full_decoding():
    paddle.seed(4)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    dec = nn.TransformerDecoder(layer, 2)
    dec.eval()
    tgt, mem = paddle.to_tensor(rng(6, 2, 4, 8)), paddle.to_tensor(rng(7, 2, 5, 8))
    causal = paddle.to_tensor(np.triu(np.full((4, 4), -1e9, np.float32), 1))
    full = dec(tgt, mem, tgt_mask=causal).numpy()
    cache = dec.gen_cache(mem)
    assert isinstance(cache[0][0], nn.MultiHeadAttention.Cache) and cache[0][0].k.shape == [2, 2, 0, 4]
    assert isinstance(cache[0][1], nn.MultiHeadAttention.StaticCache) and cache[0][1].k.shape == [2, 2, 5, 4]
    steps = []
    for t in range(4):
        y, cache = dec(tgt[:, t:t + 1], mem, cache=cache)
        steps.append(y.numpy())
    assert cache[1][0].k.shape == [2, 2, 4, 4]
    close(np.concatenate(steps, 1), full, 1e-4)
    zipped = dec.gen_cache(mem, do_zip=True)
    assert len(zipped) == 2 and len(zipped[0]) == 2
    # the encoder's caches grow the same way
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 1)
    c = enc.gen_cache(tgt)
    out, c = enc(tgt[:, :1], cache=c)
    assert c[0].k.shape == [2, 2, 1, 4] and out.shape == [2, 1, 8]


def test_scaled_dot_product_attention_matches_numpy():
    q, k, v = rng(8, 2, 3, 2, 4), rng(9, 2, 5, 2, 4), rng(10, 2, 5, 2, 4)

    def ref(bias=None, causal=False):
        qh, kh, vh = (a.transpose(0, 2, 1, 3).astype(np.float64) for a in (q, k, v))
        s = qh @ kh.transpose(0, 1, 3, 2) / 2.0
        if bias is not None:
            s = s + bias
        if causal:
            s = np.where(np.tril(np.ones((3, 5), bool)), s, -np.inf)
        return (np_softmax(s) @ vh).transpose(0, 2, 1, 3)

    t = [paddle.to_tensor(a) for a in (q, k, v)]
    close(F.scaled_dot_product_attention(*t).numpy(), ref())
    close(F.scaled_dot_product_attention(*t, is_causal=True).numpy(), ref(causal=True))
    keep = np.random.default_rng(0).random((3, 5)) > 0.3
    keep[:, 0] = True
    close(F.scaled_dot_product_attention(*t, attn_mask=paddle.to_tensor(keep)).numpy(),
          ref(np.where(keep, 0.0, -np.inf)))
    bias = rng(11, 2, 2, 3, 5)
    close(F.scaled_dot_product_attention(*t, attn_mask=paddle.to_tensor(bias)).numpy(), ref(bias))
    with pytest.raises(ValueError, match="4-D"):
        F.scaled_dot_product_attention(paddle.randn([2, 3, 4]), *t[1:])


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, 16, activation="nonsense")
    with pytest.raises(TypeError, match="Cache"):
        nn.MultiHeadAttention(8, 2)(paddle.randn([1, 2, 8]), cache=(1, 2))


def test_dropout_only_in_training():
    paddle.seed(5)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = paddle.randn([2, 3, 8])
    layer.eval()
    a, b = layer(x).numpy(), layer(x).numpy()
    close(a, b)
    layer.train()
    assert not np.allclose(layer(x).numpy(), a)


# ------------------------------------------------------------------ gradients
def test_attention_gradients_match_finite_differences_and_static():
    from tests.autograd.gradcheck import check
    paddle.set_default_dtype("float64")
    try:
        paddle.seed(6)
        layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, normalize_before=True)
        layer.eval()
        mask = paddle.to_tensor(np.tril(np.ones((3, 3), bool)))

        def fn(x, q):
            y = layer(x, mask)
            z = F.scaled_dot_product_attention(q, q, q, is_causal=True)
            return y.sum(axis=-1) * z.mean(axis=[2, 3])

        rs = np.random.default_rng(7)
        check(fn, [rs.standard_normal((2, 3, 4)), rs.standard_normal((2, 3, 2, 2))])
    finally:
        paddle.set_default_dtype("float32")


def test_training_a_transformer_under_to_static_matches_eager():
    def train(static):
        paddle.seed(7)
        model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
        head = nn.Linear(8, 3)
        params = model.parameters() + head.parameters()
        opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=params)

        def step(src, tgt, label):
            mask = model.generate_square_subsequent_mask(tgt.shape[1])
            loss = F.cross_entropy(head(model(src, tgt, tgt_mask=mask)), label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        if static:
            step = paddle.jit.to_static(step, full_graph=True)
        losses = []
        for k in range(3):
            src, tgt = paddle.to_tensor(rng(20 + k, 2, 4, 8)), paddle.to_tensor(rng(30 + k, 2, 3, 8))
            label = paddle.to_tensor(np.arange(6).reshape(2, 3, 1) % 3)
            losses.append(float(step(src, tgt, label).numpy()))
        return losses, [p.numpy() for p in params]

    eager_losses, eager_params = train(False)
    static_losses, static_params = train(True)
    close(static_losses, eager_losses)
    assert eager_losses[0] != eager_losses[2]
    for a, b in zip(static_params, eager_params):
        close(a, b)


# ------------------------------------------------------------------ save / load
class Classifier(nn.Layer):
    """An encoder over embedded ids with a key-padding mask built from the ids."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(11, 8, padding_idx=0)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, normalize_before=True), 2)
        self.attn = nn.MultiHeadAttention(8, 2, need_weights=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, ids):
        keep = (ids != 0).unsqueeze(1).unsqueeze(1)              # [batch, 1, 1, len]
        h = self.encoder(self.embed(ids), keep)
        out, weights = self.attn(h, h, h, keep)
        return self.fc(out.mean(axis=1)), weights


class Seq2Seq(nn.Layer):
    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(8, 2, 1, 2, 16, activation="gelu")

    def forward(self, src, tgt):
        mask = self.t.generate_square_subsequent_mask(tgt.shape[1])
        y = self.t(src, tgt, tgt_mask=mask)
        q = y.reshape([0, 0, 2, 4])
        return F.scaled_dot_product_attention(q, q, q, is_causal=True)


MODELS = [
    RT("transformer_classifier", seeded(Classifier), [([None, None], "int64")],
       [(np.array([[3, 4, 5, 0], [7, 1, 0, 0]]),), (np.array([[1, 2, 3, 4, 5, 6]]),)]),
    RT("transformer_seq2seq", seeded(Seq2Seq), [([None, None, 8], "float32")] * 2,
       [(r(1, 2, 5, 8), r(2, 2, 3, 8)), (r(3, 1, 2, 8), r(4, 1, 4, 8))]),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return roundtrip_all(MODELS, tmp_path_factory.mktemp("rt_transformer"))


@pytest.mark.parametrize("name", [m.name for m in MODELS])
def test_roundtrip(results, name):
    assert results[name] is None, results[name]


def test_static_with_unknown_dims_matches_eager():
    paddle.seed(8)
    model = Classifier()
    model.eval()
    static = paddle.jit.to_static(model, input_spec=[InputSpec([None, None], "int64")], full_graph=True)
    for ids in (np.array([[3, 4, 0]]), np.array([[1, 2, 3, 4, 5], [6, 7, 0, 0, 0]])):
        for got, want in zip(static(paddle.to_tensor(ids)), model(paddle.to_tensor(ids))):
            close(got.numpy(), want.numpy())


def test_parameter_attribute_lists_reach_their_sublayers():
    init = [nn.initializer.Constant(v) for v in (0.1, 0.2, 0.3)]
    attrs = [paddle.ParamAttr(initializer=i) for i in init]
    t = nn.Transformer(4, 2, 1, 1, 6, weight_attr=attrs)
    enc, dec = t.encoder.layers[0], t.decoder.layers[0]
    assert np.all(enc.self_attn.q_proj.weight.numpy() == np.float32(0.1))
    assert np.all(enc.linear1.weight.numpy() == np.float32(0.3))
    assert np.all(dec.cross_attn.k_proj.weight.numpy() == np.float32(0.2))
    assert np.all(dec.linear2.weight.numpy() == np.float32(0.3))
    t2 = nn.Transformer(4, 2, 1, 1, 6, weight_attr=attrs[:2])
    assert np.all(t2.decoder.layers[0].cross_attn.v_proj.weight.numpy() == np.float32(0.1))
    assert np.all(t2.decoder.layers[0].linear1.weight.numpy() == np.float32(0.2))
    with pytest.raises(ValueError, match="weight_attr"):
        nn.Transformer(4, 2, 1, 1, 6, weight_attr=attrs * 2)
