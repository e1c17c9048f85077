"""nn.initializer: value ranges and statistics, fan computation, determinism under dy2st.seed."""
import math

import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.nn import initializer as I


def make(init, shape, dtype="float32"):
    return nn.Layer().create_parameter(shape, dtype=dtype, default_initializer=init).numpy()


def test_constant():
    v = make(I.Constant(0.25), [3, 2], "float64")
    assert v.dtype == np.float64 and (v == 0.25).all()


def test_normal_statistics():
    v = make(I.Normal(mean=1.0, std=2.0), [200, 200])
    assert abs(v.mean() - 1.0) < 0.05 and abs(v.std() - 2.0) < 0.05
    assert v.dtype == np.float32


def test_truncated_normal_stays_within_two_std():
    v = make(I.TruncatedNormal(mean=0.0, std=1.0), [100, 100])
    assert np.abs(v).max() <= 2.0 and v.std() > 0.7


def test_uniform_range():
    v = make(I.Uniform(-0.5, 0.25), [100, 100])
    assert v.min() >= -0.5 and v.max() < 0.25
    assert v.min() < -0.45 and v.max() > 0.2
    with pytest.raises(ValueError, match="low"):
        I.Uniform(1.0, 0.0)


def test_xavier_uniform_limit_uses_fan_in_and_fan_out():
    v = make(I.XavierUniform(), [30, 70])
    limit = math.sqrt(6 / (30 + 70))
    assert np.abs(v).max() <= limit and np.abs(v).max() > 0.9 * limit


def test_xavier_normal_std():
    v = make(I.XavierNormal(), [300, 500])
    assert abs(v.std() - math.sqrt(2 / 800)) < 0.002


def test_kaiming_normal_and_uniform_use_fan_in():
    v = make(I.KaimingNormal(), [400, 300])
    assert abs(v.std() - math.sqrt(2 / 400)) < 0.003
    u = make(I.KaimingUniform(), [400, 300])
    limit = math.sqrt(2) * math.sqrt(3 / 400)
    assert np.abs(u).max() <= limit and np.abs(u).max() > 0.95 * limit


def test_compute_fans_for_conv_weights():
    assert I.compute_fans([8, 3, 5, 5]) == (75, 200)
    assert I.compute_fans([7]) == (7, 7)
    assert I.compute_fans([]) == (1, 1)


def test_assign_initializer_and_shape_check():
    v = make(I.Assign(np.arange(6).reshape(2, 3)), [2, 3])
    assert v.tolist() == [[0, 1, 2], [3, 4, 5]] and v.dtype == np.float32
    with pytest.raises(ValueError, match=r"shape \[2, 3\].*\[3, 2\]"):
        make(I.Assign(np.zeros((2, 3))), [3, 2])


def test_calling_an_initializer_fills_a_parameter_in_place():
    p = nn.Layer().create_parameter([2, 2])
    assert I.Constant(3.0)(p) is p
    assert (p.numpy() == 3.0).all()


@pytest.mark.parametrize("init", [I.Normal(), I.Uniform(), I.XavierUniform(), I.XavierNormal(),
                                  I.KaimingNormal(), I.TruncatedNormal()])
def test_seed_makes_initialization_deterministic(init):
    paddle.seed(42)
    a = make(init, [4, 5])
    b = make(init, [4, 5])
    paddle.seed(42)
    assert np.array_equal(make(init, [4, 5]), a)
    assert not np.array_equal(a, b)


def test_seed_makes_whole_models_reproducible():
    paddle.seed(9)
    first = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    paddle.seed(9)
    second = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    for (n1, p1), (n2, p2) in zip(first.named_parameters(), second.named_parameters()):
        assert n1 == n2 and np.array_equal(p1.numpy(), p2.numpy())


def test_calculate_gain():
    assert I.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert I.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert I.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    with pytest.raises(ValueError, match="unknown"):
        I.calculate_gain("nope")


def test_param_attr_forms():
    layer = nn.Layer()
    assert layer.create_parameter([1], attr="named").name == "named"
    assert (layer.create_parameter([2], attr=I.Constant(7.0)).numpy() == 7.0).all()
    with pytest.raises(TypeError, match="parameter attribute"):
        layer.create_parameter([1], attr=3.5)
