"""bfloat16 through the optional ml_dtypes package: the dtype, casts, arithmetic computed in
float32 and rounded to nearest even, gradients, to_static, auto_cast O1 / O2, saving; and the
clear error naming the extra when ml_dtypes is missing."""
import json
import subprocess
import sys

import numpy as np
import pytest

import dy2st as paddle

ml_dtypes = pytest.importorskip("ml_dtypes", reason='bfloat16 needs ml_dtypes: pip install '
                                                   '"dy2st[bf16]"')
BF16 = np.dtype(ml_dtypes.bfloat16)
RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype("float32")
B = RNG.standard_normal((3, 4)).astype("float32")


def bf(a):
    return np.asarray(a, np.float32).astype(BF16)


def ref(fn, *arrays):
    """fn in float32 on the bfloat16 values, rounded once to bfloat16."""
    return bf(fn(*[np.asarray(bf(a), np.float32) for a in arrays]))


def test_dtype_cast_and_to_tensor():
    assert paddle.bfloat16 == "bfloat16" and paddle.bfloat16.is_floating
    assert str(paddle.bfloat16) == "paddle.bfloat16"
    assert repr(paddle.bfloat16) == "<DataType.BFLOAT16: 16>" and int(paddle.bfloat16) == 16
    x = paddle.to_tensor(A, dtype="bfloat16")
    assert x.dtype == paddle.bfloat16 and x.numpy().dtype == BF16
    np.testing.assert_array_equal(x.numpy(), bf(A))
    back = x.astype("float32")
    np.testing.assert_array_equal(back.numpy(), bf(A).astype(np.float32))
    assert paddle.to_tensor(bf(A)).dtype == "bfloat16"
    assert paddle.cast(x, paddle.float16).dtype == "float16"


OPS = [
    ("add", lambda x, y: x + y, lambda a, b: a + b),
    ("mul_scalar", lambda x, y: x * y * 3.0, lambda a, b: a * b * 3.0),
    ("divide", lambda x, y: x / (y * y + 1.0), lambda a, b: a / (b * b + 1.0)),
    ("exp_tanh", lambda x, y: paddle.exp(x) + paddle.tanh(y), lambda a, b: np.exp(a) + np.tanh(b)),
    ("matmul", lambda x, y: paddle.matmul(x, y.T), lambda a, b: a @ b.T),
    ("sum_mean", lambda x, y: paddle.sum(x, axis=0) + paddle.mean(y, axis=0),
     lambda a, b: a.sum(0) + b.mean(0)),
]


@pytest.mark.parametrize("name, fn, np_fn", OPS, ids=[o[0] for o in OPS])
def test_arithmetic_computes_in_float32_and_rounds(name, fn, np_fn):
    x, y = paddle.to_tensor(bf(A)), paddle.to_tensor(bf(B))
    eager = fn(x, y)
    assert eager.dtype == "bfloat16"
    static = paddle.jit.to_static(fn)(x, y)
    assert static.dtype == "bfloat16" and static.numpy().dtype == BF16
    # each op rounds its own result: compare op by op within one bfloat16 step (2**-8)
    expected = np_fn(bf(A).astype(np.float32), bf(B).astype(np.float32))
    for out in (eager, static):
        np.testing.assert_allclose(out.numpy().astype(np.float32), expected, rtol=2 ** -7,
                                   atol=2 ** -7)
    np.testing.assert_array_equal(eager.numpy(), static.numpy())


def test_one_op_rounds_to_nearest_even():
    x, y = paddle.to_tensor(bf(A)), paddle.to_tensor(bf(B))
    np.testing.assert_array_equal((x * y).numpy(), ref(lambda a, b: a * b, A, B))
    np.testing.assert_array_equal(paddle.sqrt(paddle.abs(x)).numpy(),
                                  ref(lambda a: np.sqrt(np.abs(a)), A))


def test_promotion():
    x = paddle.to_tensor(bf(A))
    assert (x + paddle.to_tensor(A)).dtype == "float32"
    assert (x + paddle.to_tensor(A, dtype="float16")).dtype == "float32"
    assert (x + 1).dtype == "bfloat16" and (x * 2.5).dtype == "bfloat16"


def test_gradients_flow_in_bfloat16():
    x = paddle.to_tensor(bf(A), stop_gradient=False)
    (g,) = paddle.grad((x * x).sum(), x)
    assert g.dtype == "bfloat16"
    np.testing.assert_array_equal(g.numpy(), ref(lambda a: 2 * a, A))
    xs = paddle.to_tensor(bf(A), stop_gradient=False)
    paddle.jit.to_static(lambda t: (t * t).sum())(xs).backward()
    np.testing.assert_array_equal(xs.grad.numpy(), g.numpy())


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_auto_cast_runs_real_bfloat16_ops(level):
    paddle.seed(0)
    lin = paddle.nn.Linear(4, 3)
    x = paddle.to_tensor(A)
    with paddle.amp.auto_cast(dtype="bfloat16", level=level):
        y = lin(x)
        z = paddle.nn.functional.relu(y) + 1.0
    assert y.dtype == "bfloat16" and z.dtype == "bfloat16"
    expected = A @ lin.weight.numpy() + lin.bias.numpy()
    np.testing.assert_allclose(y.numpy().astype(np.float32), expected, rtol=2 ** -6, atol=2 ** -6)
    static = paddle.jit.to_static(lambda t: lin(t))
    with paddle.amp.auto_cast(dtype="bfloat16", level=level):
        out = static(x)
    np.testing.assert_array_equal(out.numpy(), y.numpy())


def test_o2_decorated_model_trains_and_saves(tmp_path):
    paddle.seed(1)
    model = paddle.amp.decorate(paddle.nn.Linear(4, 2), level="O2", dtype="bfloat16")
    assert model.weight.dtype == "bfloat16"
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    x = paddle.to_tensor(A)
    losses = []
    for _ in range(3):
        with paddle.amp.auto_cast(dtype="bfloat16", level="O2"):
            loss = (model(x).astype("float32") ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    paddle.save(model.state_dict(), str(tmp_path / "m.pdparams"))
    state = paddle.load(str(tmp_path / "m.pdparams"))
    assert state["weight"].dtype == "bfloat16"
    np.testing.assert_array_equal(state["weight"].numpy(), model.weight.numpy())
    spec = [paddle.static.InputSpec([None, 4], "bfloat16", "x")]
    paddle.jit.save(model, str(tmp_path / "m"), input_spec=spec)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    xb = x.astype("bfloat16")
    np.testing.assert_array_equal(loaded(xb).numpy(), model(xb).numpy())
    assert {p.dtype for p in loaded.parameters()} == {paddle.bfloat16}


def test_without_ml_dtypes_the_error_names_the_extra():
    code = """
import json, sys
sys.modules["ml_dtypes"] = None          # as if the package were not installed
import dy2st as paddle
out = {"supported": paddle.amp.is_bfloat16_supported()}
for what, call in [("to_tensor", lambda: paddle.to_tensor([1.0], dtype="bfloat16")),
                   ("attr", lambda: paddle.bfloat16),
                   ("auto_cast", lambda: paddle.amp.auto_cast(dtype="bfloat16").__enter__())]:
    try:
        call()
        out[what] = "no error"
    except (ImportError, ValueError) as e:
        out[what] = str(e)
print(json.dumps(out))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["supported"] is False
    for what in ("to_tensor", "attr", "auto_cast"):
        assert 'pip install "dy2st[bf16]"' in out[what], (what, out[what])


@pytest.mark.slow      # importing PaddlePaddle takes seconds; the float32 references above stand in
def test_matches_paddle_where_its_cpu_kernels_take_bfloat16():
    real = pytest.importorskip("paddle", reason="PaddlePaddle is not installed")
    # Paddle 3.3.1's CPU has bfloat16 kernels for multiply, scale and sum (not add / exp / matmul)
    for fn in (lambda p, x, y: x * y, lambda p, x, y: x * 2.5, lambda p, x, y: p.sum(x, axis=1)):
        ours = fn(paddle, paddle.to_tensor(A, dtype="bfloat16"), paddle.to_tensor(B, dtype="bfloat16"))
        theirs = fn(real, real.to_tensor(A).astype("bfloat16"), real.to_tensor(B).astype("bfloat16"))
        np.testing.assert_array_equal(ours.astype("float32").numpy(),
                                      theirs.astype("float32").numpy())


def test_xla_backend_agrees():
    pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

    def f(a, b):
        return paddle.exp(paddle.matmul(a, b.T)) * 2.0 + paddle.matmul(a, b.T)
    x, y = paddle.to_tensor(bf(A)), paddle.to_tensor(bf(B))
    out = paddle.jit.to_static(f, backend="xla")(x, y)
    assert out.dtype == "bfloat16"
    got, want = out.numpy().astype(np.float32), f(x, y).numpy().astype(np.float32)
    # eager rounds every op to bfloat16; XLA may keep the fused exp, multiply and add in float32
    # and round once (jax 0.4.30, the newest for Python 3.9, does). Where the two terms cancel,
    # that is more than 2**-7 of the sum, but within a bfloat16 step of the terms themselves.
    m = bf(A).astype(np.float32) @ bf(B).astype(np.float32).T
    step = 2.0 ** -7 * (2.0 * np.exp(m) + np.abs(m))
    assert (np.abs(got - want) <= step).all(), (got, want)


def test_wrapped_kernels_keep_their_signatures():
    # a saved model's op attrs are checked against the kernel's signature; the bfloat16 wrapper
    # (installed for the whole process on first use) must not turn that check into (*args, **kw)
    import inspect

    from dy2st.runtime.registry import get_op

    paddle.to_tensor(A, dtype="bfloat16")
    kernel = get_op("matmul").kernel
    assert hasattr(kernel, "bfloat16_wrapped")
    assert inspect.signature(kernel) == inspect.signature(kernel.bfloat16_wrapped)
    with pytest.raises(TypeError, match="extra"):
        inspect.signature(kernel).bind(None, None, transpose_x=False, transpose_y=False, extra=1)


def test_other_dtypes_run_the_kernels_as_declared_without_the_adapters_call():
    # the adapter passes other dtypes through: eager ops and compiled programs skip its call
    from dy2st.runtime.executor import compile_program
    from dy2st.runtime.registry import OPS, UNADAPTED, eager_kernel

    paddle.to_tensor(A, dtype="bfloat16")
    adapted = OPS["clip"].kernel
    assert UNADAPTED["clip"] is adapted.bfloat16_wrapped
    assert eager_kernel("clip", adapted, [A]) is UNADAPTED["clip"]
    assert eager_kernel("clip", adapted, [bf(A), A]) is adapted
    with pytest.raises(TypeError, match="complex"):
        eager_kernel("clip", adapted, [A.astype("complex64")])

    def fn(x, y):
        return paddle.clip(x, -0.5, 0.5), paddle.clip(y, -0.5, 0.5)

    x, y = paddle.to_tensor(A), paddle.to_tensor(A, dtype="bfloat16")
    sf = paddle.jit.to_static(fn, full_graph=True)
    for got, want in zip(sf(x, y), fn(x, y)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(fn(x, y)[1].numpy(), ref(lambda a: np.clip(a, -0.5, 0.5), A))
    program = sf.concrete_program.main_program
    compiled = compile_program(program, program.feed_names, program.fetch_names)
    names = {k: v for k, v in compiled._run.__globals__.items() if k.startswith("K_clip")}
    assert names == {"K_clip": UNADAPTED["clip"], "K_clip_adapted": adapted}, compiled.source
