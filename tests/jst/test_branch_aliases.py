"""Aliases made inside a tensor `if` (a nested `if`, an `elif`, two names that become one
object, an early return) survive it: a later in-place change reaches every object that is the
changed one on the path taken, as in eager mode (jst/branch_aliases.py)."""
import numpy as np
import pytest

import dy2st as paddle
from tests.support import assert_agrees_with_eager

# x[0, 0] and x[0, 1] pick the branches: every sign combination, and one and three rows
INPUTS = [np.array([[a, b, 0.5]], "float32") for a in (-0.7, 0.6) for b in (-0.4, 0.9)] + \
    [np.array([[0.6, -0.4, 0.5], [1.0, 2.0, -3.0], [0.25, 0.5, 0.75]], "float32")]


def two_names_become_one_object(x):
    h = x.mean(axis=0)
    g = x.max(axis=0)
    if x[0, 0] > 0:
        h = h * 2.0
        g = h                 # on this path g and h are one new object
    g.subtract_(x[0])
    return h * 10.0 + g


def alias_made_in_an_elif(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    acc = [h * 0.0]
    if x[0, 0] > 0:
        h = g
    elif x[0, 1] > 0:
        acc[0] = h            # a nested `if`: its alias depends on both predicates
    acc[-1][2] = x[0, 0]
    return paddle.stack([h, g, acc[0]])


def alias_after_an_early_return_test(x):
    h = x.mean(axis=0)
    g = x.max(axis=0)
    d = {"a": g * 1.0}
    if x[0, 0] > 0:
        if x[0, 1] > 0.5:
            return h * 100.0
        d["a"] = h
    d["a"].subtract_(x[0])
    return h * 10.0 + d["a"]


def inner_if_changes_an_object_the_outer_branch_aliased(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    if x[0, 0] > 0:
        h = g
        if x[0, 1] > 0:
            h[-1] += h.sum()  # changes g, an object from before both ifs
    g.add_(x[0])
    return h * 10.0 + g


def direct_alias_among_many_paths(x):
    h = x.mean(axis=0)
    g = x.max(axis=0) * 0.5
    acc = [h * 0.0]
    d = {"a": g * 1.0}
    if x[0, 0] > 0:
        if x[0, 1] > 0:
            d["a"] = x[0]
        else:
            acc[0] = h
            h = g
        d["a"] = h            # one object with h on this path, whatever the inner if did
    h.subtract_(g * 0.5)
    return paddle.stack([h, g, acc[0], d["a"]])


def alias_of_a_name_unassigned_on_some_paths(x):
    h = x.mean(axis=0)
    if x[0, 0] > 0:
        pass
    elif x[0, 1] > 0:
        z = h                 # z may be unassigned; changing h must not read it
    h[0] += 1.0
    return h


def alias_beside_a_changed_maybe_unassigned_object(x):
    h = x.mean(axis=0)
    g = x.max(axis=0)
    acc = [h * 0.0]
    if x[0, 0] > 0:
        z = h * 1.0           # z may be unassigned after this `if`
    if x[0, 1] > 0:
        z.add_(x[0])          # the `cond` returns z's "assigned?" flag ...
        if x[0, 2] > 0:
            acc[0] = g        # ... and, after it, the flag of this alias
    acc[0][1] = 5.0
    return paddle.stack([h, g, acc[0]])


def conditional_expression_picks_an_object(x):
    h = x.mean(axis=0)
    g = x.max(axis=0)
    h = g if x[0, 0] > 0 else h       # h is g, or still h
    h.subtract_(x[0] * 0.5)
    return paddle.stack([h, g])


def nested_conditional_expressions_then_a_helper_changes_the_pick(x):
    h = x.mean(axis=0)
    g = x.max(axis=0)
    acc = [h * 0.0]
    k = g if x[0, 0] > 0 else (acc[0] if x[0, 1] > 0 else h)
    bump(k, x[0, 2])
    return paddle.stack([h, g, acc[0], k])


def bump(t, v):
    if v > 0.2:
        t[0] += v
    else:
        t.multiply_(t * 0.5)


def conditional_expression_that_changes_an_object_in_place(x):
    h = x.mean(axis=0)
    acc = [h]
    k = h.add_(x[0]) if x[0, 0] > 0 else h * 2.0
    return paddle.stack([h, acc[0], k])


@pytest.mark.parametrize("fn", [conditional_expression_picks_an_object,
                                nested_conditional_expressions_then_a_helper_changes_the_pick,
                                conditional_expression_that_changes_an_object_in_place])
def test_a_conditional_expression_is_the_object_it_picks(tmp_path, fn):
    """`a if c else b` with a tensor c is a or b itself on its path (fuzzer seeds 1, 6, 88,
    253 of the generator's extra statements)."""
    assert_agrees_with_eager(fn, INPUTS, tmp_path, rtol=1e-6, atol=0)


@pytest.mark.parametrize("fn", [two_names_become_one_object, alias_made_in_an_elif,
                                alias_after_an_early_return_test,
                                inner_if_changes_an_object_the_outer_branch_aliased,
                                direct_alias_among_many_paths,
                                alias_of_a_name_unassigned_on_some_paths])
def test_in_place_change_follows_aliases_made_inside_a_tensor_if(tmp_path, fn):
    assert_agrees_with_eager(fn, INPUTS, tmp_path, rtol=1e-6, atol=0)


def test_alias_flags_follow_the_assigned_flags_of_changed_objects(tmp_path):
    """Both kinds of flag leave the same `cond`; each alias must read its own."""
    inputs = [np.array([[a, b, c]], "float32") for a, b, c in
              ((1.0, 1.0, -1.0), (1.0, 1.0, 1.0), (1.0, -1.0, 1.0), (-1.0, -1.0, 1.0))]
    assert_agrees_with_eager(alias_beside_a_changed_maybe_unassigned_object, inputs, tmp_path,
                             rtol=1e-6, atol=0)


def reads_an_alias_unassigned_on_the_path_taken(x):
    h = x.mean(axis=0)
    if x[0, 0] > 0:
        pass
    elif x[0, 1] > 0:
        z = h
    h[0] += 1.0
    return z * 2.0


def test_the_unassigned_alias_still_fails_where_it_is_read():
    sf = paddle.jit.to_static(reads_an_alias_unassigned_on_the_path_taken,
                              input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    ok = paddle.to_tensor(INPUTS[1])                  # x[0, 0] < 0 < x[0, 1]: z = h
    np.testing.assert_allclose(sf(ok).numpy(),
                               reads_an_alias_unassigned_on_the_path_taken(ok).numpy())
    with pytest.raises(UnboundLocalError, match="z"):
        sf(paddle.to_tensor(INPUTS[0]))


def test_an_alias_test_that_is_the_predicate_adds_no_output():
    """`if c: h = g` needs no flag: the `if`'s own predicate is the alias test."""
    def plain(x):
        h = x.mean(axis=0)
        g = x.max(axis=0)
        if x[0, 0] > 0:
            h = g
        h.add_(x[0])
        return h + g

    sf = paddle.jit.to_static(plain, input_spec=[paddle.static.InputSpec([None, 3], "float32")])
    x = paddle.to_tensor(INPUTS[2])
    np.testing.assert_allclose(sf(x).numpy(), plain(x).numpy())
    conds = [op for op in sf.program.global_block().ops if op.type == "cond"]
    assert len(conds) == 1 and len(conds[0].outputs) == 1
