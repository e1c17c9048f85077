"""Dataclass objects under a tensor `if` and in a tensor loop: fields changed in place follow
eager code in both full_graph settings; an object made anew on some paths only
(`dataclasses.replace`) runs eagerly with full_graph=False and is refused at the user's line with
full_graph=True (one graph cannot say which object a name is: merging the fields would lose which
aliases see a later change), never a silent difference."""
import dataclasses

import numpy as np
import pytest

import dy2st as paddle


@dataclasses.dataclass
class State:
    h: object
    n: int = 0
    acc: object = None


@dataclasses.dataclass(frozen=True)
class Frozen:
    h: object
    tag: str = "a"


def _field_in_if(x, n):
    s = State(x * 1.0)
    if x.sum() > 0:
        s.h = s.h * 3.0
        s.n = 5
    return s.h * s.n, s


def _fields_in_loop(x, n):
    s = State(x * 1.0)
    for _ in range(n):
        if s.h.sum() > 3:
            s.h = s.h - 1.0
        else:
            s.h = s.h + 2.0
        s.acc = s.h * 2.0 if s.acc is None else s.acc + s.h     # None before the loop
        s.n += 1
    return s.h, s.n, x * 0.0 - 7.0 if s.acc is None else s.acc


def _replace_in_if(x, n):
    s = State(x * 1.0)
    t = s
    if x.sum() > 0:
        s = dataclasses.replace(s, h=s.h + 1.0, n=2)
    return s.h * 10.0, s.n, t.h, s is t


def _replace_in_loop(x, n):
    s = Frozen(x * 1.0)
    for _ in range(n):
        s = dataclasses.replace(s, h=s.h * 2.0)
    return s.h


def _values(out):
    out = out if isinstance(out, tuple) else (out,)
    found = []
    for o in out:
        if isinstance(o, State):
            found += [o.h.numpy().tolist(), o.n]
        else:
            found.append(o if isinstance(o, int) else o.numpy().tolist())  # (bools are ints)
    return found


def _calls():
    for v in ([1.0, 2.0], [-1.0, -2.0]):
        for n in (0, 1, 3):
            yield np.array(v, "float32"), np.array(n, "int64")


@pytest.mark.parametrize("full_graph", [True, False])
@pytest.mark.parametrize("fn", [_field_in_if, _fields_in_loop], ids=lambda f: f.__name__)
def test_fields_changed_in_place_follow_eager(fn, full_graph):
    static = paddle.jit.to_static(fn, full_graph=full_graph)
    for x, n in _calls():
        want = _values(fn(paddle.to_tensor(x), paddle.to_tensor(n)))
        assert _values(static(paddle.to_tensor(x), paddle.to_tensor(n))) == want


@pytest.mark.parametrize("fn", [_replace_in_if, _replace_in_loop], ids=lambda f: f.__name__)
def test_a_new_object_on_some_paths_runs_eagerly_without_full_graph(fn):
    static = paddle.jit.to_static(fn, full_graph=False)
    for x, n in _calls():
        want = _values(fn(paddle.to_tensor(x), paddle.to_tensor(n)))
        assert _values(static(paddle.to_tensor(x), paddle.to_tensor(n))) == want


@pytest.mark.parametrize("fn, line", [(_replace_in_if, "if x.sum() > 0:"),
                                      (_replace_in_loop, "for _ in range(n):")],
                         ids=["if", "loop"])
def test_a_new_object_on_some_paths_is_refused_at_its_line_in_one_graph(fn, line):
    static = paddle.jit.to_static(fn, full_graph=True)
    with pytest.raises(TypeError, match="fields in place") as err:
        static(paddle.to_tensor(np.array([1.0, 2.0], "float32")), paddle.to_tensor(np.array(2)))
    assert "test_dataclasses_in_control_flow.py" in str(err.value) and line in str(err.value)
