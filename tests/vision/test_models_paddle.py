"""paddle.vision.models against PaddlePaddle 3.3.1 itself (skipped where Paddle is not
installed): the same configuration built in both, the same state dict keys and shapes in the
same order, the same builder signatures, and Paddle's randomly initialised weights (and
randomised batch-norm statistics) copied into dy2st's model give Paddle's eval-mode outputs."""
import inspect

import numpy as np
import pytest

import dy2st
from dy2st.vision import models

paddle = pytest.importorskip("paddle", reason="PaddlePaddle is not installed (reference only)")

# builder, its arguments, input size; the smallest configurations and images each allows
CHEAP = [
    ("alexnet", {"num_classes": 0}, 64),
    ("squeezenet1_0", {"num_classes": 10}, 48),
    ("squeezenet1_1", {"num_classes": 0, "with_pool": False}, 32),
    ("mobilenet_v1", {"scale": 0.25, "num_classes": 10}, 32),
    ("mobilenet_v3_small", {"scale": 0.5, "num_classes": 10}, 32),
    ("mobilenet_v3_large", {"scale": 0.35, "num_classes": 10}, 32),
    ("shufflenet_v2_x0_25", {"num_classes": 10}, 32),
    ("shufflenet_v2_swish", {"num_classes": 0}, 32),
]
HEAVY = [
    ("densenet121", {"num_classes": 10}, 32),
    ("googlenet", {"num_classes": 0}, 96),
    ("inception_v3", {"num_classes": 10}, 75),
]
# the full classifier heads need the design input size: minutes of numpy convolutions
FULL_HEADS = [
    ("alexnet", {"num_classes": 10}, 224),
    ("googlenet", {"num_classes": 10}, 192),
]


def build_pair(name, kwargs):
    """Paddle's model and dy2st's, both in eval mode, dy2st's holding Paddle's weights and
    random running statistics (so batch norm does more than scale by ~1)."""
    paddle.seed(0)
    theirs = getattr(paddle.vision.models, name)(**kwargs)
    ours = getattr(models, name)(**kwargs)
    rng = np.random.default_rng(0)
    state = {}
    for key, value in theirs.state_dict().items():
        array = value.numpy()
        if key.endswith("_variance"):
            array = rng.uniform(0.5, 1.5, array.shape).astype("float32")
        elif key.endswith("_mean"):
            array = rng.normal(0.0, 0.1, array.shape).astype("float32")
        state[key] = array
    theirs.set_state_dict(state)
    missing, unexpected = ours.set_state_dict(state)
    assert not missing and not unexpected
    theirs.eval()
    ours.eval()
    return theirs, ours


def assert_same_keys(theirs, ours):
    want = [(k, list(v.shape)) for k, v in theirs.state_dict().items()]
    got = [(k, list(v.shape)) for k, v in ours.state_dict().items()]
    assert got == want


def assert_same_outputs(theirs, ours, size):
    x = np.random.default_rng(1).standard_normal((2, 3, size, size)).astype("float32")
    want, got = theirs(paddle.to_tensor(x)), ours(dy2st.to_tensor(x))
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = w.numpy()
        assert list(g.shape) == list(w.shape)
        # GoogLeNet has no normalisation: its features reach ~1e2, so the absolute tolerance
        # scales with the output (float32 sums in a different order)
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-4,
                                   atol=1e-5 * max(1.0, float(np.abs(w).max())))


@pytest.mark.parametrize("name,kwargs,size", CHEAP, ids=[c[0] for c in CHEAP])
def test_keys_and_outputs_match_paddle(name, kwargs, size):
    theirs, ours = build_pair(name, kwargs)
    assert_same_keys(theirs, ours)
    assert_same_outputs(theirs, ours, size)


@pytest.mark.parametrize("name,kwargs,size", HEAVY, ids=[c[0] for c in HEAVY])
def test_keys_match_paddle(name, kwargs, size):
    paddle.seed(0)
    assert_same_keys(getattr(paddle.vision.models, name)(**kwargs),
                     getattr(models, name)(**kwargs))


@pytest.mark.slow
@pytest.mark.parametrize("name,kwargs,size", HEAVY + FULL_HEADS,
                         ids=[f"{c[0]}-{c[2]}" for c in HEAVY + FULL_HEADS])
def test_outputs_match_paddle_on_the_large_families(name, kwargs, size):
    theirs, ours = build_pair(name, kwargs)
    assert_same_outputs(theirs, ours, size)


def test_every_builder_has_paddles_signature():
    for name in paddle.vision.models.__all__:
        theirs = inspect.signature(getattr(paddle.vision.models, name))
        ours = inspect.signature(getattr(models, name))
        want = [(p.name, p.default) for p in theirs.parameters.values()]
        got = [(p.name, p.default) for p in ours.parameters.values()]
        assert got == want, name
    theirs = inspect.signature(paddle.vision.ops.ConvNormActivation)
    ours = inspect.signature(dy2st.vision.ops.ConvNormActivation)
    assert [(p.name, p.default) for p in ours.parameters.values()][:6] == \
        [(p.name, p.default) for p in theirs.parameters.values()][:6]


NEW_BUILDERS = ["alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
                "densenet264", "googlenet", "inception_v3", "mobilenet_v1", "mobilenet_v3_small",
                "mobilenet_v3_large", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33",
                "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
                "shufflenet_v2_x2_0", "shufflenet_v2_swish", "squeezenet1_0", "squeezenet1_1"]


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW_BUILDERS)
def test_every_builder_at_its_defaults_has_paddles_keys(name):
    paddle.seed(0)
    assert_same_keys(getattr(paddle.vision.models, name)(), getattr(models, name)())
