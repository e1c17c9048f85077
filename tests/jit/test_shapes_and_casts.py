"""Scenarios: shape arithmetic with unknown dims (InputSpec with None), x.shape[-1],
paddle.shape(x), reshape, slicing with tensor indices, len() of tensors and lists, and
int()/float()/bool() casts feeding control flow."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.support import randn as _rand


def _i(v):
    return np.array(v, dtype="int64")


def _vec1(v, dtype="int64"):
    return np.array([v], dtype=dtype)


# --- shapes with unknown dims -----------------------------------------------------------------

def reshape_with_shape_arith(x):
    b, t, d = x.shape
    y = paddle.reshape(x, [b * t, d])
    z = y.reshape([-1, t * d])
    return y.sum(axis=1), z


def test_reshape_with_unknown_batch_arith(check):
    spec = [InputSpec([None, 2, 3], "float32")]
    check(reshape_with_shape_arith, (_rand(1, 4, 2, 3),), (_rand(2, 1, 2, 3),), input_spec=spec)


def last_dim_and_paddle_shape(x):
    d = x.shape[-1]
    n = paddle.shape(x)[0]
    scale = paddle.cast(n, "float32") * d
    return x / scale, n


def test_shape_minus_one_and_paddle_shape(check):
    spec = [InputSpec([None, 4], "float32")]
    check(last_dim_and_paddle_shape, (_rand(3, 2, 4),), (_rand(4, 5, 4),), input_spec=spec)


def zeros_with_dynamic_shape(x):
    out = paddle.zeros([x.shape[0], x.shape[1] * 2], dtype="float32")
    out = out + paddle.concat([x, x], axis=1)
    return out


def test_creation_from_dynamic_shape_list(check):
    spec = [InputSpec([None, 3], "float32")]
    check(zeros_with_dynamic_shape, (_rand(5, 2, 3),), (_rand(6, 7, 3),), input_spec=spec)


def full_with_shape_tensor(x):
    s = paddle.shape(x)
    return paddle.full(s, 2.0, dtype="float32") * x, paddle.ones([s[0], 1], dtype="float32")


def test_full_with_shape_tensor(check):
    spec = [InputSpec([None, 3], "float32")]
    check(full_with_shape_tensor, (_rand(5, 2, 3),), (_rand(6, 4, 3),), input_spec=spec)


def loop_over_dynamic_batch_with_if(x):
    total = paddle.zeros([], dtype="float32")
    for i in range(x.shape[0]):
        if x[i].sum() > 0:
            total = total + x[i].sum()
        else:
            total = total - 1.0
    return total


def test_loop_over_unknown_batch_with_if(check, arr):
    spec = [InputSpec([None, 2], "float32")]
    check(loop_over_dynamic_batch_with_if, (arr([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]]),),
          (arr([[-1.0, -2.0]]),), input_spec=spec)


def shape_in_python_if_known(x):
    if x.shape[-1] == 4:
        return x.reshape([-1, 2, 2])
    return x.unsqueeze(0)


def test_python_if_on_known_last_dim(check):
    spec = [InputSpec([None, 4], "float32")]
    check(shape_in_python_if_known, (_rand(7, 3, 4),), (_rand(8, 1, 4),), input_spec=spec)


def ndim_size_numel(x):
    return x.ndim, x.size, paddle.numel(x), paddle.rank(x) if hasattr(paddle, "rank") else x.ndim


def test_ndim_size_numel_dynamic(check):
    spec = [InputSpec([None, 3], "float32")]
    check(ndim_size_numel, (_rand(9, 2, 3),), (_rand(10, 5, 3),), input_spec=spec)


def mean_over_dyn_batch_divide(x):
    return x.sum(axis=0) / x.shape[0]


def test_divide_by_unknown_dim(check):
    spec = [InputSpec([None, 3], "float32")]
    check(mean_over_dyn_batch_divide, (_rand(11, 2, 3),), (_rand(12, 5, 3),), input_spec=spec)


def expand_to_dynamic(x, y):
    return paddle.expand(y, [x.shape[0], y.shape[-1]]) + x


def test_expand_to_unknown_batch(check):
    spec = [InputSpec([None, 3], "float32"), InputSpec([1, 3], "float32")]
    check(expand_to_dynamic, (_rand(13, 2, 3), _rand(14, 1, 3)), (_rand(15, 6, 3), _rand(16, 1, 3)),
          input_spec=spec)


# --- slicing with tensor indices ---------------------------------------------------------------

def slice_with_tensor_bounds(x, start, end):
    return x[start:end], x[:, start]


def test_slice_with_tensor_start_end(check):
    x = _rand(17, 5, 4)
    check(slice_with_tensor_bounds, (x, _i(1), _i(3)), (x, _i(0), _i(5)), (x, _i(2), _i(2)))


def index_with_argmax(x):
    k = paddle.argmax(x.sum(axis=1))
    return x[k], x[k, 0]


def test_index_with_argmax_result(check):
    check(index_with_argmax, (_rand(18, 4, 3),), (_rand(19, 2, 3),))


def slice_negative_with_tensor_step_loop(x, n):
    out = paddle.zeros([x.shape[1]], dtype="float32")
    for i in range(n):
        out = out + x[-1 - i]
    return out


@pytest.mark.parametrize("n", [0, 1, 3])
def test_negative_index_from_loop_var(check, n):
    check(slice_negative_with_tensor_step_loop, (_rand(20, 4, 2), _i(n)))


def setitem_with_tensor_index(x, k):
    y = x.clone()
    y[k] = y[k] * 10.0
    y[:, 0] = -1.0
    return y


def test_setitem_with_tensor_index(check):
    check(setitem_with_tensor_index, (_rand(21, 3, 2), _i(0)), (_rand(22, 3, 2), _i(2)))


def bool_mask_index(x):
    return x[x > 0].sum(), paddle.masked_select(x, x < 0).sum()


def test_boolean_mask_indexing(check, arr):
    check(bool_mask_index, (arr([1.0, -2.0, 3.0]),), (arr([-1.0, -1.0]),))


def slice_1d_tensor_index(x, idx):
    return x[idx], paddle.gather(x, idx)


def test_index_by_int_tensor_vector(check):
    check(slice_1d_tensor_index, (_rand(23, 5, 2), np.array([0, 3], "int64")),
          (_rand(24, 5, 2), np.array([4], "int64")))


def ellipsis_none_slicing(x):
    return x[..., 1], x[:, None, :].shape[1], x[None].sum()


def test_ellipsis_and_none_slicing(check):
    check(ellipsis_none_slicing, (_rand(25, 2, 3),), (_rand(26, 4, 3),))


def slice_with_vec1_index(x, k):
    return x[k]


def test_index_with_shape1_tensor(check):
    check(slice_with_vec1_index, (_rand(27, 4, 2), _vec1(1)), (_rand(28, 4, 2), _vec1(3)))


# --- len() -----------------------------------------------------------------------------------

def len_tensor_dynamic(x):
    n = len(x)
    out = paddle.zeros([x.shape[1]], dtype="float32")
    for i in range(n):
        out = out + x[i] / n
    return out, n


def test_len_of_unknown_batch_tensor(check):
    spec = [InputSpec([None, 2], "float32")]
    check(len_tensor_dynamic, (_rand(29, 3, 2),), (_rand(30, 1, 2),), input_spec=spec)


def len_of_list_and_tensor_in_if(x):
    items = [x, x * 2.0]
    if len(items) == 2 and len(x) > 2:
        return x.sum() * len(items)
    return x.sum()


def test_len_python_list_and_tensor(check):
    check(len_of_list_and_tensor_in_if, (_rand(31, 3),), (_rand(32, 2),))


# --- int/float/bool casts -------------------------------------------------------------------

def int_cast_drives_python_range(x, n):
    k = int(n)
    out = x
    for _ in range(k):
        out = out * 2.0
    return out, k


def test_int_of_scalar_tensor_drives_range(check, arr):
    check(int_cast_drives_python_range, (arr([1.0]), _i(3)), (arr([1.0]), _i(0)))


def float_cast_in_condition(x):
    m = float(x.mean())
    if m > 0.5:
        y = x * m
    else:
        y = x - m
    return y


def test_float_cast_feeds_if(check, arr):
    check(float_cast_in_condition, (arr([1.0, 2.0]),), (arr([0.0, 0.1]),))


def casts_of_shape1_tensor(x, k):
    n = int(k)
    f = float(x[0:1])
    b = bool(k > 1)
    out = x * f + n
    if b:
        out = out * 2.0
    return out


def test_int_float_of_shape1_tensors(check, arr):
    check(casts_of_shape1_tensor, (arr([1.5, 2.0]), _vec1(3)), (arr([0.5, 2.0]), _vec1(1)))


def range_of_shape1_tensor(x, k):
    out = x
    for i in range(k):
        out = out + 1.0
    return out


def test_range_of_shape1_tensor(check, arr):
    check(range_of_shape1_tensor, (arr([1.0]), _vec1(3)), (arr([1.0]), _vec1(0)))


def bool_cast_combination(x, y):
    if bool(x.sum() > 0) and bool(y.sum() > 0):
        return x + y
    elif bool(x.sum() > 0) or bool(y.sum() > 0):
        return x - y
    return x * y


@pytest.mark.parametrize("sx,sy", [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)])
def test_bool_casts_in_elif_chain(check, sx, sy):
    check(bool_cast_combination, (_rand(33, 3, scale=0.1, shift=sx), _rand(34, 3, scale=0.1, shift=sy)))


def astype_and_cast(x):
    i = x.astype("int64")
    f = paddle.cast(i, "float32")
    b = paddle.cast(x > 0, "int32")
    if b.sum() > 1:
        f = f + 1.0
    return i, f, b


def test_astype_and_cast_chain(check, arr):
    check(astype_and_cast, (arr([1.5, 2.5, -1.0]),), (arr([-1.5, 0.5, -1.0]),))


def item_of_sum(x):
    v = x.sum().item()
    return v * 2


def test_item_in_converted_code(check, arr):
    check(item_of_sum, (arr([1.0, 2.0]),), (arr([3.0]),))


def len_of_tolist(x):
    return len(x.tolist())


def test_tolist_in_converted_code(check, arr):
    check(len_of_tolist, (arr([1.0, 2.0]),), (arr([3.0]),))


def numpy_in_condition(x):
    if paddle.mean(x).numpy() > 0.5:
        x = x - 1.0
    else:
        x = x + 1.0
    return x


def test_numpy_call_in_tensor_condition(check, arr):
    check(numpy_in_condition, (arr([1.0, 2.0]),), (arr([0.0, 0.1]),))


def int_cast_of_sum_in_while(x):
    i = 0
    while i < int(x.sum()):
        i += 1
    return i


def test_int_cast_in_while_condition(check, arr):
    check(int_cast_of_sum_in_while, (arr([1.0, 2.0]),), (arr([0.0]),))


# --- text and dict keys made from an unknown dim ------------------------------------------------
def _tag_scale(x):
    tag = f"{x.shape[0]}x{x.shape[1]}"
    return x * float(len(tag))


def _dim_key(x):
    seen = {x.shape[0]: 1.0}
    return x * seen.get(x.shape[0], -1.0)


@pytest.mark.parametrize("fn", [_tag_scale, _dim_key], ids=lambda f: f.__name__)
def test_text_or_keys_from_an_unknown_dim_are_never_the_symbols_name(fn):
    """An unknown dim is a Python int in eager code: with full_graph=False a function that
    formats it or keys a dict by it runs its line as Python once the batch dim varies (it gave
    len("var t_1 : int64[]") from the third call on); in one graph it is refused at that line."""
    static = paddle.jit.to_static(fn)
    for n in (2, 3, 1, 12):       # the third batch size makes the dim unknown (auto_dynamic)
        x = paddle.to_tensor(_rand(n, n, 3))
        x.stop_gradient = False
        np.testing.assert_allclose(static(x).numpy(), fn(x).numpy(), err_msg=f"batch {n}")
    one = paddle.jit.to_static(fn, input_spec=[InputSpec([None, 3], "float32")], full_graph=True)
    with pytest.raises(TypeError, match=r"is (formatted as text|used as a dict, set or Counter "
                                        r"key)") as info:
        one(paddle.to_tensor(_rand(0, 2, 3)))
    assert "x.shape[0]" in str(info.value) and __file__ in str(info.value)


def shapes_returned(x):
    e = x[:0]
    return e.sum(), e.shape, paddle.concat([e, x]).shape


def test_a_returned_unknown_dim_is_a_python_int(tmp_path):
    # audit round 5: once the batch dim is unknown (an InputSpec with None, or the third batch
    # size), `x.shape` returned from the function gave a 0-d tensor where eager code has an int
    spec = [InputSpec([None, 3], "float32")]
    static = paddle.jit.to_static(shapes_returned, input_spec=spec, full_graph=True)
    paddle.jit.save(static, str(tmp_path / "m"), input_spec=spec)
    loaded = paddle.jit.load(str(tmp_path / "m"))
    for n in (1, 4):
        x = paddle.to_tensor(np.ones((n, 3), "float32"))
        want = shapes_returned(x)
        for got in (static(x), loaded(x)):
            assert got[1] == want[1] == [0, 3]
            assert got[2] == want[2] == [n, 3] and all(type(d) is int for d in got[2])
