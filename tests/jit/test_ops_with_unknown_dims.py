"""API ops inside converted control flow with unknown dims (None in input_spec passed
to to_static, batch sizes varying in one run), other dtypes (int32 / int64 / float64 / bool inputs,
shape-[1] vs 0-d tensors), Python numbers computed from unknown dims; each also saved and loaded
in a fresh interpreter (tests/roundtrip.py)."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.static import InputSpec
from tests.roundtrip import RT, roundtrip_all
from tests.support import randn as r

F, D, I, I32, B = "float32", "float64", "int64", "int32", "bool"


def a(values, dtype=F):
    return np.asarray(values, dtype=dtype)


def spec(*pairs):
    return [InputSpec(list(s), dt) for s, dt in pairs]


# ---------------------------------------------------------------- dtypes
def f64_branch(x):
    if x.mean() > 0:
        y = x * 2.0
    else:
        y = x - 1
    return y, y.sum()


def int32_counter_loop(x, n):
    i = paddle.zeros([], dtype="int32")
    s = paddle.zeros_like(x)
    while i < n:
        s = s + x * i
        i += 1
    return s, i


def bool_input_predicate(x, m):
    if m.any():
        y = paddle.where(m, x, paddle.zeros_like(x))
    else:
        y = x + 1.0
    return y


def python_casts_out(x):
    return int(x.sum()), float(x.mean()), bool(x.max() > 0)


def vec1_predicate(x, k):
    if k > 2:
        x = x * k.astype("float32")
    return x


def int_floordiv_mod(x):
    if x.sum() > 10:
        y = x // 3
    else:
        y = x % 3
    return y


def test_float64_stays_float64_unknown_dim(check):
    check(f64_branch, (r(1, 3, dtype=D, shift=1.0),), (r(2, 4, dtype=D, shift=-1.0),),
          input_spec=spec(([None], D)))


def test_int32_counter_and_bound(check):
    check(int32_counter_loop, (a([1, 2, 3], I32), a(3, I32)), (a([4, 5, 6], I32), a(0, I32)))


def test_bool_tensor_input_as_predicate(check):
    check(bool_input_predicate, (r(3, 4), a([True, False, True, False], B)), (r(4, 4), a([False] * 4, B)))


def test_python_casts_returned_unknown_dim(check):
    check(python_casts_out, (r(5, 4, shift=1.0),), (r(6, 6, shift=-1.0),), input_spec=spec(([None], F)))


def test_shape1_int_predicate(check):
    check(vec1_predicate, (r(7, 3), a([3], I)), (r(8, 3), a([1], I)))


@pytest.mark.parametrize("dt", [I, I32])
def test_int_floordiv_and_mod_in_branches(check, dt):
    check(int_floordiv_mod, (a([5, 6, 7], dt),), (a([1, 2, -4], dt),))


def f64_python_float_accumulator(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x.sum() * 0.5
    return acc


def test_python_float_promoted_by_float64_tensor_loop(check):
    check(f64_python_float_accumulator, (r(9, 3, dtype=D), a(2, I)), (r(10, 3, dtype=D), a(0, I)))


def f64_python_float_in_while(x):
    total = 0.0
    while total < 5.0:
        total = total + x.abs().sum()
    return total


def test_python_float_promoted_by_float64_tensor_while(check):
    check(f64_python_float_in_while, (r(11, 3, dtype=D),), (r(12, 3, dtype=D, scale=10.0),))


def f64_python_float_in_if(x):
    acc = 0.0
    if x.sum() > 0:
        acc = x.sum() * 2.0
    return acc


def test_python_float_or_float64_tensor_from_if(check):
    check(f64_python_float_in_if, (r(13, 3, dtype=D, shift=1.0),), (r(14, 3, dtype=D, shift=-1.0),))


# ---------------------------------------------------------------- ops with unknown dims
def reshape_zero_minus1(x):
    if x.mean() > 0:
        y = paddle.reshape(x, [0, -1])
    else:
        y = x.reshape([0, 2, -1]).sum(axis=1)
    return y


def concat_grows_in_loop(x, n):
    out = x
    for i in range(n):
        out = paddle.concat([out, x * i], axis=1)
    return out.sum(axis=1)


def split_unbind_chunk(x):
    p, q = paddle.split(x, 2, axis=1)
    if p.sum() > q.sum():
        c = paddle.unbind(x, axis=1)
        y = c[0] + c[-1]
    else:
        u, v = paddle.chunk(x, 2, axis=-1)
        y = (u - v).sum(axis=1)
    return y


def split_sections(x):
    p, q, s = paddle.split(x, [1, 2, -1], axis=1)
    if p.mean() > 0:
        return q * 2.0, s
    return q, s * 2.0


def gather_in_loop(x, idx, n):
    acc = paddle.zeros([x.shape[1]], dtype=x.dtype)
    for i in range(n):
        acc = acc + paddle.gather(x, idx).sum(axis=0)
    return acc


def index_select_where(x, idx):
    y = paddle.index_select(x, idx, axis=0)
    if (y > 0).any():
        y = paddle.where(y > 0, y, -y)
    return y


def cumsum_topk(x):
    c = paddle.cumsum(x, axis=-1)
    v, i = paddle.topk(c, k=2)
    if v.sum() > 0:
        return v, i
    return -v, i + 1


def argmax_in_condition(x):
    k = paddle.argmax(x)
    if k > 2:
        out = x[k]
    else:
        out = x[0] - 1.0
    return out, k


def negative_steps(x):
    if x.sum() > 0:
        y = x[::-1]
    else:
        y = x[:, ::-2]
    return y


def setitem_mask(x):
    y = x.clone()
    if y.mean() > 0:
        y[y < 0] = 0.0
    else:
        y[y > 0] = 1.0
    return y


def setitem_tensor_index_loop(x, k):
    y = paddle.zeros_like(x)
    j = paddle.zeros([], dtype="int64")
    while j < k:
        y[j] = x[j] + 1.0
        j += 1
    return y


def expand_tile_broadcast(x):
    b = x.shape[0]
    m = x.mean(axis=0, keepdim=True)
    if m.sum() > 0:
        y = m.expand([b, 3]) + paddle.tile(m, [b, 1])
    else:
        y = paddle.broadcast_to(m, x.shape) * 2.0
    return y


def stack_rows_loop(x):
    rows = []
    for i in range(x.shape[0]):
        if x[i].sum() > 0:
            rows.append(x[i])
        else:
            rows.append(-x[i])
    return paddle.stack(rows)


def masked_select_count(x):
    m = paddle.masked_select(x, x > 0)
    if m.shape[0] > 0:
        return m.sum()
    return paddle.zeros([], dtype=x.dtype)


def dim_numbers(x):
    n = x.shape[0]
    return n / 2, n // 2, n * 1.5, n % 2, -n, n ** 2, abs(n - 5), n == 3, n > 2, float(n), int(n)


def count_rows(x):
    count = 0
    for i in range(x.shape[0]):
        if x[i].sum() > 0:
            count += 1
    return count


def slice_by_tensor(x, n):
    y = x[:n]
    if y.shape[0] > 1:
        y = y * 2.0
    return y, y.sum()


def shape_tensor_while(x):
    s = paddle.shape(x)
    i = 0
    acc = paddle.zeros([], dtype="int64")
    while i < s[0]:
        acc = acc + s[1] * i
        i += 1
    return acc, s


def reshape_from_unpacked_shape(x):
    b, d = x.shape
    y = x
    for _ in range(2):
        y = y.reshape([b, 2, d // 2]).transpose([0, 2, 1]).reshape([b, -1])
    return y


OPS = [
    ("reshape_zero_minus1", reshape_zero_minus1, [([None, 4], F)], [(r(20, 2, 4, shift=1.0),), (r(21, 3, 4, shift=-1.0),)]),
    ("concat_grows_in_loop", concat_grows_in_loop, [([None, 3], F), ([], I)], [(r(22, 2, 3), a(2, I)), (r(23, 3, 3), a(0, I))]),
    ("split_unbind_chunk", split_unbind_chunk, [([None, 4], F)], [(r(24, 2, 4),), (r(25, 3, 4),), (r(26, 1, 4),)]),
    ("split_sections", split_sections, [([None, 5], F)], [(r(27, 2, 5, shift=1.0),), (r(28, 3, 5, shift=-1.0),)]),
    ("gather_in_loop", gather_in_loop, [([None, 3], F), ([2], I), ([], I)],
     [(r(29, 4, 3), a([0, 2], I), a(2, I)), (r(30, 5, 3), a([1, 1], I), a(0, I))]),
    ("index_select_where", index_select_where, [([None, 3], F), ([None], I)],
     [(r(31, 4, 3), a([0, 2, 3], I)), (r(32, 5, 3, shift=-5.0), a([1], I))]),
    ("cumsum_topk", cumsum_topk, [([None, 5], F)], [(r(33, 3, 5, shift=1.0),), (r(34, 2, 5, shift=-1.0),)]),
    ("argmax_in_condition", argmax_in_condition, [([5], F)], [(a([0., 1, 2, 5, 1]),), (a([9., 1, 2, 5, 1]),)]),
    ("negative_steps", negative_steps, [([None, None], F)], [(r(35, 3, 4, shift=1.0),), (r(36, 2, 5, shift=-1.0),)]),
    ("setitem_mask", setitem_mask, [([None, 4], F)], [(r(37, 3, 4, shift=1.0),), (r(38, 2, 4, shift=-1.0),)]),
    ("setitem_tensor_index_loop", setitem_tensor_index_loop, [([None, 3], F), ([], I)],
     [(r(39, 4, 3), a(2, I)), (r(40, 5, 3), a(0, I)), (r(41, 5, 3), a(5, I))]),
    ("expand_tile_broadcast", expand_tile_broadcast, [([None, 3], F)], [(r(42, 3, 3, shift=1.0),), (r(43, 2, 3, shift=-1.0),)]),
    ("stack_rows_loop", stack_rows_loop, [([None, 3], F)], [(r(44, 3, 3),), (r(45, 5, 3),)]),
    ("masked_select_count", masked_select_count, [([None], F)], [(r(46, 5),), (r(47, 4, shift=-9.0),)]),
    ("dim_numbers", dim_numbers, [([None, 2], F)], [(r(48, 3, 2),), (r(49, 5, 2),)]),
    ("count_rows", count_rows, [([None, 2], F)], [(r(50, 3, 2),), (r(51, 6, 2),)]),
    ("slice_by_tensor", slice_by_tensor, [([None, 3], F), ([], I)], [(r(52, 5, 3), a(2, I)), (r(53, 5, 3), a(1, I))]),
    ("shape_tensor_while", shape_tensor_while, [([None, None], F)], [(r(54, 2, 3),), (r(55, 4, 5),)]),
    ("reshape_from_unpacked_shape", reshape_from_unpacked_shape, [([None, 4], F)], [(r(56, 2, 4),), (r(57, 5, 4),)]),
]


@pytest.mark.parametrize("name,fn,specs,inputs", OPS, ids=[o[0] for o in OPS])
def test_op_with_unknown_dims_in_to_static(check, name, fn, specs, inputs):
    check(fn, *inputs, input_spec=spec(*specs))


MODELS = [RT(name, (lambda fn=fn: fn), specs, inputs) for name, fn, specs, inputs in OPS] + [
    RT("f64_branch", lambda: f64_branch, [([None], D)], [(r(60, 3, dtype=D, shift=1.0),), (r(61, 4, dtype=D, shift=-1.0),)]),
    RT("int32_counter_loop", lambda: int32_counter_loop, [([3], I32), ([], I32)],
       [(a([1, 2, 3], I32), a(3, I32)), (a([4, 5, 6], I32), a(0, I32))]),
    RT("bool_input_predicate", lambda: bool_input_predicate, [([4], F), ([4], B)],
       [(r(62, 4), a([True, False, True, False], B)), (r(63, 4), a([False] * 4, B))]),
    RT("python_casts_out", lambda: python_casts_out, [([None], F)], [(r(64, 4, shift=1.0),), (r(65, 6, shift=-1.0),)]),
    RT("vec1_predicate", lambda: vec1_predicate, [([3], F), ([1], I)], [(r(66, 3), a([3], I)), (r(67, 3), a([1], I))]),
    RT("int32_floordiv_mod", lambda: int_floordiv_mod, [([3], I32)], [(a([5, 6, 7], I32),), (a([1, 2, -4], I32),)]),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return roundtrip_all(MODELS, tmp_path_factory.mktemp("rt_scen3_ops"))


@pytest.mark.parametrize("name", [m.name for m in MODELS])
def test_roundtrip(results, name):
    assert results[name] is None, results[name]
