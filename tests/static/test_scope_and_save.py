"""paddle.static.global_scope / scope_guard / name_scope, create_global_var / create_parameter,
and static.save / static.load of a program's parameters and other persistables."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import randn


def _program():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [None, 4], "float32")
        h = paddle.static.nn.fc(x, 3)
        out = paddle.static.nn.batch_norm(h)
    return main, out


def test_global_scope_reads_and_writes_program_values():
    main, out = _program()
    name = next(iter(main.persistables))
    with paddle.static.program_guard(main):
        var = paddle.static.global_scope().find_var(name)
        t = var.get_tensor()
        np.testing.assert_array_equal(np.array(t), main.persistables[name].numpy())
        t.set(np.ones(t.shape(), "float32"), paddle.CPUPlace())
    np.testing.assert_array_equal(main.persistables[name].numpy(), np.ones(t.shape(), "float32"))
    assert paddle.static.global_scope().find_var("no_such_var") is None


def test_scope_guard_switches_scopes():
    mine = paddle.static.Scope()
    with paddle.static.scope_guard(mine):
        assert paddle.static.global_scope() is mine
        mine.var("counter").get_tensor()
        assert mine.find_var("counter") is not None
    assert paddle.static.global_scope() is not mine
    with pytest.raises(TypeError, match="paddle.static.Scope"):
        with paddle.static.scope_guard(object()):
            pass


def test_name_scope_nests():
    from dy2st.static.scope import current_name_scope
    with paddle.static.name_scope("encoder"):
        with paddle.static.name_scope("layer1"):
            assert current_name_scope() == "encoder/layer1"
    assert current_name_scope() == ""


def test_create_global_var_and_parameter():
    g = paddle.static.create_global_var([2, 3], 1.5, "float32", persistable=True, name="lr_var")
    assert g.name == "lr_var" and g.persistable
    np.testing.assert_array_equal(g.numpy(), np.full((2, 3), 1.5, "float32"))
    p = paddle.static.create_parameter([3, 2], "float32", name="w_static")
    assert p.shape == [3, 2] and not p.stop_gradient and p.name == "w_static"
    assert len(paddle.static.cpu_places(2)) == 2
    with pytest.raises(ValueError, match="non-negative ints"):
        paddle.static.create_global_var([-1], 0.0, "float32")


def test_save_and_load_round_trip(tmp_path):
    main, out = _program()
    exe = paddle.static.Executor()
    a = randn(0, 6, 4)
    exe.run(main, feed={"x": a}, fetch_list=[out])        # running statistics move
    before = {n: t.numpy().copy() for n, t in main.persistables.items()}
    path = str(tmp_path / "static_model")
    paddle.static.save(main, path)
    for t in main.persistables.values():
        t.set_value(np.zeros(t.shape, "float32"))
    paddle.static.load(main, path, exe)
    for n, t in main.persistables.items():
        np.testing.assert_array_equal(t.numpy(), before[n])
    state = paddle.static.load_program_state(path)
    assert set(state) == set(before)
    assert any(n.endswith("_mean") for n in state)
    with pytest.raises(FileNotFoundError, match="static.save"):
        paddle.static.load(main, str(tmp_path / "missing"))
