"""Attributes that a method called in a tensor loop or `if` sets on its object are carried by
the loop, or are outputs of the `if`, like their own names: static results match eager for
several trip counts and both branches, also when the attribute is an alias of another object."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st.jst import attribute_writes
from dy2st.runtime.program import Program, program_guard
from dy2st.static import data
from tests.support import assert_agrees_with_eager


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


class Holder:
    def __init__(self, v):
        self.v = v
        self.steps = 0

    def add(self, t):
        self.v = self.v + t
        self.steps += 1

    def scale(self, k):
        self.v.multiply_(k)

    def reset(self, t):
        self.v = t


def added_on_one_branch(x):
    acc = Holder(x.sum(axis=0) * 0.0)
    if x.sum() > 0:
        acc.add(x[0])
    return acc.v + acc.steps


def added_in_a_nested_if_of_a_loop(x):
    acc = Holder(x.sum(axis=0) * 0.0)
    for row in x:
        if row[0] > 0:
            if row[1] > 0:
                acc.add(row)
        else:
            acc.add(row * -0.5)
    return acc.v


def changed_in_place_on_one_branch_and_rebound_on_the_other(x):
    acc = Holder(x.sum(axis=0) + 1.0)
    keep = acc.v
    if x.sum() > 0:
        acc.scale(x[0])
    else:
        acc.reset(x[0] * 3.0)
    acc.v[0] = 7.0              # keep is acc.v on the true path only
    return paddle.stack([acc.v, keep])


def set_to_an_object_changed_later(x):
    acc = Holder(x.sum(axis=0) * 0.0)
    h = x.mean(axis=0)
    if x.sum() > 0:
        acc.reset(h)            # acc.v is h on this path
    h[1] = 5.0
    return acc.v


def set_in_a_loop_to_a_name_rebound_under_an_if(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    acc = Holder(g * 1.0)
    for row in x:               # traced twice: the first trace finds acc.v, and its rebinding
        if g.mean() < 0.0:      # of g after the loop must be undone before the second
            g = h * 0.5
        acc.reset(g)
    g[0] += 1.0
    return g + acc.v


def set_in_the_loops_code_and_by_a_method(x):
    g = x.sum(axis=0) * 0.5
    s = x.sum() * 0.1
    acc = Holder(g * 1.0)
    for row in x:
        acc.v[-1] = s           # acc.v is one of the loop's own names ...
        acc.reset(row * 2.0)    # ... and a method sets it too: carried once
    return g + acc.v


def set_in_the_ifs_code_and_by_a_method(x):
    g = x.sum(axis=0) * 0.5
    acc = Holder(g * 1.0)
    if x.sum() > 0:
        acc.v[-1] = 3.0
        acc.reset(acc.v * 2.0)
    return g + acc.v


def object_made_and_changed_in_the_branch(x):
    h = x.mean(axis=0)
    k = h * 0.0
    if x.sum() > 0:
        b = Holder(h * 2.0)     # the branch's own object: its attribute is no output
        if h[0] > 0:
            b.reset(b.v + 1.0)
        k = b.v
    return k + h


BRANCH_INPUTS = [np.array([[2.0, 1, 1]], "float32"), np.array([[-1.0, 1, 1], [3, 3, 3]], "float32"),
                 np.array([[-0.1, -0.2, 0.1]], "float32"),
                 np.array([[1.0, -1, 0], [2, 2, -5]], "float32")]


@pytest.mark.parametrize("fn", [added_on_one_branch, added_in_a_nested_if_of_a_loop,
                                changed_in_place_on_one_branch_and_rebound_on_the_other,
                                set_to_an_object_changed_later,
                                set_in_a_loop_to_a_name_rebound_under_an_if,
                                set_in_the_loops_code_and_by_a_method,
                                set_in_the_ifs_code_and_by_a_method,
                                object_made_and_changed_in_the_branch])
def test_a_method_setting_its_object_state_in_a_tensor_if_or_beside_the_loops_names(fn, tmp_path):
    assert_agrees_with_eager(fn, BRANCH_INPUTS, tmp_path, rtol=1e-6, atol=0)
