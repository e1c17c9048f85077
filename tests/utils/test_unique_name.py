"""paddle.utils.unique_name: generate, switch and guard over the names layers and parameters get."""
import pytest

import dy2st as paddle
from dy2st.utils import unique_name


def test_generate_counts_per_key():
    with unique_name.guard():
        assert [unique_name.generate("fc") for _ in range(3)] == ["fc_0", "fc_1", "fc_2"]
        assert unique_name.generate("conv") == "conv_0"


def test_guard_gives_two_models_the_same_parameter_names():
    with unique_name.guard():
        a = paddle.nn.Sequential(paddle.nn.Linear(2, 3), paddle.nn.Linear(3, 1))
    with unique_name.guard():
        b = paddle.nn.Sequential(paddle.nn.Linear(2, 3), paddle.nn.Linear(3, 1))
    names_a = [p.name for p in a.parameters()]
    assert names_a == [p.name for p in b.parameters()]
    assert names_a[0] == "linear_0.w_0" and names_a[2] == "linear_1.w_0"


def test_guard_restores_the_outer_counters():
    with unique_name.guard():
        unique_name.generate("k")
        with unique_name.guard():
            assert unique_name.generate("k") == "k_0"
        assert unique_name.generate("k") == "k_1"


def test_guard_with_a_prefix_and_switch():
    with unique_name.guard("net1_"):
        assert unique_name.generate("fc") == "net1_fc_0"
    old = unique_name.switch(unique_name.UniqueNameGenerator("p/"))
    try:
        assert unique_name.generate("w") == "p/w_0"
    finally:
        unique_name.switch(old)
    with pytest.raises(TypeError, match="new_generator"):
        with unique_name.guard(3):
            pass
