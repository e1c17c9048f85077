"""The program cache key covers every argument however it is passed (positional, keyword,
default), and a spec's unknown dims are never specialised to the first call's value."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec


def rows_times_k(x, k=2):
    out = []
    for r in x:
        out.append(r * k)
    return paddle.stack(out).sum(axis=0)


def rows_times_kwonly(x, *, k=2):
    out = []
    for r in x:
        out.append(r * k)
    return paddle.stack(out).sum(axis=0)


def ones(rows):
    return paddle.to_tensor(np.ones([rows, 4], np.float32))


SPEC = [InputSpec([None, 4], "float32")]


def test_keyword_argument_does_not_reuse_another_batch_size():
    sf = paddle.jit.to_static(rows_times_k, input_spec=SPEC)
    np.testing.assert_allclose(sf(ones(1), k=1).numpy(), np.full(4, 1.0))
    np.testing.assert_allclose(sf(ones(3), k=1).numpy(), np.full(4, 3.0))
    np.testing.assert_allclose(sf(ones(5), k=3).numpy(), np.full(4, 15.0))


@pytest.mark.parametrize("call", [
    lambda sf, x: sf(x, 2), lambda sf, x: sf(x, k=2), lambda sf, x: sf(x),
    lambda sf, x: sf(x=x, k=2), lambda sf, x: sf(k=2, x=x)])
def test_every_way_of_passing_an_argument_gives_the_eager_result(call):
    sf = paddle.jit.to_static(rows_times_k, input_spec=SPEC)
    for rows in (1, 3, 2):
        np.testing.assert_allclose(call(sf, ones(rows)).numpy(),
                                   rows_times_k(ones(rows), 2).numpy())


def test_same_call_written_differently_shares_one_program():
    sf = paddle.jit.to_static(rows_times_k, input_spec=SPEC)
    sf(ones(1), 2)
    sf(ones(2), k=2)
    sf(ones(3))
    sf(x=ones(4))
    assert sf.num_programs == 1
    np.testing.assert_allclose(sf(ones(4), k=5).numpy(), np.full(4, 20.0))
    assert sf.num_programs == 2


def test_changed_default_is_part_of_the_key():
    def scale(x, k=2):
        return x * k
    sf = paddle.jit.to_static(scale)
    np.testing.assert_allclose(sf(ones(1)).numpy(), np.full([1, 4], 2.0))
    scale.__defaults__ = (7,)
    np.testing.assert_allclose(sf(ones(1)).numpy(), np.full([1, 4], 7.0))


def test_keyword_only_arguments_with_a_spec():
    sf = paddle.jit.to_static(rows_times_kwonly, input_spec=SPEC)
    for rows, k in ((1, 2), (3, 2), (3, 1), (2, 1), (4, 3)):
        np.testing.assert_allclose(sf(ones(rows), k=k).numpy(), np.full(4, float(rows * k)))
    np.testing.assert_allclose(sf(ones(6)).numpy(), np.full(4, 12.0))


def test_tensor_nested_in_a_list_is_not_keyed_by_the_spec():
    def first_rows(x, extra):
        out = []
        for r in x:
            out.append(r + extra[0].sum())
        return paddle.stack(out).sum(axis=0)
    sf = paddle.jit.to_static(first_rows, input_spec=SPEC)
    for rows in (1, 3):
        got = sf(ones(rows), [ones(2)])
        np.testing.assert_allclose(got.numpy(), np.full(4, rows * 9.0))


def test_layer_forward_with_a_keyword_argument():
    class Rows(paddle.nn.Layer):
        def forward(self, x, k=2):
            out = []
            for r in x:
                out.append(r * k)
            return paddle.stack(out).sum(axis=0)
    net = paddle.jit.to_static(Rows(), input_spec=SPEC)
    for rows in (1, 3, 2):
        np.testing.assert_allclose(net(ones(rows), k=1).numpy(), np.full(4, float(rows)))


def test_bad_call_is_a_type_error_naming_the_function():
    sf = paddle.jit.to_static(rows_times_k, input_spec=SPEC)
    with pytest.raises(TypeError, match="rows_times_k"):
        sf(ones(1), kk=3)
