"""An object a tensor loop carries (a list entry the body leaves alone or changes in place, an
outer object a loop variable becomes and then changes) stays that object, inside the body and
after the loop: every name holding it sees its value, as in eager mode (fuzzer seeds 263,
408, 1225, 1329, 2443, 1000843)."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import assert_agrees_with_eager

# one row, two rows, no row (a loop that never runs), negative first entry
INPUTS = [np.array([[-1.0, 2.0, 3.0]], "float32"), np.array([[1, 2, 3], [2, 3, 4]], "float32"),
          np.zeros((0, 3), "float32"), np.array([[0.5, -2.0, 1.0], [-1, 1, 1]], "float32")]


def entry_left_alone_then_changed_through_its_other_name(x):
    h = x.mean(axis=0) if x.shape[0] else x.sum(axis=0)
    acc = [h * 0.0]
    acc.append(h)                  # acc[1] is h; the loop carries acc, never touches acc[1]
    for row in x:
        acc[0] = h
    if x.sum() < 100.0:
        h.subtract_(h + 1.0)
    return paddle.stack([h, acc[0], acc[1]])


def entry_changed_in_the_body_and_read_by_another_name(x):
    s = x.sum() * 0.1
    acc = [x.sum(axis=0) * 0.0 + 2.0]
    g = acc[-1]                    # g is acc[0]
    for row in x:
        acc[-1][1] = s
        acc[0].multiply_(g)        # g must be the value set a line above
    return paddle.stack([g, acc[0]])


def entry_appended_twice(x):
    h = x.sum(axis=0)
    g = x.max(axis=0) if x.shape[0] else h
    acc = [h * 0.0]
    acc.append(h)
    acc.append(h)
    for row in x:
        acc[0] = g * row
    acc[-1][2] += 1.0
    return paddle.stack([h, acc[1], acc[2]])


def rebound_to_an_object_it_then_changes(x):
    h = x.mean(axis=0) if x.shape[0] else x.sum(axis=0)
    g = x.sum(axis=0) * 0.5
    s = x.sum() * 0.1
    for row in x:
        h[0] += s              # from the second turn on, h is g: g changes
        h = g
    return paddle.stack([h, g])


def the_same_in_nested_loops(x):
    h = x.mean(axis=0) if x.shape[0] else x.sum(axis=0)
    g = x.sum(axis=0) * 0.5
    s = x.sum() * 0.1
    for row in x:
        for col in x:
            h[0] += s
            h = g
    return paddle.stack([h, g])


def loop_variable_changed_then_returned_under_another_name(x):
    h = x.mean(axis=0) if x.shape[0] else x.sum(axis=0)
    g = x.sum(axis=0) * 0.5
    d = [h]
    c = 0
    for row in x:
        if c == 1:
            h = h * 0.5        # never runs, yet makes h a loop variable
        h.subtract_(g)
        return d[0]            # h's object, which no op of the body reads
    return d[0] + h


def loop_variable_that_starts_as_a_list_entry_read_under_a_third_name(x):
    h = x.mean(axis=0) if x.shape[0] else x.sum(axis=0)
    g = x.sum(axis=0) * 0.5
    acc = [h * 0.0, h]         # h and acc[1] enter the loop as one object
    d = {'a': h}
    c = 0
    for row in x:
        if c == 1:
            h = h * 0.5
        h.subtract_(g)
        acc[0] = g
        if row[1] > 2.5:
            return d['a']
    return d['a'] + acc[1] * 2.0 + h * 3.0


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
@pytest.mark.parametrize("fn", [entry_left_alone_then_changed_through_its_other_name,
                                entry_changed_in_the_body_and_read_by_another_name,
                                entry_appended_twice, rebound_to_an_object_it_then_changes,
                                the_same_in_nested_loops,
                                loop_variable_changed_then_returned_under_another_name,
                                loop_variable_that_starts_as_a_list_entry_read_under_a_third_name])
def test_object_carried_by_a_loop_stays_itself(fn, tmp_path):
    assert_agrees_with_eager(fn, INPUTS, tmp_path, rtol=1e-6, atol=0)
