"""Reporting graph breaks: jit.explain, `dy2st dump --explain`, the INFO log, and jit.save
refusing a function that breaks."""
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit.graph_break import GraphBreakError
from tests.support import randn, source_line, tensor

HERE = __file__
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ranked(x, w):
    h = paddle.matmul(x, w)
    if h.mean() > 0:
        h = h * 2
    idx = np.argsort(h.numpy(), axis=-1)
    return h + paddle.to_tensor(idx).astype("float32")


def plain(x):
    return paddle.nn.functional.relu(x) * 2 + 1


def ops_of(program):
    return sum(len(b.ops) for b in program.blocks)


def test_explain_reports_graphs_ops_and_breaks():
    x, w = tensor(randn(0, 3, 4)), tensor(randn(1, 4, 4))
    report = paddle.jit.explain(ranked, x, w)
    assert report.graph_count == 2
    assert report.op_count == sum(ops_of(p) for p in report.graphs) > 0
    assert "cond" in str(report.graphs[0])
    [b] = report.breaks
    assert (b.filename, b.lineno) == (HERE, source_line(HERE, "idx = np.argsort(h.numpy(), axis=-1)"))
    assert b.source == "idx = np.argsort(h.numpy(), axis=-1)"
    assert b.reason == ("np.argsort applied to a symbolic tensor: use paddle.argsort to keep it "
                        "in the graph")
    text = str(report)
    assert "graphs: 2" in text and "breaks: 1" in text
    assert f"test_graph_breaks_report.py:{b.lineno}" in text and b.reason in text


def test_explain_without_breaks_is_one_graph():
    x = tensor(randn(0, 3, 4))
    report = paddle.jit.explain(plain, x)
    strict = paddle.jit.to_static(plain, full_graph=True)
    strict(x)
    assert report.graph_count == 1 and report.breaks == []
    assert report.op_count == ops_of(strict.program)
    assert "breaks: 0" in str(report)


class Post(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, x):
        h = self.fc(x)
        best = np.argmax(h.numpy(), axis=-1)
        return h, paddle.to_tensor(best)


def test_explain_a_layer_leaves_the_layer_as_it_was():
    net = Post()
    report = paddle.jit.explain(net, tensor(randn(2, 3, 4)))
    assert report.graph_count == 2 and len(report.breaks) == 1
    assert "np.argmax" in report.breaks[0].reason
    assert "forward" not in net.__dict__                # explain used its own copy


def test_each_new_break_is_logged_once(caplog):
    sf = paddle.jit.to_static(ranked)
    w = tensor(randn(1, 4, 4))
    with caplog.at_level(logging.INFO, logger="dy2st.jit"):
        for k in range(4):
            sf(tensor(randn(k, 3, 4)), w)
    logged = [r.getMessage() for r in caplog.records if "graph break" in r.getMessage()]
    assert len(logged) == 1
    line = source_line(HERE, "idx = np.argsort(h.numpy(), axis=-1)")
    assert f"{HERE}:{line}" in logged[0] and "np.argsort" in logged[0]


def test_save_refuses_a_function_with_breaks_and_writes_nothing(tmp_path):
    sf = paddle.jit.to_static(ranked)
    spec = [paddle.static.InputSpec([3, 4], "float32"), paddle.static.InputSpec([4, 4], "float32")]
    line = source_line(HERE, "idx = np.argsort(h.numpy(), axis=-1)")
    for called in (False, True):
        if called:
            sf(tensor(randn(0, 3, 4)), tensor(randn(1, 4, 4)))
        with pytest.raises(GraphBreakError) as info:
            paddle.jit.save(sf, str(tmp_path / "m"), input_spec=spec)
        msg = str(info.value)
        assert f'File "{HERE}", line {line}' in msg and "np.argsort" in msg
        assert os.listdir(tmp_path) == []


def test_save_still_works_for_a_function_without_breaks(tmp_path):
    sf = paddle.jit.to_static(plain)
    x = tensor(randn(0, 3, 4))
    sf(x)
    paddle.jit.save(sf, str(tmp_path / "m"))
    loaded = paddle.jit.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(x).numpy(), plain(x).numpy(), rtol=1e-6)


MODEL = '''
import numpy as np
import dy2st as paddle


def post(x):
    h = x * 2
    order = np.argsort(h.numpy())
    return h, paddle.to_tensor(order)
'''


def test_cli_dump_explain(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    env = dict(os.environ, PYTHONPATH=REPO)
    run = subprocess.run([sys.executable, "-m", "dy2st", "dump", f"{path}:post", "--explain",
                          "--input-spec", "x:float32[None,4]"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "graphs: 2" in run.stdout and "breaks: 1" in run.stdout
    assert "model.py:8" in run.stdout and "np.argsort" in run.stdout
    missing = subprocess.run([sys.executable, "-m", "dy2st", "dump", f"{path}:post", "--explain"],
                             env=env, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 2 and "--input-spec" in missing.stderr


def test_save_refuses_a_layer_with_breaks(tmp_path):
    net = paddle.jit.to_static(Post())
    net(tensor(randn(2, 3, 4)))
    with pytest.raises(GraphBreakError, match="np.argmax"):
        paddle.jit.save(net, str(tmp_path / "m"))
    assert os.listdir(tmp_path) == []


def test_a_broken_function_says_why_it_has_no_single_program():
    sf = paddle.jit.to_static(ranked)
    w = tensor(randn(1, 4, 4))
    sf(tensor(randn(0, 3, 4)), w)
    sf(tensor(randn(0, 3, 4)), w)
    assert sf.num_programs == 2                       # one per region
    assert "1 graph break" in repr(sf)
    with pytest.raises(GraphBreakError, match="its Program needs ranked as one whole graph"):
        sf.program
