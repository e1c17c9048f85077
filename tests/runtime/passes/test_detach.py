"""Dropping `detach` from programs run without gradients (runtime/passes/detach.py): a loaded
model's inference copies nothing where the user stopped gradients, gives the eager values, and
fine-tuning the same loaded model still stops its gradients there."""
import os

import numpy as np

import dy2st as paddle
from dy2st.runtime.passes.detach import drop_detach
from dy2st.runtime.program_clone import clone_program
from dy2st.static import InputSpec


class Stopped(paddle.nn.Layer):
    """Gradients stopped three ways: no_grad, .detach() and stop_gradient."""

    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(3, 3)
        self.b = paddle.nn.Linear(3, 2)

    def forward(self, x):
        h = self.a(x)
        with paddle.no_grad():
            s = paddle.tanh(h).mean()
        g = h.detach() * 2.0
        k = paddle.exp(h)
        k.stop_gradient = True
        return self.b(h * s + g + k), h.detach()


def data(seed=0):
    return np.random.default_rng(seed).standard_normal((2, 3)).astype("float32")


def saved(tmp_path):
    paddle.seed(0)
    model = Stopped()
    path = os.path.join(str(tmp_path), "m")
    paddle.jit.save(paddle.jit.to_static(model, input_spec=[InputSpec([None, 3], "float32")]),
                    path)
    return model, paddle.jit.load(path)


def types(program):
    return [op.type for b in program.blocks for op in b.ops]


def test_the_pass_renames_detach_outputs_and_keeps_fetched_ones(tmp_path):
    _, loaded = saved(tmp_path)
    program = clone_program(loaded.program())
    before = types(program).count("detach")
    fetched = [op for op in program.global_block().ops
               if op.type == "detach" and op.outputs[0] in program.fetch_names]
    assert before >= 4 and len(fetched) == 1
    assert drop_detach(program) == before - 1
    assert [op for op in program.global_block().ops if op.type == "detach"] == fetched
    defined = set(program.feed_names) | set(program.persistables)
    for op in program.global_block().ops:
        assert defined.issuperset(op.inputs), op.type
        defined.update(op.outputs)
    assert types(loaded.program()).count("detach") == before      # the saved program keeps them


def test_a_loaded_model_runs_without_copies_and_gives_eager_values(tmp_path):
    model, loaded = saved(tmp_path)
    x = paddle.to_tensor(data())
    with paddle.no_grad():
        out, held = loaded(x)
    ref, ref_held = model(x)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(held.numpy(), ref_held.numpy())
    source = loaded._compiled.source
    # one detach is left: the returned `h.detach()`, which must not share h's array
    assert source.count("K_detach") == 1, source


def test_fine_tuning_the_loaded_model_still_stops_gradients(tmp_path):
    model, loaded = saved(tmp_path)
    x = paddle.to_tensor(data(1))
    with paddle.no_grad():
        loaded(x)                                   # the inference copy is built first
    out, _ = loaded(x)
    (out * out).sum().backward()
    ref, _ = model(x)
    (ref * ref).sum().backward()
    for p, q in zip(loaded.parameters(), model.parameters()):
        assert p.grad is not None
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
