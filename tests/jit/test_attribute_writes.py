"""Attributes that a method called in a tensor loop sets on its object are carried by the loop,
like the loop's own names: static results match eager for several trip counts."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import attribute_writes
from dy2st.runtime.program import Program, program_guard
from dy2st.static import data


class Acc:
    def __init__(self, start):
        self.v = start
        self.steps = 0

    def add(self, t):
        if t.sum() > 0:
            self.v = self.v + t
        else:
            self.v = self.v - t * 0.5
        self.steps = self.steps + 1


class Pair:
    def __init__(self, x):
        self.acc = Acc(x * 0.0)
        self.hi = x

    def push(self, t):
        self.acc.add(t)                  # a method of another object, called by this one
        self.hi = paddle.maximum(self.hi, t)


def accumulate(x, n):
    a = Acc(paddle.zeros_like(x))
    i = paddle.zeros([], "int64")
    while i < n:
        a.add(x - paddle.cast(i, "float32"))
        i = i + 1
    return a.v, a.steps


def two_objects_nested(x, n):
    p = Pair(x)
    q = Acc(x)
    for i in range(n):
        for j in range(n):
            p.push(x * paddle.cast(i - j, "float32"))
        q.add(p.hi)
    return p.acc.v, p.hi, q.v


def number_start(x, n):
    a = Acc(0)
    for i in range(n):
        a.add(x - paddle.cast(i, "float32"))
    return a.v


def _eq(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g.numpy() if hasattr(g, "numpy") else g),
                                   np.asarray(w.numpy() if hasattr(w, "numpy") else w), rtol=1e-6)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_a_method_setting_its_object_state_in_a_tensor_while(n):
    x = paddle.to_tensor(np.array([1.5, -0.5, 2.0], "float32"))
    k = paddle.to_tensor(np.array(n))
    _eq(paddle.jit.to_static(accumulate)(x, k), accumulate(x, k))


@pytest.mark.parametrize("n", [1, 3])
def test_objects_reached_through_other_objects_and_nested_loops(n):
    x = paddle.to_tensor(np.array([0.5, -1.0], "float32"))
    k = paddle.to_tensor(np.array(n))
    _eq(paddle.jit.to_static(two_objects_nested)(x, k), two_objects_nested(x, k))


def test_a_python_number_state_takes_the_loop_tensor_shape():
    x = paddle.to_tensor(np.array([2.0], "float32"))
    k = paddle.to_tensor(np.array(3))
    _eq(paddle.jit.to_static(number_start)(x, k), number_start(x, k))


def test_an_attribute_first_set_inside_the_loop_is_refused_with_its_line():
    class Late:
        def set(self, t):
            self.v = t * 2.0                # no value before the loop to start from

    def late(x, n):
        o = Late()
        for i in range(n):
            o.set(x)
        return o.v
    with pytest.raises(ValueError, match=r"self\.v = t \* 2\.0"):
        paddle.jit.to_static(late, full_graph=True)(paddle.to_tensor(np.ones([2], "float32")),
                                   paddle.to_tensor(np.array(2)))


def test_recorded_writes_that_the_loop_must_carry():
    class Obj:
        pass
    main = Program()
    with program_guard(main):
        x = data("x", [2], "float32")
        parent = main.global_block()
        inner = main.create_block(0)
        a, b, c, d, e, gone = Obj(), Obj(), Obj(), Obj(), Obj(), Obj()
        a.v, c.v, d.v, e.v, gone.v = 1, 2, "text", x, 3
        with attribute_writes.recording() as writes:
            attribute_writes.note_method(a, ("v",))
            attribute_writes.note_method(b, ("w",))
            for o in (c, d, e, gone):
                attribute_writes.note_method(o, ("v",))
            attribute_writes.note_method(a, ("v",))          # noted once
            assert attribute_writes.is_recording()
        a.v = inner.create_var([2], x.dtype)         # a tensor of the loop body
        b.w = inner.create_var([2], x.dtype)         # but b had no w before: nothing to start from
        c.v = x                                      # a number became a tensor
        d.v = "other"                                # other Python values stay as they are
        gone.v = 4
        del gone, o                                  # made and dropped inside the body
    assert [(o, attr) for o, attr, _ in writes.changed(parent, [])] == [(a, "v"), (c, "v")]
    assert [o for o, _, _ in writes.changed(parent, [(a, "v")])] == [c]
    assert not attribute_writes.is_recording()
