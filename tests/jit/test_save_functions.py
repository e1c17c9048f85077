"""jit.save of a plain function or a to_static function that was never called: the input_spec
is enough, and output_spec picks outputs by position (Paddle 3) or by a returned Tensor."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec

SPEC = [InputSpec([None, 2], "float32", "x"), InputSpec([None, 2], "float32", "y")]


def three(x, y):
    return x + y, x * y, (x - y).sum()


def rows_kept(x, y):
    acc = []
    for r in x:
        if r.sum() > 1.0:
            acc.append(r * y[0])
        else:
            acc.append(r - 1.0)
    return paddle.stack(acc).sum(0), y * 2.0


def _inputs(rows):
    x = paddle.to_tensor(np.arange(rows * 2, dtype="float32").reshape(rows, 2) - 1.0)
    return x, paddle.to_tensor(np.full((rows, 2), 0.5, "float32"))


def _values(out):
    return [o.numpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


@pytest.mark.parametrize("wrap", [False, True], ids=["plain", "to_static"])
def test_saved_without_a_call_agrees_with_eager(tmp_path, wrap):
    fn = paddle.jit.to_static(rows_kept, input_spec=SPEC) if wrap else rows_kept
    prefix = str(tmp_path / "m")
    if wrap:
        paddle.jit.save(fn, prefix)         # the to_static input_spec is the signature
    else:
        paddle.jit.save(fn, prefix, input_spec=SPEC)
    loaded = paddle.jit.load(prefix)
    for rows in (1, 3):
        want = _values(rows_kept(*_inputs(rows)))
        got = _values(loaded(*_inputs(rows)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=f"rows={rows}")


@pytest.mark.parametrize("picks", [[1], [2, 0], [-1], [0, 1, 2], [2, 1, 0]])
def test_output_spec_positions_pick_and_order_outputs_without_a_call(tmp_path, picks):
    prefix = str(tmp_path / "m")
    paddle.jit.save(three, prefix, input_spec=SPEC, output_spec=picks)
    x, y = _inputs(3)
    want = _values(three(x, y))
    got = _values(paddle.jit.load(prefix)(x, y))
    assert len(got) == len(picks)
    for g, k in zip(got, picks):
        np.testing.assert_allclose(g, want[k], rtol=1e-6)


def test_output_spec_positions_of_a_to_static_function_not_called(tmp_path):
    sf = paddle.jit.to_static(three, input_spec=SPEC)
    prefix = str(tmp_path / "m")
    paddle.jit.save(sf, prefix, output_spec=[2])
    x, y = _inputs(2)
    np.testing.assert_allclose(paddle.jit.load(prefix)(x, y).numpy(), three(x, y)[2].numpy())


def test_output_spec_position_out_of_range_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"position 3, but the function returns 3 tensor"):
        paddle.jit.save(three, str(tmp_path / "m"), input_spec=SPEC, output_spec=[3])


@pytest.mark.parametrize("bad", ["x", 1.0, True])
def test_output_spec_of_another_type_is_refused(tmp_path, bad):
    with pytest.raises(TypeError, match=r"output_spec\[0\] is"):
        paddle.jit.save(three, str(tmp_path / "m"), input_spec=SPEC, output_spec=[bad])


def test_output_spec_tensor_without_a_call_asks_for_a_position(tmp_path):
    x, y = _inputs(3)
    eager_out = three(x, y)[1]          # an eager call's tensor names no converted output
    with pytest.raises(ValueError, match=r"never called: give the output's position"):
        paddle.jit.save(three, str(tmp_path / "m"), input_spec=SPEC, output_spec=[eager_out])


def test_output_spec_tensor_of_the_last_call_still_picks_it(tmp_path):
    sf = paddle.jit.to_static(three, input_spec=SPEC)
    x, y = _inputs(3)
    outs = sf(x, y)
    prefix = str(tmp_path / "m")
    paddle.jit.save(sf, prefix, output_spec=[outs[2], outs[0]])
    got = _values(paddle.jit.load(prefix)(x, y))
    np.testing.assert_allclose(got[0], outs[2].numpy(), rtol=1e-6)
    np.testing.assert_allclose(got[1], outs[0].numpy(), rtol=1e-6)
