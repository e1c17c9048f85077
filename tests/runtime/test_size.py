"""paddle.Size, the type of an eager Tensor's shape: a list subclass that keeps its type through
slicing, concatenation and repetition, equals lists and tuples, and checks its items."""
import pickle

import numpy as np
import pytest

import dy2st as paddle


def test_shape_is_a_size():
    x = paddle.ones([2, 3, 4])
    s = x.shape
    assert type(s) is paddle.Size and isinstance(s, list)
    assert repr(s) == str(s) == "paddle.Size([2, 3, 4])"
    assert s == [2, 3, 4] and s == (2, 3, 4) and not s != (2, 3, 4)
    assert s.numel() == 24 == x.size and paddle.Size([]).numel() == 1
    assert x.reshape(paddle.Size([4, 6])).shape == [4, 6]
    assert np.zeros(s).shape == (2, 3, 4)


def test_sequence_operations_keep_the_type():
    s = paddle.Size([2, 3])
    for got, want in ((s[1:], [3]), (s + [1], [2, 3, 1]), (s + (1,), [2, 3, 1]),
                      ((1,) + s, [1, 2, 3]), ([1] + s, [1, 2, 3]), (s * 2, [2, 3, 2, 3]),
                      (2 * s, [2, 3, 2, 3])):
        assert type(got) is paddle.Size and got == want
    assert type(s[0]) is int
    assert pickle.loads(pickle.dumps(s)) == s
    with pytest.raises(TypeError):
        hash(s)


def test_construction_and_bad_items():
    assert paddle.Size() == [] and paddle.Size(i for i in (1, 2)) == [1, 2]
    assert paddle.Size(np.array([2, 3])) == [2, 3]
    assert paddle.Size(paddle.to_tensor([4, 5])) == [4, 5]
    with pytest.raises(TypeError, match=r"iterable of 'int' \(item 1 is 'float'\)"):
        paddle.Size([2, 2.5])
    with pytest.raises(TypeError):
        paddle.Size(5)
