"""paddle.incubate.nn fused transformer layers: Paddle's parameter names and shapes, and results
equal to the unfused formulas (checked against nn.MultiHeadAttention / Linear / LayerNorm with
the same weights) in eval mode, under to_static, after jit.save / jit.load, with gradients."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.incubate.nn import (
    FusedBiasDropoutResidualLayerNorm,
    FusedDropoutAdd,
    FusedFeedForward,
    FusedMultiHeadAttention,
    FusedTransformerEncoderLayer,
)
from tests.support import check_layer_converts, randn


def _reference_attention(layer, x, mask=None):
    """The unfused computation with nn.MultiHeadAttention holding the fused layer's weights."""
    e, h, d = layer.embed_dim, layer.num_heads, layer.head_dim
    mha = paddle.nn.MultiHeadAttention(e, h)
    mha.eval()
    qkv_w = layer.qkv_weight.numpy().reshape(3, h * d, e)       # [3, out, in]
    qkv_b = layer.qkv_bias.numpy().reshape(3, h * d)
    for i, proj in enumerate((mha.q_proj, mha.k_proj, mha.v_proj)):
        proj.weight.set_value(qkv_w[i].T)
        proj.bias.set_value(qkv_b[i])
    mha.out_proj.weight.set_value(layer.linear_weight.numpy())
    mha.out_proj.bias.set_value(layer.linear_bias.numpy())
    t = paddle.to_tensor(x)
    inp = F.layer_norm(t, [e], layer.pre_ln_scale, layer.pre_ln_bias) if layer.normalize_before else t
    out = t + mha(inp, inp, inp, attn_mask=mask)
    if not layer.normalize_before:
        out = F.layer_norm(out, [e], layer.ln_scale, layer.ln_bias)
    return out.numpy()


@pytest.mark.parametrize("normalize_before", [False, True])
def test_fused_attention_matches_multi_head_attention(normalize_before, tmp_path):
    paddle.seed(0)
    layer = FusedMultiHeadAttention(8, 2, normalize_before=normalize_before)
    names = [n for n, _ in layer.named_parameters()]
    assert names[:4] == ["qkv_weight", "qkv_bias", "linear_weight", "linear_bias"]
    assert ("pre_ln_scale" in names) == normalize_before and ("ln_scale" in names) != normalize_before
    assert layer.qkv_weight.shape == [3, 2, 4, 8]
    x = randn(1, 2, 5, 8)
    layer.eval()
    got = check_layer_converts(layer, [x], tmp_path, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got, _reference_attention(layer, x), rtol=1e-4, atol=1e-5)


def test_fused_attention_masks():
    paddle.seed(1)
    layer = FusedMultiHeadAttention(8, 2)
    layer.eval()
    x = randn(2, 1, 4, 8)
    keep = np.array([[True, True, False, False]] * 4)[None, None]
    got_bool = layer(paddle.to_tensor(x), attn_mask=paddle.to_tensor(keep)).numpy()
    additive = np.where(keep, 0.0, -1e9).astype("float32")
    got_float = layer(paddle.to_tensor(x), attn_mask=paddle.to_tensor(additive)).numpy()
    np.testing.assert_allclose(got_bool, got_float, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_float, _reference_attention(layer, x,
                                                               paddle.to_tensor(additive)),
                               rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("normalize_before", [False, True])
def test_fused_feedforward_formula(normalize_before):
    paddle.seed(2)
    layer = FusedFeedForward(6, 10, activation="gelu", normalize_before=normalize_before)
    layer.eval()
    names = [n for n, _ in layer.named_parameters()]
    assert names[:4] == ["_linear1_weight", "_linear1_bias", "_linear2_weight", "_linear2_bias"]
    x = paddle.to_tensor(randn(3, 2, 4, 6))
    inp = F.layer_norm(x, [6], layer._ln1_scale, layer._ln1_bias) if normalize_before else x
    want = x + F.linear(F.gelu(F.linear(inp, layer._linear1_weight, layer._linear1_bias)),
                        layer._linear2_weight, layer._linear2_bias)
    if not normalize_before:
        want = F.layer_norm(want, [6], layer._ln2_scale, layer._ln2_bias)
    np.testing.assert_allclose(layer(x).numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_encoder_layer_trains_and_converts(tmp_path):
    paddle.seed(3)
    layer = FusedTransformerEncoderLayer(8, 2, 16, dropout_rate=0.0)
    assert {n.split(".")[0] for n, _ in layer.named_parameters()} == {"fused_attn", "ffn"}
    x = randn(4, 2, 5, 8)
    check_layer_converts(layer, [x], tmp_path, rtol=1e-4, atol=1e-5)
    layer.train()
    opt = paddle.optimizer.Adam(0.01, parameters=layer.parameters())
    t, y = paddle.to_tensor(x), paddle.to_tensor(randn(5, 2, 5, 8))
    losses = []
    for _ in range(10):
        loss = F.mse_loss(layer(t), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]


def test_bias_dropout_residual_layer_norm_and_dropout_add():
    paddle.seed(4)
    layer = FusedBiasDropoutResidualLayerNorm(6, dropout_rate=0.0)
    assert [n for n, _ in layer.named_parameters()] == ["linear_bias", "ln_scale", "ln_bias"]
    x, r = paddle.to_tensor(randn(0, 3, 6)), paddle.to_tensor(randn(1, 3, 6))
    want = F.layer_norm(r + x + layer.linear_bias, [6], layer.ln_scale, layer.ln_bias)
    np.testing.assert_allclose(layer(x, r).numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    add = FusedDropoutAdd(p=0.5)
    add.eval()
    np.testing.assert_allclose(add(x, r).numpy(), (x + r).numpy(), rtol=1e-6)
    add.train()
    out = add(paddle.ones([1000]), paddle.zeros([1000])).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0} and 0.3 < (out > 0).mean() < 0.7
    with pytest.raises(ValueError, match="between 0 and 1"):
        FusedDropoutAdd(p=2.0)
