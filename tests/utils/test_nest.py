"""paddle.utils.map_structure / flatten / pack_sequence_as on nested lists, tuples and dicts, and
paddle.tensor.fill_constant."""
import collections

import numpy as np
import pytest

import dy2st as paddle


def test_map_structure_keeps_the_shape():
    out = paddle.utils.map_structure(lambda a, b: a * b, {"x": [1, (2, 3)], "y": 4},
                                     {"x": [10, (20, 30)], "y": 5})
    assert out == {"x": [10, (40, 90)], "y": 20}


def test_map_structure_over_tensors_and_namedtuples():
    Pair = collections.namedtuple("Pair", "a b")
    out = paddle.utils.map_structure(lambda t: t * 2,
                                     Pair(paddle.to_tensor([1.0]), [paddle.to_tensor([2.0])]))
    assert isinstance(out, Pair)
    np.testing.assert_allclose(out.b[0].numpy(), [4.0])


def test_map_structure_refuses_different_structures():
    with pytest.raises(ValueError, match="structures differ"):
        paddle.utils.map_structure(lambda a, b: a, [1, 2], [1])
    with pytest.raises(ValueError, match="keys differ"):
        paddle.utils.map_structure(lambda a, b: a, {"a": 1}, {"b": 1})


def test_flatten_and_pack_round_trip():
    nest = {"b": [1, 2], "a": (3, {"c": 4})}
    flat = paddle.utils.flatten(nest)
    assert flat == [3, 4, 1, 2]          # dict keys in sorted order
    assert paddle.utils.pack_sequence_as(nest, flat) == nest
    with pytest.raises(ValueError, match="fewer"):
        paddle.utils.pack_sequence_as(nest, [1])


def test_fill_constant():
    t = paddle.tensor.fill_constant([2, 3], "int64", 7)
    assert t.shape == [2, 3] and str(t.dtype).endswith("int64")
    np.testing.assert_array_equal(t.numpy(), np.full((2, 3), 7))
