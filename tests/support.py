"""Helpers shared by test modules (importable as `tests.support`): seeded data, building a
small static Program around a function and running it, checking user-facing errors."""
import numpy as np
import pytest

import dy2st as paddle


def randn(seed, *shape, shift=0.0, scale=1.0, dtype="float32"):
    """Seeded standard-normal data, scaled and shifted, as a numpy array of dtype."""
    return (np.random.default_rng(seed).standard_normal(shape) * scale + shift).astype(dtype)


def tensor(v, dtype="float32"):
    """An eager tensor of v (a number or nested list) in dtype."""
    return paddle.to_tensor(np.asarray(v, dtype=dtype))


def seeded(cls, *args):
    """A factory of cls(*args) whose parameters are the same on every call (seed 7)."""
    def make():
        paddle.seed(7)
        return cls(*args)
    return make


def run_static(fn, *arrays, shapes=None):
    """fn applied to static.data inputs (shapes may hold None dims), run by the Executor."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        xs = [paddle.static.data(f"x{i}", shapes[i] if shapes else list(a.shape), str(a.dtype))
              for i, a in enumerate(arrays)]
        out = fn(*xs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    res = paddle.static.Executor().run(main, feed={f"x{i}": a for i, a in enumerate(arrays)},
                                       fetch_list=outs)
    return res if isinstance(out, (list, tuple)) else res[0]


def check_layer_converts(model, arrays, tmp_path, rtol=1e-5, atol=1e-6):
    """model(*arrays) eagerly == under to_static == after jit.save/jit.load with a None batch dim
    (the model in eval mode). Returns the eager result as numpy."""
    from dy2st.static import InputSpec
    model.eval()
    eager = model(*[paddle.to_tensor(a) for a in arrays]).numpy()
    static = paddle.jit.to_static(model, full_graph=True)
    np.testing.assert_allclose(static(*[paddle.to_tensor(a) for a in arrays]).numpy(), eager,
                               rtol=rtol, atol=atol)
    specs = [InputSpec([None] + list(a.shape[1:]), str(a.dtype)) for a in arrays]
    paddle.jit.save(static, str(tmp_path / "model"), input_spec=specs)
    loaded = paddle.jit.load(str(tmp_path / "model"))
    np.testing.assert_allclose(loaded(*[paddle.to_tensor(a) for a in arrays]).numpy(), eager,
                               rtol=rtol, atol=atol)
    return eager


def same_code(a: str, b: str) -> bool:
    """Two sources print alike once parsed (ast.unparse spells a few things differently across
    Python versions, e.g. `lambda:` / `lambda :` on 3.9)."""
    import ast
    return ast.unparse(ast.parse(a)) == ast.unparse(ast.parse(b))


def code_text(source: str) -> str:
    """Generated code in the spelling of Python 3.10+, for substring checks in tests."""
    import re
    return re.sub(r"lambda :", "lambda:", source)


def source_line(path: str, snippet: str) -> int:
    """The one line of file `path` that holds `snippet` outside a string quoting it."""
    lines = open(path).read().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if snippet in line and f'"{snippet}' not in line
            and f"'{snippet}" not in line]
    assert len(hits) == 1, (snippet, hits)
    return hits[0]


def check_user_error(exc: BaseException, path: str, snippet: str) -> None:
    """The conformance rule: the message names the file, `line N` and quotes the line."""
    import os
    msg = str(exc) + "\n".join(str(n) for n in getattr(exc, "__notes__", ()))
    assert os.path.basename(path) in msg, msg
    assert f"line {source_line(path, snippet)}" in msg, msg
    assert snippet in msg, msg


def expect_user_error(path: str, target, args, etype, snippet: str, input_spec=None) -> None:
    """Converting and calling `target` raises `etype` reported at the line of `snippet`."""
    import pytest
    sf = paddle.jit.to_static(target, input_spec=input_spec, full_graph=True)
    with pytest.raises(etype) as info:
        sf(*args)
    check_user_error(info.value, path, snippet)


_param_serial = [0]    # unique parameter names, so optimizer state names differ


def parameters_with_grads(seed, shapes, steps, dtype="float64", prefix="p"):
    """Parameters of the given shapes (seeded values, unique names) and, per step, one seeded
    gradient array for each: (params, [[grad arrays of step 0], [step 1], ...])."""
    from dy2st.runtime.tensor import Parameter
    serial = _param_serial[0] = _param_serial[0] + 1
    params = [Parameter(np.asarray(randn(seed + i, *s, dtype=dtype)), name=f"{prefix}{serial}_{i}")
              for i, s in enumerate(shapes)]
    grads = [[np.asarray(randn(1000 * (k + 1) + seed + i, *s, dtype=dtype))
              for i, s in enumerate(shapes)] for k in range(steps)]
    return params, grads


def run_steps(opt, params, grads, between=None):
    """Set each parameter's .grad to the given arrays and call opt.step(), once per step;
    `between(k)` runs after step k (e.g. a scheduler step)."""
    for k, step in enumerate(grads):
        for p, g in zip(params, step):
            p.grad = paddle.to_tensor(g)
        opt.step()
        if between is not None:
            between(k)
def check_update_rule(opt_factory, update, state_init, shapes, steps, seed=0, grads_fn=None):
    """Runs an optimizer for `steps` steps on seeded parameters and gradients and compares the
    parameters with a numpy transcription: update(value, grad, state, t) -> new value, with
    state_init(value) -> the per-parameter state. Returns the optimizer."""
    params, grads = parameters_with_grads(seed, shapes, steps)
    if grads_fn is not None:
        grads = grads_fn(grads)
    values = [p.numpy().copy() for p in params]
    states = [state_init(v) for v in values]
    for t, step in enumerate(grads, start=1):
        values = [update(v, g, s, t) for v, g, s in zip(values, step, states)]
    opt = opt_factory(params)
    run_steps(opt, params, grads)
    for p, w in zip(params, values):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-12, atol=1e-14)
    return opt


def check_grad(fn, *arrays, wrt=None, eps=1e-6, rtol=1e-5, atol=1e-8, seed=0):
    """The eager gradients of sum(fn(*xs) * c) (c a seeded random cotangent, so that gradients a
    plain sum would cancel are checked too) in float64 against central finite differences, for the
    inputs numbered in `wrt` (default: all). fn may return a tuple; the first output is checked."""
    from tests.autograd.gradcheck import finite_differences

    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    wrt = range(len(arrays)) if wrt is None else list(wrt)

    def first(out):
        return out[0] if isinstance(out, (list, tuple)) else out

    cot = np.random.default_rng(seed).standard_normal(first(fn(*[paddle.to_tensor(a) for a in arrays])).shape)

    def weighted(*xs):
        return first(fn(*xs)) * paddle.to_tensor(cot)

    numeric = finite_differences(weighted, arrays, eps)
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    grads = paddle.grad(weighted(*ts).sum(), [ts[i] for i in wrt])
    for i, g in zip(wrt, grads):
        assert g.numpy().dtype == np.float64
        np.testing.assert_allclose(g.numpy(), numeric[i], rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {i}")


def onnx_outputs(path, *arrays):
    """The outputs of the ONNX model at `path` run in onnxruntime on arrays (inputs in order)."""
    import onnxruntime
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, arrays)))


def flat_results(out):
    """A function's result flattened into a list of numpy arrays (None dropped), as the ONNX
    export orders its outputs."""
    if out is None:
        return []
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in flat_results(o)]
    if isinstance(out, dict):
        return [a for k in out for a in flat_results(out[k])]
    return [np.asarray(out.numpy() if hasattr(out, "numpy") else out)]


# ----------------------------------------------------------------------------- saved model files
class BranchyNet(paddle.nn.Layer):
    """Linear + a tensor `if` (two sub-blocks) + full / getitem / mean: a small saved model
    with parameters, control flow and attrs of several kinds."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            y = y * 2.0
        else:
            y = y - y[0] + paddle.full([3], 2.0)
        return y.mean(axis=0) + y[0]


def save_branchy_model(prefix):
    """Save a seeded BranchyNet at prefix; returns (layer, example input)."""
    paddle.seed(3)
    net = BranchyNet()
    paddle.jit.save(net, str(prefix), input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
    return net, randn(5, 3, 4)


def json_paths(value, prefix=()):
    """Every path (tuple of keys / indices) into a JSON value, containers included."""
    yield prefix
    if isinstance(value, dict):
        for k, x in value.items():
            yield from json_paths(x, prefix + (k,))
    elif isinstance(value, list):
        for i, x in enumerate(value):
            yield from json_paths(x, prefix + (i,))


def model_doc(prefix):
    """The JSON document of the model saved at prefix."""
    import json
    with open(f"{prefix}.json", encoding="utf-8") as f:
        return json.load(f)


def write_model_doc(prefix, doc):
    import json
    with open(f"{prefix}.json", "w", encoding="utf-8") as f:
        json.dump(doc, f)


def model_npz_path(prefix):
    import os
    return os.path.join(os.path.dirname(str(prefix)), model_doc(prefix)["parameters_file"]["file"])


def write_model_npz(prefix, data):
    """Replace the model's parameters file by `data` (bytes) and record its checksum, so that
    the loader's later checks are reached."""
    import hashlib
    with open(model_npz_path(prefix), "wb") as f:
        f.write(data)
    doc = model_doc(prefix)
    doc["parameters_file"]["sha256"] = hashlib.sha256(data).hexdigest()
    write_model_doc(prefix, doc)
def import_source(directory, name: str, source: str):
    """Module `name` made from `source` written to a file in `directory` (to_static reads a
    function's source from its file), imported without touching sys.path or sys.modules."""
    import importlib.util
    import os
    path = os.path.join(str(directory), f"{name}.py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def three_modes(fn, arrays, specs, tmp_path):
    """fn run eagerly, through to_static (InputSpecs `specs`, None dims allowed) and through
    jit.save / jit.load; returns the three results as lists of numpy arrays."""
    def as_list(out):
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        return [np.asarray(o.numpy()) for o in outs]
    tensors = [paddle.to_tensor(a) for a in arrays]
    eager = as_list(fn(*tensors))
    input_spec = [paddle.static.InputSpec(s, str(a.dtype)) for s, a in zip(specs, arrays)]
    static_fn = paddle.jit.to_static(fn, input_spec=input_spec)
    static = as_list(static_fn(*tensors))
    path = str(tmp_path / "model")
    paddle.jit.save(static_fn, path, input_spec=input_spec)
    loaded = as_list(paddle.jit.load(path)(*tensors))
    return eager, static, loaded


def _model_outputs(out):
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return [np.asarray(o.numpy()) for o in outs]


def check_model(make, data, specs, tmp_path, loss_of=None, optimizer=None, rtol=1e-5, atol=1e-6):
    """A small Paddle-style model checked the way issue 13 asks: `make()` builds it (seeded),
    `data(batch)` gives its numpy inputs. In eval mode to_static matches eager and a
    jit.save / jit.load round trip with `specs` (None batch dims) matches eager at two batch
    sizes; with `loss_of(outputs)`, one training step (backward, optimizer step, clear_grad)
    under to_static leaves the same loss, parameters and buffers as the eager step."""
    def fresh():
        paddle.seed(11)
        return make()

    def call(m, batch):
        return m(*[paddle.to_tensor(a) for a in data(batch)])

    model = fresh()
    model.eval()
    eager = {b: _model_outputs(call(model, b)) for b in (2, 3)}
    static_model = paddle.jit.to_static(fresh())
    static_model.eval()
    for got, want in zip(_model_outputs(call(static_model, 2)), eager[2]):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    path = str(tmp_path / "model")
    paddle.jit.save(model, path, input_spec=[paddle.static.InputSpec(s, d) for s, d in specs])
    loaded = paddle.jit.load(path)
    for b in (2, 3):
        got = _model_outputs(loaded(*[paddle.to_tensor(a) for a in data(b)]))
        for g, w in zip(got, eager[b]):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    if loss_of is None:
        return
    states = []
    for convert in (False, True):
        m = fresh()
        m.train()
        opt = (optimizer or (lambda ps: paddle.optimizer.SGD(0.1, parameters=ps)))(m.parameters())

        def step(*xs):
            loss = loss_of(m(*xs))
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss
        fn = paddle.jit.to_static(step) if convert else step
        losses = [float(fn(*[paddle.to_tensor(a) for a in data(2)])) for _ in range(2)]
        states.append((losses, [t.numpy() for t in m.parameters()], [t.numpy() for t in m.buffers()]))
    (l0, p0, b0), (l1, p1, b1) = states
    np.testing.assert_allclose(l1, l0, rtol=rtol * 10)
    for a, b in zip(p0 + b0, p1 + b1):
        np.testing.assert_allclose(b, a, rtol=rtol * 10, atol=atol)


def assert_agrees_with_eager(fn, inputs, tmp_path, spec=None, rtol=1e-5, atol=1e-6):
    """fn through to_static (one graph, a None batch dim unless `spec` says otherwise) and
    through a jit.save / jit.load round trip returns, on every input, what it returns eagerly."""
    spec = spec or [paddle.static.InputSpec([None, 3], "float32")]
    sf = paddle.jit.to_static(fn, input_spec=spec, full_graph=True)
    sf(paddle.to_tensor(inputs[0]))
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for x in inputs:
        want = fn(paddle.to_tensor(x)).numpy()
        np.testing.assert_allclose(sf(paddle.to_tensor(x)).numpy(), want, rtol=rtol, atol=atol,
                                   err_msg=str(x))
        np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), want, rtol=rtol,
                                   atol=atol, err_msg=str(x))


def value_and_grad(fn, x, *args):
    """fn(x, *args) with x a leaf needing a gradient: the output, and x's gradient of the
    output's sum of squares (every output entry weighs in, so a wrong entry shows)."""
    t = paddle.to_tensor(x)
    t.stop_gradient = False
    out = fn(t, *args)
    (out * out).sum().backward()
    return out.numpy(), t.grad.numpy()


def numeric_gradient(f, x, eps=1e-6):
    """Central differences of the scalar function f at the real array x, one entry at a time."""
    g = np.zeros_like(x)
    for k in range(x.size):
        p, m = x.copy(), x.copy()
        p.flat[k] += eps
        m.flat[k] -= eps
        g.flat[k] = (f(p) - f(m)) / (2 * eps)
    return g


def assert_sum_of_squares_gradient(static, fn, x0, *args, rtol=1e-5):
    """x's gradient of sum(static(x, *args) ** 2) equals central differences of the same loss
    through the eager fn."""
    _, grad = value_and_grad(static, x0, *args)

    def loss(x):
        out = fn(paddle.to_tensor(x), *args).numpy()
        return float((out * out).sum())
    np.testing.assert_allclose(grad, numeric_gradient(loss, x0), rtol=rtol,
                               err_msg=f"args={args}")


# (full_graph, with_break) pairs for tests that compare every call with eager: one graph, the
# default mode, and the default mode with a graph break in the middle
BREAK_MODES = [pytest.param(True, False, id="full_graph"),
               pytest.param(False, False, id="default"),
               pytest.param(False, True, id="default-with-break")]


def graph_break(x):
    """A statement that breaks the graph (numpy on a tensor) and changes nothing."""
    return float(np.tanh(x.numpy()).sum())
