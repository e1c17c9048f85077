"""Every save=True case of the shared conformance corpus exported to ONNX (at the default
opset, the oldest supported and a newer one), checked with onnx.checker (full check) and run in
onnxruntime on all its input sets, against eager mode."""
import importlib.util
import os
import sys
import warnings

import numpy as np
import onnx  # noqa: E402 - a test dependency (the `test` extra)
import pytest

import dy2st as paddle
from tests.shared_cases import require_corpus
from tests.support import onnx_outputs

CORPUS = str(require_corpus())

# Cases that cannot be exported, each with the reason. Empty: every save case exports.
EXPECTED_FAILURES = {}


def _corpus():
    """(runner module, [save cases]) loaded the way the conformance runner loads them."""
    spec = importlib.util.spec_from_file_location("dy2st_conformance_run",
                                                  os.path.join(CORPUS, "run.py"))
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    sys.path.insert(0, CORPUS)
    try:
        import casekit
        casekit.paddle = paddle
        entries = runner.load_cases(os.path.join(CORPUS, "cases"))
    finally:
        sys.path.remove(CORPUS)
    broken = [(name, err) for _, case, err, name in entries if case is None]
    if broken:
        raise RuntimeError(f"corpus modules failed to import: {broken}")
    return runner, [case for _, case, _, _ in entries if case.save]


RUNNER, CASES = _corpus()


def test_the_corpus_has_save_cases():
    assert len(CASES) >= 50
    assert set(EXPECTED_FAILURES) <= {c.name for c in CASES}


@pytest.mark.parametrize("opset", [None, 13, 21], ids=["default", "opset13", "opset21"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_exports_and_matches_eager(case, opset, tmp_path):
    target = case.layer_factory() if case.layer_factory else case.fn
    eager = [RUNNER.to_plain(target(*RUNNER.make_inputs(paddle, v))) for v in case.inputs]
    specs = [paddle.static.InputSpec(list(s), d) for s, d in case.input_spec]
    path = str(tmp_path / "model")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # a print in the function is left out on purpose
            paddle.onnx.export(paddle.jit.to_static(target, full_graph=True), path,
                               input_spec=specs, opset_version=opset)
    except Exception as e:  # noqa: BLE001
        if case.name in EXPECTED_FAILURES:
            return
        raise AssertionError(f"{case.name} does not export: {type(e).__name__}: {e}") from e
    assert case.name not in EXPECTED_FAILURES, f"{case.name} exports now: drop it from the list"
    onnx.checker.check_model(onnx.load(path + ".onnx"), full_check=True)
    for k, values in enumerate(case.inputs):
        got = onnx_outputs(path + ".onnx", *values)
        want = RUNNER.leaves(eager[k])
        assert len(got) == len(want), f"input set {k}: {len(got)} outputs, eager has {len(want)}"
        for j, ((tag, w), g) in enumerate(zip(want, got)):
            reason = RUNNER.compare((tag, w), ("tensor", np.asarray(g)), case.rtol, case.atol,
                                    f"input set {k}: output {j}")
            assert reason is None, reason
