"""Shape ops (reshape .. tile, slicing and splitting): eager vs numpy, static vs eager."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import run_static


def build(fn, *shapes):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        return fn(*[paddle.static.data(f"x{i}", s, "float32") for i, s in enumerate(shapes)])


def as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def check(fn, ref, *arrays, unknown=True):
    eager = as_list(fn(*[paddle.to_tensor(a) for a in arrays]))
    expected = as_list(ref(*arrays))
    assert len(eager) == len(expected)
    for e, r in zip(eager, expected):
        r = np.asarray(r)
        assert e.shape == list(r.shape) and e.dtype == str(r.dtype), (e.shape, r.shape)
        np.testing.assert_array_equal(e.numpy(), r)
    variants = [None] + ([[[None] * a.ndim for a in arrays]] if unknown else [])
    for shapes in variants:
        static = as_list(run_static(fn, *arrays, shapes=shapes))
        for s, e in zip(static, eager):
            assert s.dtype == e.numpy().dtype
            np.testing.assert_array_equal(s, e.numpy())


X = np.arange(24, dtype="float32").reshape(2, 3, 4)

SHAPE_OPS = [
    ("reshape", lambda x: paddle.reshape(x, [4, -1]), lambda a: a.reshape(4, -1)),
    ("reshape0", lambda x: paddle.reshape(x, [0, -1]), lambda a: a.reshape(2, -1)),
    ("flatten", lambda x: paddle.flatten(x), lambda a: a.reshape(-1)),
    ("flatten12", lambda x: paddle.flatten(x, 1, 2), lambda a: a.reshape(2, 12)),
    ("unsqueeze", lambda x: paddle.unsqueeze(x, [0, -1]), lambda a: a[None, ..., None]),
    ("squeeze", lambda x: paddle.squeeze(paddle.unsqueeze(x, 1), 1), lambda a: a),
    ("transpose", lambda x: paddle.transpose(x, [2, 0, 1]), lambda a: a.transpose(2, 0, 1)),
    ("t", lambda x: paddle.t(x[0]), lambda a: a[0].T),
    ("concat", lambda x: paddle.concat([x, x], axis=1), lambda a: np.concatenate([a, a], 1)),
    ("stack", lambda x: paddle.stack([x, x], axis=-1), lambda a: np.stack([a, a], -1)),
    ("expand", lambda x: paddle.expand(x[:, :1], [2, 5, 4]),
     lambda a: np.broadcast_to(a[:, :1], (2, 5, 4))),
    ("broadcast_to", lambda x: paddle.broadcast_to(x[0, 0], [3, 4]),
     lambda a: np.broadcast_to(a[0, 0], (3, 4))),
    ("expand_as", lambda x: paddle.expand_as(x[:1], x), lambda a: np.broadcast_to(a[:1], a.shape)),
    ("tile", lambda x: paddle.tile(x, [1, 2, 1]), lambda a: np.tile(a, [1, 2, 1])),
    ("tile_more", lambda x: paddle.tile(x[0, 0], [2, 3]), lambda a: np.tile(a[0, 0], [2, 3])),
    ("flip", lambda x: paddle.flip(x, [0, 2]), lambda a: np.flip(a, (0, 2))),
    ("flip_int", lambda x: paddle.flip(x, -1), lambda a: np.flip(a, -1)),
    ("roll", lambda x: paddle.roll(x, 2), lambda a: np.roll(a, 2)),
    ("roll_axes", lambda x: paddle.roll(x, [1, -1], [0, 2]), lambda a: np.roll(a, [1, -1], (0, 2))),
    ("slice", lambda x: paddle.slice(x, [1, 2], [1, -3], [3, 100]), lambda a: a[:, 1:3, -3:]),
    ("slice_clamp", lambda x: paddle.slice(x, [0], [-10], [1]), lambda a: a[-10:1]),
    ("strided_slice", lambda x: paddle.strided_slice(x, [2], [0], [4], [2]), lambda a: a[..., 0:4:2]),
    ("strided_neg", lambda x: paddle.strided_slice(x, [1, 2], [2, 3], [0, 0], [-1, -2]),
     lambda a: a[:, 2:0:-1, 3:0:-2]),
    ("getitem", lambda x: x[1, ::2, None, -1], lambda a: a[1, ::2, None, -1]),
]


@pytest.mark.parametrize("name,fn,ref", SHAPE_OPS, ids=[s[0] for s in SHAPE_OPS])
def test_shape_ops(name, fn, ref):
    check(fn, ref, X)


SPLITS = [
    ("split_num", lambda x: paddle.split(x, 2, axis=0), lambda a: np.split(a, 2, 0)),
    ("split_sections", lambda x: paddle.split(x, [1, 3], axis=-1), lambda a: np.split(a, [1], -1)),
    ("split_minus1", lambda x: paddle.split(x, [2, -1, 1], axis=2), lambda a: np.split(a, [2, 3], 2)),
    ("chunk", lambda x: paddle.chunk(x, 3, axis=1), lambda a: np.split(a, 3, 1)),
    ("unbind", lambda x: paddle.unbind(x, axis=1), lambda a: [a[:, i] for i in range(3)]),
    ("method_split", lambda x: x.split(4, axis=2), lambda a: np.split(a, 4, 2)),
]


@pytest.mark.parametrize("name,fn,ref", SPLITS, ids=[s[0] for s in SPLITS])
def test_split_family(name, fn, ref):
    check(fn, ref, X, unknown=False)
    # an unknown dim elsewhere does not matter
    static = run_static(fn, X, shapes=[[-1, 3, 4] if name != "split_num" else [2, -1, -1]])
    for s, r in zip(static, ref(X)):
        np.testing.assert_array_equal(s, r)


def test_split_unknown_split_dim():
    pieces = build(lambda x: paddle.split(x, [2, -1], axis=0), [-1, 3])
    assert [p._shape for p in pieces] == [(2, 3), (-1, 3)]
    out = run_static(lambda x: paddle.split(x, [2, -1], axis=0), X[0], shapes=[[None, 4]])
    np.testing.assert_array_equal(out[1], X[0][2:])
    out = run_static(lambda x: paddle.split(x, 2, axis=1), X[0][:, :4], shapes=[[3, None]])
    np.testing.assert_array_equal(out[0], X[0][:, :2])


def test_split_errors_name_the_shape():
    with pytest.raises(ValueError, match=r"split.*\[2, 3, 4\]"):
        paddle.split(paddle.to_tensor(X), 2, axis=1)
    with pytest.raises(ValueError, match=r"split.*\[3, 6\]"):
        build(lambda x: paddle.split(x, [1, 2], axis=1), [3, 6])
    with pytest.raises(ValueError, match="unbind"):
        build(lambda x: paddle.unbind(x, 0), [-1, 6])


def test_slice_with_tensor_bounds():
    def fn(x, s):
        return paddle.slice(x, [1], [s], [s + 2])
    out = run_static(fn, X, np.array(1, "int64"), shapes=[[None, 3, 4], []])
    np.testing.assert_array_equal(out, X[:, 1:3])
    eager = fn(paddle.to_tensor(X), paddle.to_tensor(np.array(1, "int64")))
    np.testing.assert_array_equal(eager.numpy(), X[:, 1:3])
    assert build(lambda x: paddle.slice(x, [0], [1], [3]), [-1, 4])._shape == (-1, 4)
    assert build(lambda x: paddle.slice(x, [1], [1], [3]), [-1, 4])._shape == (-1, 2)


def test_tile_with_tensor_repeat_static():
    out = run_static(lambda x, r: paddle.tile(x, [r, 1]), X[0], np.array(2, "int64"),
                     shapes=[[3, 4], []])
    np.testing.assert_array_equal(out, np.tile(X[0], [2, 1]))
    assert build(lambda x: paddle.tile(x, [2, 3]), [-1, 4])._shape == (-1, 12)


def test_reshape_error_names_shapes():
    with pytest.raises(ValueError, match=r"reshape.*\[2, 3\].*\[4, -1\]"):
        build(lambda x: paddle.reshape(x, [4, -1]), [2, 3])


def test_concat_error_names_shapes():
    with pytest.raises(ValueError, match=r"concat.*\[2, 3\].*\[2, 4\]"):
        build(lambda x, y: paddle.concat([x, y], axis=0), [2, 3], [2, 4])


def test_shape_numel_rank_cast():
    x = paddle.to_tensor(X)
    assert paddle.shape(x).numpy().tolist() == [2, 3, 4] and paddle.shape(x).dtype == "int64"
    assert int(paddle.numel(x)) == 24 and paddle.rank(x) == 3
    out = run_static(lambda v: paddle.shape(v), X, shapes=[[None, 3, None]])
    assert out.tolist() == [2, 3, 4]
    out = run_static(lambda v: paddle.numel(v), X, shapes=[[None, 3, 4]])
    assert int(out) == 24
    c = paddle.cast(x, "int32")
    assert c.dtype == "int32" and c.numpy().dtype == np.int32
    assert paddle.cast([1, 2], np.float64).dtype == "float64"
    assert run_static(lambda v: paddle.cast(v, "int64"), X).dtype == np.int64


def test_flip_roll_tile_methods():
    x = paddle.to_tensor(X)
    np.testing.assert_array_equal(x.flip(0).numpy(), X[::-1])
    np.testing.assert_array_equal(x.roll(1, axis=2).numpy(), np.roll(X, 1, 2))
    np.testing.assert_array_equal(x.tile([2]).numpy(), np.tile(X, 2))


@pytest.mark.parametrize("fn, known", [
    (lambda x: paddle.flatten(x, 1), [-1, 192]),
    (lambda x: paddle.flatten(x, 2), [-1, 3, 64]),
    (lambda x: x.flatten(1, 2), [-1, 24, 8]),
    (lambda x: x.reshape([0, -1]), [-1, 192]),
    (lambda x: x.reshape([0, 3, -1, 2]), [-1, 3, 32, 2]),
    (lambda x: x.flatten(0, 1), [-1, 8, 8]),          # merges the unknown dim: stays unknown
])
def test_unknown_batch_copied_by_0_leaves_the_minus_one_known(fn, known):
    # the unknown dims a 0 copies in place cancel out of the element count (Paddle infers these)
    out = build(fn, [None, 3, 8, 8])
    assert list(out._shape) == known
    x = np.arange(2 * 192, dtype="float32").reshape(2, 3, 8, 8)
    np.testing.assert_array_equal(run_static(fn, x, shapes=[[None, 3, 8, 8]]),
                                  fn(paddle.to_tensor(x)).numpy())


def test_reshape_that_no_batch_size_fits_is_refused_while_building():
    with pytest.raises(ValueError, match=r"cannot reshape a tensor of shape \[-1, 3\]"):
        build(lambda x: x.reshape([0, -1, 2]), [None, 3])
