"""paddle.uint32 / paddle.uint64: creation, casts, wrap-around arithmetic, promotion, reductions,
save / load, jit.save and ONNX, eagerly and in converted code."""
import numpy as np
import pytest

import dy2st as paddle

X32 = np.array([3, 2 ** 32 - 1, 7], "uint32")
X64 = np.array([2, 2 ** 64 - 1, 5], "uint64")


def test_creation_and_casts():
    for name, d in (("uint32", paddle.uint32), ("uint64", paddle.uint64)):
        assert str(d) == f"paddle.{name}" and d.is_integer and not d.is_floating
        for t in (paddle.to_tensor([1, 2], dtype=name), paddle.ones([2], dtype=d),
                  paddle.full([2], 7, dtype=name), paddle.arange(2, dtype=d),
                  paddle.to_tensor(np.array([1, 2], name)), paddle.zeros([2]).astype(d)):
            assert t.dtype == name and t.numpy().dtype == np.dtype(name)
    assert paddle.iinfo(paddle.uint32).max == 2 ** 32 - 1
    assert paddle.iinfo("uint64").max == 2 ** 64 - 1
    # casts keep numpy's meaning: floats truncate, negative integers wrap
    np.testing.assert_array_equal(paddle.to_tensor([1.7, 2.0]).astype("uint32").numpy(), [1, 2])
    np.testing.assert_array_equal(paddle.cast(paddle.to_tensor([-1]), "uint32").numpy(),
                                  [2 ** 32 - 1])
    np.testing.assert_array_equal(paddle.to_tensor(X64).astype("float64").numpy(),
                                  X64.astype("float64"))


def test_arithmetic_wraps_and_promotes():
    x, y = paddle.to_tensor(X32), paddle.to_tensor(X32[::-1].copy())
    for got, want in ((x + y, X32 + X32[::-1]), (x - y, X32 - X32[::-1]),
                      (x * y, X32 * X32[::-1]), (x // y, X32 // X32[::-1]),
                      (x % y, X32 % X32[::-1]), (x + 1, X32 + np.uint32(1)),
                      (paddle.bitwise_xor(x, y), X32 ^ X32[::-1]), (paddle.max(x), X32.max()),
                      (paddle.cumsum(x), np.cumsum(X32, dtype="uint32"))):
        assert got.dtype == want.dtype.name, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got.numpy(), want)
    i32, i64 = paddle.to_tensor([1, 2, 3], "int32"), paddle.to_tensor([1, 2, 3])
    u8, u64 = paddle.to_tensor([1, 2, 3], "uint8"), paddle.to_tensor(X64)
    # Paddle's rule for two tensors: different integer dtypes (or an integer and a float) are
    # refused; a 0-d tensor or a Python number takes the tensor's dtype
    for other in (i32, i64, u8, u64, paddle.ones([3], "float64")):
        with pytest.raises(TypeError, match=f"uint32 and {other.dtype.name.lower()}"):
            x * other
    with pytest.raises(TypeError, match="uint64 and int64"):
        u64 * i64
    assert (x * paddle.to_tensor(2, "int64")).dtype == "uint32"
    assert (x + 1.5).dtype == "float32" and (x / y).dtype == "float32"


def test_sums_do_not_wrap():
    assert paddle.sum(paddle.to_tensor(X32)).dtype == "int64"
    assert int(paddle.sum(paddle.to_tensor(X32))) == int(X32.astype(object).sum())
    s = paddle.sum(paddle.to_tensor(X64[:1]))
    assert s.dtype == "uint64" and int(s) == 2


def test_converted_code_matches_eager():
    def f(a, b):
        return a + b * 2, (a > b).astype("int32"), paddle.sum(a)

    a, b = paddle.to_tensor(X32), paddle.to_tensor(X32[::-1].copy())
    for e, s in zip(f(a, b), paddle.jit.to_static(f)(a, b)):
        assert e.dtype == s.dtype
        np.testing.assert_array_equal(e.numpy(), s.numpy())


def test_float_only_ops_refuse_with_a_clear_error():
    with pytest.raises(TypeError, match="cholesky: the input must be float32 or float64"):
        paddle.linalg.cholesky(paddle.ones([2, 2], "uint32"))


def _runtime_adds_uint32(ort):
    """Whether onnxruntime runs Add on uint32 (1.19 has no such kernel, 1.23 has)."""
    onnx = pytest.importorskip("onnx", reason="onnx is not installed")
    h, t = onnx.helper, onnx.TensorProto
    graph = h.make_graph([h.make_node("Add", ["a", "b"], ["y"])], "add",
                         [h.make_tensor_value_info(n, t.UINT32, [1]) for n in "ab"],
                         [h.make_tensor_value_info("y", t.UINT32, [1])])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 14)])
    model.ir_version = 7
    try:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - onnxruntime's NotImplemented has no stable import path
        return False
    return True


class _Model(paddle.nn.Layer):
    def forward(self, a, b):
        return a + b, (a * 2).astype("float32"), a.astype("uint64") * 3


def test_save_load_jit_save_and_onnx(tmp_path):
    x, w = paddle.to_tensor(X32), paddle.to_tensor(X64)
    paddle.save({"x": x, "w": w}, str(tmp_path / "s.pdparams"))
    back = paddle.load(str(tmp_path / "s.pdparams"))
    assert back["x"].dtype == "uint32" and back["w"].dtype == "uint64"
    np.testing.assert_array_equal(back["w"].numpy(), X64)
    spec = [paddle.static.InputSpec([None], "uint32")] * 2
    model = _Model()
    want = [t.numpy() for t in model(x, x)]
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=spec)
    got = paddle.jit.load(str(tmp_path / "m"))(x, x)
    for g, w_ in zip(got, want):
        assert g.numpy().dtype == w_.dtype
        np.testing.assert_array_equal(g.numpy(), w_)
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    paddle.onnx.export(model, str(tmp_path / "m"), input_spec=spec)
    if not _runtime_adds_uint32(ort):
        pytest.skip(f"onnxruntime {ort.__version__} (the newest on Python 3.9) has no CPU kernel "
                    "for Add or Mul on unsigned ints (1.23 has)")
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"))
    outs = sess.run(None, {i.name: X32 for i in sess.get_inputs()})
    for o, w_ in zip(outs, want):
        assert o.dtype == w_.dtype
        np.testing.assert_array_equal(o, w_)
