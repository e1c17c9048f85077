"""tools/api_coverage.py: it runs, its figures add up against Paddle's real name lists, stubs do
not count, every name issue 13 asks for exists, and the coverage targets are met."""
import subprocess
import sys
from pathlib import Path

import pytest

import dy2st as paddle
from tools import api_coverage
from tools.paddle_api_names import EXCLUDED, ISSUE_13, NAMESPACES, REASONS, SOURCES
from tools.paddle_api_names_331 import NAMES, PADDLE_VERSION

ROOT = Path(__file__).resolve().parent.parent

# issue-13 names that other branches add (RNN / Transformer layers, attention, losses); this set
# may only shrink.
OWNED_ELSEWHERE = {}


def test_the_script_prints_every_namespace():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "api_coverage.py"), "--missing"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for ns in NAMESPACES:
        assert ns in out
    assert "issue 13 names missing" in out


@pytest.fixture(scope="module")
def coverage():
    """measure() once for the module: it looks up every listed name (about a second)."""
    return api_coverage.measure()


@pytest.fixture(scope="module")
def figures(coverage):
    return {c.namespace: c.percent for c in coverage}


def test_figures_add_up_and_only_missing_names_are_excluded(coverage):
    for c in coverage:
        assert len(c.have) + len(c.missing) == c.total
        assert not set(c.have) & set(c.missing)
        assert not set(c.missing) & set(EXCLUDED)
        # an excluded name dy2st has counts: the exclusion excuses only its absence
        assert not set(c.excluded) & set(c.have)
        for name in c.have:
            assert api_coverage.has_name(c.namespace, name)


def test_every_exclusion_has_a_one_word_reason_category():
    assert EXCLUDED and set(EXCLUDED.values()) <= set(REASONS)
    assert all(len(category.split()) == 1 for category in REASONS)
    # the issue's rules: hardware, distributed, sparse, complex, float8/bfloat16, autocast
    for name, category in [("CUDAPlace", "device"), ("DataParallel", "distributed"),
                           ("to_sparse_coo", "sparse"), ("float8_e5m2", "dtype"),
                           ("float8_e4m3fn", "dtype"), ("bfloat16", "dtype"),
                           ("ProcessMesh", "distributed"), ("ipc_collect", "device")]:
        assert EXCLUDED[name] == category


def test_every_list_names_its_source():
    assert set(SOURCES) == set(NAMESPACES)
    assert PADDLE_VERSION == "3.3.1" and all("3.3.1" in SOURCES[ns] for ns in NAMES)
    # the 3.3.1 counts (an installed paddle 3.3.1 gives these __all__ lengths)
    assert {ns: len(NAMES[ns]) for ns in ("paddle.amp", "paddle.autograd", "paddle.vision",
                                          "paddle.vision.transforms", "paddle.vision.models",
                                          "paddle.vision.datasets")} == {
        "paddle.amp": 9, "paddle.autograd": 7, "paddle.vision": 3,
        "paddle.vision.transforms": 38, "paddle.vision.models": 51, "paddle.vision.datasets": 8}
    # the corrected lists are Paddle's, not the shorter ones written from memory
    assert len(NAMESPACES["paddle.nn"]) == 179
    assert len(NAMESPACES["paddle.nn.functional"]) >= 130
    assert len(NAMESPACES["paddle"]) >= 480
    assert len(NAMESPACES["Tensor methods"]) >= 480


def _stub(x, y=None):
    """A placeholder."""
    raise NotImplementedError("later")


class _StubLayer:
    def __init__(self):
        pass

    def forward(self, x):
        raise NotImplementedError


def test_placeholders_do_not_count_as_present():
    assert api_coverage.is_stub(_stub)
    assert api_coverage.is_stub(_StubLayer)
    assert not api_coverage.is_stub(paddle.add)
    assert not api_coverage.is_stub(paddle.nn.Linear)
    assert not api_coverage.is_stub(paddle.nn.Layer)   # Paddle's own abstract base


def test_issue_13_names_are_present():
    gaps = api_coverage.missing_issue_names()
    for ns, names in gaps.items():
        unexpected = set(names) - OWNED_ELSEWHERE.get(ns, set())
        assert not unexpected, f"{ns} lacks {sorted(unexpected)}"


def test_issue_13_names_outside_the_lists():
    assert callable(paddle.tensor.fill_constant)
    assert callable(paddle.utils.map_structure)
    assert callable(paddle.static.accuracy)
    assert callable(paddle.metric.accuracy) and isinstance(paddle.metric.Accuracy, type)
    assert all(ISSUE_13[ns] for ns in ISSUE_13)


def test_tensor_top_level_and_functional_targets_are_met(figures):
    assert figures["paddle"] >= 70.0
    assert figures["Tensor methods"] >= 60.0
    assert figures["paddle.nn.functional"] >= 80.0


def test_optimizers_present_and_not_placeholders(figures):
    for name in ["SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "Adamax", "Adadelta",
                 "Lamb", "Rprop"]:
        assert api_coverage.has_name("paddle.optimizer", name), name
    assert figures["paddle.optimizer"] >= 66.0


def test_nn_target_is_met(figures):
    assert figures["paddle.nn"] >= 85.0


# Per-namespace floors against Paddle 3.3.1's lists, at where dy2st stands today (the issue's
# target is 95 %; every namespace meets it). A floor may only go up.
FLOORS = {"paddle": 100.0, "paddle.nn": 100.0, "paddle.nn.functional": 100.0,
          "paddle.linalg": 100.0, "paddle.amp": 100.0, "paddle.autograd": 100.0,
          "paddle.device": 100.0,
          "paddle.static": 100.0, "paddle.static.nn": 100.0, "paddle.incubate.nn": 100.0,
          "paddle.fft": 100.0, "paddle.tensor": 100.0, "paddle.vision": 100.0,
          "paddle.vision.ops": 100.0, "paddle.vision.transforms": 100.0,
          "paddle.vision.models": 100.0, "paddle.vision.datasets": 100.0,
          "paddle.distributed": 100.0, "Tensor methods": 100.0}


def test_issue_30_namespace_floors_are_met(figures):
    for ns, floor in FLOORS.items():
        assert figures[ns] >= floor, (ns, figures[ns])


def test_linalg_diagonal_is_paddles_diagonal():
    import numpy as np
    x = np.arange(24.0).reshape(2, 3, 4)
    got = paddle.linalg.diagonal(paddle.to_tensor(x), offset=1, axis1=1, axis2=2).numpy()
    np.testing.assert_array_equal(got, np.diagonal(x, offset=1, axis1=1, axis2=2))
