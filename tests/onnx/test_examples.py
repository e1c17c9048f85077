"""The examples through onnxruntime: examples/model.py (a tensor `if` and a data-dependent
`while`) and the attention benchmark function, at two batch sizes, against eager mode; the same
model exported from a jit.save'd model.json without its source, and by the CLI."""
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest

import dy2st as paddle
from tests.support import flat_results, onnx_outputs, randn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples"))
from model import RefineNet  # noqa: E402

sys.path.remove(os.path.join(ROOT, "examples"))
from benchmarks.models import attention  # noqa: E402

SPEC = [paddle.static.InputSpec([None, 4], "float32", "x")]


def refine_inputs(batch):
    """Inputs that take both branches of the `if` and from 0 to 5 loop turns."""
    return [randn(batch, batch, 4, scale=0.05), randn(batch, batch, 4),
            randn(batch, batch, 4, scale=5.0), randn(batch, batch, 4, shift=2.0),
            randn(batch, batch, 4, shift=-2.0)]


def make_net():
    """A RefineNet whose refining step contracts, so the trip count follows the input's size."""
    paddle.seed(3)
    net = RefineNet()
    net.step.weight.set_value(net.step.weight.numpy() * 0.1)
    return net


def check_refine(net, path, batches=(1, 6)):
    branches, steps = set(), set()
    for batch in batches:
        for x in refine_inputs(batch):
            want = flat_results(net(paddle.to_tensor(x)))
            got = onnx_outputs(path, x)
            assert [g.shape for g in got] == [w.shape for w in want]
            np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
            assert got[1] == want[1]
            branches.add(float(net.inp(paddle.to_tensor(x)).mean().numpy()) > 0)
            steps.add(int(want[1]))
    assert branches == {True, False}
    assert len(steps) >= 3, steps


@pytest.mark.parametrize("opset", [None, 13])
def test_refine_net_round_trips_through_onnxruntime(tmp_path, opset):
    net = make_net()
    path = str(tmp_path / "refine")
    paddle.onnx.export(net, path, input_spec=SPEC, opset_version=opset)
    model = onnx.load(path + ".onnx")
    onnx.checker.check_model(model, full_check=True)
    ops = {n.op_type for n in model.graph.node}
    assert {"If", "Loop"} <= ops
    assert model.graph.input[0].name == "x"
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and dims[1].dim_value == 4
    assert [o.name for o in model.graph.output] == ["output_0", "output_1"]
    assert {i.name for i in model.graph.initializer} >= {p.name for p in net.parameters()}
    check_refine(net, path + ".onnx")


def test_export_from_saved_model_without_source(tmp_path):
    net = make_net()
    saved = str(tmp_path / "saved")
    paddle.jit.save(net, saved, input_spec=SPEC)
    loaded = paddle.jit.load(saved)
    paddle.onnx.export(loaded, str(tmp_path / "from_json"))
    check_refine(net, str(tmp_path / "from_json.onnx"))


def test_cli_exports_source_and_saved_model(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "dy2st", *args], cwd=str(tmp_path), env=env,
                              capture_output=True, text=True, timeout=120)
    model_py = os.path.join(ROOT, "examples", "model.py")
    p = cli("export", f"{model_py}:RefineNet", "--format", "onnx", "--input-spec",
            "x:float32[None,4]", "-o", "cli_model")
    assert p.returncode == 0, p.stderr
    assert os.path.exists(tmp_path / "cli_model.onnx")
    p = cli("export", f"{model_py}:RefineNet", "--input-spec", "x:float32[None,4]", "-o", "saved")
    assert p.returncode == 0, p.stderr
    p = cli("export", "saved.json", "--format", "onnx", "-o", "from_json")
    assert p.returncode == 0, p.stderr
    x = randn(0, 3, 4)
    # the CLI built its own RefineNet (random weights): compare the two exports of the same
    # saved weights with the saved model itself
    want = flat_results(paddle.jit.load(str(tmp_path / "saved"))(x))
    got = onnx_outputs(str(tmp_path / "from_json.onnx"), x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    p = cli("export", "saved.json", "--format", "onnx", "--input-spec", "x:float32[2,4]",
            "-o", "bad")
    assert p.returncode == 2 and "--input-spec does not apply" in p.stderr


@pytest.mark.parametrize("batch", [1, 3])
def test_attention_round_trips_through_onnxruntime(tmp_path, batch):
    specs = [paddle.static.InputSpec([None, 4, 512], "float32", n) for n in "qkv"]
    specs.append(paddle.static.InputSpec([4, 4], "float32", "mask"))
    path = str(tmp_path / "attention")
    paddle.onnx.export(attention, path, input_spec=specs)
    q, k, v = (randn(s, batch, 4, 512) for s in (1, 2, 3))
    mask = np.triu(np.full((4, 4), -1e9, "float32"), 1)
    want = attention(*[paddle.to_tensor(a) for a in (q, k, v, mask)]).numpy()
    (got,) = onnx_outputs(path + ".onnx", q, k, v, mask)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert got.shape == (batch, 4, 512)
