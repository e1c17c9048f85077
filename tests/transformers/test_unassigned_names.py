"""A name read on a path that never assigned it raises UnboundLocalError naming it and the user's
line, when that path runs (loop bodies, loop conditions, closures, after break), and only then."""
import inspect
import re
import traceback

import numpy as np
import pytest

import dy2st as paddle
from dy2st.runtime.side_effects import refused_value
from dy2st.static import InputSpec
from tests.support import three_modes

SPEC = [InputSpec([None, 3], "float32")]
SMALL = np.full((4, 3), 0.01, "float32")
BIG = np.full((4, 3), 1.0, "float32")


def _fails_like_eager(fn, x, line_text, error=UnboundLocalError):
    with pytest.raises(error):
        fn(paddle.to_tensor(x))
    sf = paddle.jit.to_static(fn, input_spec=SPEC)
    with pytest.raises(error) as info:
        sf(paddle.to_tensor(x))
    assert "'z'" in str(info.value) and line_text in str(info.value)
    return sf


def _agree_in_three_modes(fn, ok, tmp_path):
    """fn's value on `ok` eagerly, through to_static and after jit.save / jit.load are the
    same; the to_static function and the loaded program, to run on other inputs."""
    eager, static, loaded = three_modes(fn, [ok], [[None, 3]], tmp_path)
    np.testing.assert_allclose(static[0], eager[0], rtol=1e-6)
    np.testing.assert_allclose(loaded[0], eager[0], rtol=1e-6)
    return paddle.jit.to_static(fn, input_spec=SPEC), paddle.jit.load(str(tmp_path / "model"))


def _three_modes_agree_then_fail(fn, ok, failing, error, line_text, tmp_path, match="'z'"):
    """fn eagerly, through to_static and after jit.save / jit.load: the same value on `ok`; the
    same `error` (exactly that type: a NameError must not be an UnboundLocalError) on
    `failing`, naming the user's line in to_static."""
    sf, loaded_fn = _agree_in_three_modes(fn, ok, tmp_path)
    for mode in (fn, sf, loaded_fn):
        with pytest.raises(error, match=match) as info:
            mode(paddle.to_tensor(failing))
        if error is NameError:
            assert not isinstance(info.value, UnboundLocalError)
    with pytest.raises(error) as info:
        sf(paddle.to_tensor(failing))
    assert line_text in str(info.value)


def in_loop_body(x):
    h = x.mean(axis=0)
    s = x.sum() * 0.1
    for row in x:
        if not s < 0.5:
            z = h * -0.5
        h = h + z
    return h


def test_loop_body(check):
    sf = _fails_like_eager(in_loop_body, SMALL, "h = h + z")
    np.testing.assert_allclose(sf(paddle.to_tensor(BIG)).numpy(),
                               in_loop_body(paddle.to_tensor(BIG)).numpy(), rtol=1e-6)


def in_loop_condition(x):
    i = 0
    if x.sum() > 100:
        z = x.sum()
    while i < z:
        i += 1
    return x * i


def test_loop_condition():
    _fails_like_eager(in_loop_condition, SMALL, "while i < z")


def in_closure(x):
    if x.sum() > 100:
        z = x * 2.0

    def use():
        return z + 1.0
    return use()


def test_closure():
    # Python raises NameError for a free variable (UnboundLocalError is one)
    _fails_like_eager(in_closure, SMALL, "return z + 1.0", NameError)


def after_break(x):
    h = x.mean(axis=0)
    for row in x:
        if row.sum() < 1.0:
            break
        z = row * 2.0
    return h + z


def test_after_break(check):
    _fails_like_eager(after_break, SMALL, "return h + z")
    check(after_break, BIG, input_spec=SPEC)


def loop_never_runs(x):
    for row in x:
        z = row * 2.0
    return z


def test_loop_that_never_runs():
    sf = paddle.jit.to_static(loop_never_runs, input_spec=SPEC)
    np.testing.assert_allclose(sf(paddle.to_tensor(BIG)).numpy(), np.full(3, 2.0))
    with pytest.raises(UnboundLocalError, match="'z'"):
        sf(paddle.to_tensor(np.zeros((0, 3), "float32")))


def untaken_branch(x, flag=False):
    h = x.mean(axis=0)
    if flag:
        z = x * 2
    if x.sum() > 100:
        h = h + z
    return h


def _runs_until_the_branch_is_taken(check, fn, line_text):
    sf = check(fn, SMALL, input_spec=SPEC)
    with pytest.raises(UnboundLocalError) as info:
        sf(paddle.to_tensor(np.full((2, 3), 100.0, "float32")))
    assert "'z'" in str(info.value) and line_text in str(info.value)


def test_unassigned_name_in_a_branch_that_is_not_taken(check):
    """Issue 16: tracing the branch must not fail; running it raises at the user's line."""
    _runs_until_the_branch_is_taken(check, untaken_branch, "h = h + z")


def passed_along(x, flag=False):
    h = x.mean(axis=0)
    if flag:
        z = h * 2.0
    if x.sum() > 100:
        g = z                      # the error belongs to this line, as in Python
        h = h + g
    return h


def test_unassigned_name_passed_along_fails_at_the_line_that_reads_it(check):
    _runs_until_the_branch_is_taken(check, passed_along, "g = z")


def read_before_the_loop_assigns_it(x):
    h = x.mean(axis=0)
    if x.sum() > 100:
        h = z * 2.0
    for row in x:
        z = row
    return h


def test_name_assigned_only_in_a_later_loop_is_unassigned_not_a_global(check):
    check(read_before_the_loop_assigns_it, SMALL, input_spec=SPEC)
    sf = paddle.jit.to_static(read_before_the_loop_assigns_it, input_spec=SPEC)
    with pytest.raises(UnboundLocalError, match="'z'"):
        sf(paddle.to_tensor(np.full((2, 3), 100.0, "float32")))


def reads_a_missing_global(x):
    h = x.mean(axis=0)
    if x.sum() > 100:
        h = h + not_defined_anywhere      # noqa: F821 - a NameError when this line runs
    return h


def test_missing_global_in_an_untaken_branch_fails_only_when_it_runs(tmp_path):
    """Fuzzer seeds 28 and 299: tracing the branch must not fail with NameError; the program
    (and the saved one) raise it at the user's line when the branch runs, as eager does."""
    _three_modes_agree_then_fail(reads_a_missing_global, SMALL, np.full((2, 3), 100.0, "float32"),
                                 NameError, "h = h + not_defined_anywhere", tmp_path,
                                 match="not_defined_anywhere")


def read_before_assigned_in_a_loop_body(x):
    h = x.mean(axis=0)
    w = x.sum() * 0.0
    while w < x.sum():
        h = h + z                  # noqa: F821 - fails on the first turn, as in Python
        z = h
        w = w + 1.0
    return h


def test_loop_body_that_always_fails_fails_only_when_a_turn_runs(tmp_path):
    """The body cannot be traced to the end (z has no value on the first turn): the loop still
    converts; a run without turns returns, one with turns raises at the user's line."""
    _three_modes_agree_then_fail(read_before_assigned_in_a_loop_body,
                                 np.full((2, 3), -1.0, "float32"), BIG, UnboundLocalError,
                                 "h = h + z", tmp_path)


def passed_into_a_list_in_a_loop_that_changes_it_in_place(x):
    h = x.mean(axis=0)
    acc = [h * 0.0]
    if x.sum() > 100.0:
        z = acc[-1]
    for row in x:
        acc[0] = z                 # the loop carries z (changed in place below): still checked
        acc[0].multiply_(h)
    return paddle.stack(acc).sum(axis=0)


def test_value_changed_in_place_keeps_its_unassigned_check(tmp_path):
    """Fuzzer seed 3105: carrying z through the loop (or changing it in place) must not lose
    the "was it assigned?" flag: to_static returned a value where eager raises."""
    _three_modes_agree_then_fail(passed_into_a_list_in_a_loop_that_changes_it_in_place,
                                 np.full((2, 3), 100.0, "float32"), SMALL, UnboundLocalError,
                                 "acc[0] = z", tmp_path)


def fails_in_the_loop_then_after_it(x):
    h = x.mean(axis=0)
    for row in x:
        h = h + row * missing_name         # noqa: F821 - eager fails here first
    return h * missing_name                # noqa: F821


def test_trace_that_fails_later_reports_the_loop_body_error_eager_reaches_first():
    """Fuzzer seed 989: the loop body's error is raised when a turn runs; when the trace then
    fails at a later line, the error reported is still the one of the loop body's line."""
    sf = paddle.jit.to_static(fails_in_the_loop_then_after_it, input_spec=SPEC)
    with pytest.raises(NameError) as eager:
        fails_in_the_loop_then_after_it(paddle.to_tensor(SMALL))
    assert eager.traceback[-1].statement.lines[0].strip().startswith("h = h + row")
    with pytest.raises(NameError) as info:
        sf(paddle.to_tensor(SMALL))
    assert "h = h + row * missing_name" in str(info.value)
    assert "return h * missing_name" not in str(info.value)


def free_variable_read_by_a_closure(x, flag=False):
    h = x.mean(axis=0)
    if flag:
        z = h * 3.0
    if x.sum() > 100.0:
        z = h * 2.0

    def inner(t):
        return t + z * 0.25
    return inner(h)


def test_unassigned_free_variable_is_a_name_error_as_in_python(tmp_path):
    """Python raises NameError (not UnboundLocalError) for a free variable without a value; so
    must to_static, whether the path is known while tracing (flag) or only when it runs."""
    _three_modes_agree_then_fail(free_variable_read_by_a_closure,
                                 np.full((2, 3), 100.0, "float32"), SMALL, NameError,
                                 "return t + z * 0.25", tmp_path, match="free variable 'z'")
    in_closure_sf = paddle.jit.to_static(in_closure, input_spec=SPEC)   # z never assigned
    with pytest.raises(NameError, match="free variable 'z'") as info:
        in_closure_sf(paddle.to_tensor(SMALL))
    assert not isinstance(info.value, UnboundLocalError)
    assert "return z + 1.0" in str(info.value)


# ----------------------------------------------------------------------------- fuzzer seeds
# (`python tools/fuzz.py --program-seed SEED --minimize`; the functions below are those
# programs cut down by hand)
POSITIVE = np.full((2, 3), 1.0, "float32")
NEGATIVE = np.full((3, 3), -1.0, "float32")
MIXED = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0], [-1.0, 2.0, 0.0]], "float32")
ONE_ROW = np.array([[0.5, -0.25, 1.0]], "float32")


def _same_outcome(fn, x, sf, loaded=None):
    """fn(x) eagerly and through sf (and a loaded program): the same value, or the same
    exception type; the static error names the user's line eager fails at."""
    try:
        expected = fn(paddle.to_tensor(x)).numpy()
    except Exception as e:  # noqa: BLE001 - the outcome compared
        line = traceback.extract_tb(e.__traceback__)[-1].line
        for mode in (sf, loaded) if loaded is not None else (sf,):
            with pytest.raises(type(e)) as info:
                mode(paddle.to_tensor(x))
            if mode is sf:
                assert line in str(info.value), (line, str(info.value))
        return type(e)
    for mode in (sf, loaded) if loaded is not None else (sf,):
        np.testing.assert_allclose(mode(paddle.to_tensor(x)).numpy(), expected, rtol=1e-6)
    return None


def alias_of_a_maybe_unassigned_name_changed_in_place(x):
    h = x.mean(axis=0)
    acc = [h * 0.0]
    for row in x:
        if row.sum() > 0.0:
            z = acc[-1]            # z is the object acc[0] from this turn on
        acc[0][1] += row.sum()     # eager: z sees the change
    if h.sum() > -100.0:
        h = z
    return h + acc[0]


def test_in_place_change_reaches_an_alias_that_may_be_unassigned(tmp_path):
    """Fuzzer seeds 1862, 3125, 4635: the in-place change of acc[0] reaches z on the turns
    where z is that object; the `where` doing so must not check z (unassigned on the other
    turns), which made to_static raise UnboundLocalError where eager returns a value."""
    fn = alias_of_a_maybe_unassigned_name_changed_in_place
    sf, loaded_fn = _agree_in_three_modes(fn, MIXED, tmp_path)
    kinds = [_same_outcome(fn, x, sf, loaded_fn) for x in (POSITIVE, NEGATIVE, MIXED, ONE_ROW)]
    assert kinds == [None, UnboundLocalError, None, None]      # both outcomes are exercised


def loop_that_fails_in_one_branch_then_unassigned_after(x):
    h = x.mean(axis=0)
    acc = [h]
    if h.sum() > 0.0:
        for row in x:
            z = z + row            # fails on the first turn: z has no value yet
    acc.append(z)                  # the other paths fail here
    return paddle.stack(acc).sum(axis=0)


def test_trace_failing_on_every_path_keeps_the_earlier_run_time_error():
    """Fuzzer seed 3768: the trace fails at `acc.append(z)` on every path, but a path through
    the loop fails earlier (when it runs a turn): that error, not the trace's, is eager's."""
    fn = loop_that_fails_in_one_branch_then_unassigned_after
    sf = paddle.jit.to_static(fn, input_spec=SPEC)
    lines = []
    for x in (POSITIVE, NEGATIVE, np.zeros((0, 3), "float32"), ONE_ROW):
        with pytest.raises(UnboundLocalError) as info:
            sf(paddle.to_tensor(x))
        lines.append("z = z + row" in str(info.value))
        assert _same_outcome(fn, x, sf) is UnboundLocalError
    assert lines == [True, False, False, True]


def raises_on_some_inputs_then_reads_an_unassigned_name(x):
    if x.sum() > 0.0:
        raise ValueError("positive input")
    h = x.mean(axis=0) + z
    z = h
    return z


def test_user_raise_on_some_paths_comes_before_a_read_that_always_fails():
    fn = raises_on_some_inputs_then_reads_an_unassigned_name
    sf = paddle.jit.to_static(fn, input_spec=SPEC)
    assert _same_outcome(fn, POSITIVE, sf) is ValueError
    assert _same_outcome(fn, NEGATIVE, sf) is UnboundLocalError


def read_in_a_branch_before_a_later_assignment(x):
    h = x.mean(axis=0)
    if x.sum() > 100.0:
        h = h + z                  # z is a local assigned below: UnboundLocalError here
    z = h
    return z


def test_local_read_in_a_branch_before_it_is_assigned_is_unbound_not_a_name_error(tmp_path):
    """The branch is a helper function reading z as a free variable: without a value bound
    first, Python raised NameError ("free variable") where eager raises UnboundLocalError."""
    _three_modes_agree_then_fail(read_in_a_branch_before_a_later_assignment, MIXED,
                                 np.full((2, 3), 100.0, "float32"), UnboundLocalError,
                                 "h = h + z", tmp_path)


def unfollowed_then_a_missing_global(x):
    h = x.mean(axis=0)
    d = {'a': h * 1.0}
    if h.sum() < 0.0:
        for row in x:
            if row.sum() < 0.0:
                d['a'][0] += 1.0
                d['a'] = h
    h = h * not_defined_anywhere   # noqa: F821 - a NameError on every path
    return h + d['a']


def test_value_not_followed_after_a_loop_does_not_hide_a_later_name_error():
    """Fuzzer seed 2440: eager fails with NameError on every input; to_static refused the
    value of d['a'] after the loop while tracing (ValueError), on every path. The refusal now
    comes when the program runs through the branch that ran the loop (at the branch's end: the
    loop's other values may not be followed either); the other paths fail as eager does."""
    fn = unfollowed_then_a_missing_global
    sf = paddle.jit.to_static(fn, input_spec=SPEC)
    for x in (POSITIVE, MIXED):            # (h.sum() > 0: the branch with the loop not taken)
        assert _same_outcome(fn, x, sf) is NameError
    try:
        sf(paddle.to_tensor(NEGATIVE))
    except NameError:
        pass                               # eager's outcome, for a loop that is followed
    except ValueError as e:
        assert "changed in place on some turns" in str(e)


def unassigned_read_then_a_value_not_followed(x):
    h = x.max(axis=0)
    keep = [h]
    g = x.mean(axis=0)
    if x.sum() > 100.0:
        g = g + z                  # UnboundLocalError when this path runs
    for row in x:
        if row.sum() > 0.0:
            h = h * 2.0            # rebound on some turns only, then changed in place
        h[0] = row.sum()
    z = h
    return keep[0] + g


def _value_or_refusal(fn, x, sf):
    """sf(x) is eager's value, or the documented refusal at the in-place line `h[0] = ...`
    (which loops a later version follows is not this test's concern); never another number.
    Whether it refused."""
    try:
        got = sf(paddle.to_tensor(x)).numpy()
    except ValueError as e:
        assert "changed in place on some turns" in str(e) and "h[0] = row.sum()" in str(e)
        lines, first = inspect.getsourcelines(fn)
        in_place = first + next(k for k, t in enumerate(lines) if "h[0] = row.sum()" in t)
        blamed = re.findall(r'File "[^"]+", line (\d+)', str(e))[-1]   # the run error's line
        assert int(blamed) == in_place, str(e)
        return True
    np.testing.assert_allclose(got, fn(paddle.to_tensor(x)).numpy(), rtol=1e-6)
    return False


def _values_or_refusals(fn):
    sf = paddle.jit.to_static(fn, input_spec=SPEC)
    for x in (POSITIVE, MIXED, NEGATIVE):
        _value_or_refusal(fn, x, sf)


def test_value_not_followed_after_a_loop_is_refused_after_an_earlier_unassigned_read():
    """Fuzzer seeds 2025, 3412: a path failing earlier with UnboundLocalError must fail so; the
    refusal (a ValueError at the in-place line) may come only when the program reads the
    value."""
    fn = unassigned_read_then_a_value_not_followed
    sf = paddle.jit.to_static(fn, input_spec=SPEC)
    assert _same_outcome(fn, np.full((2, 3), 100.0, "float32"), sf) is UnboundLocalError
    for x in (MIXED, POSITIVE, NEGATIVE):
        _value_or_refusal(fn, x, sf)


def refused_on_one_path_only(x):
    h = x.max(axis=0)
    keep = [h]
    if x.sum() < 0.0:
        for row in x:
            if row.sum() > 0.0:
                h = h * 2.0
            h[0] = row.sum()
    return keep[0] + 1.0


def test_value_not_followed_on_one_path_leaves_the_other_path_alone(tmp_path):
    """The loop runs under a tensor `if`: the other path reads keep[0] unchanged and returns
    eager's value (in to_static and after jit.save / jit.load)."""
    fn = refused_on_one_path_only
    sf, loaded_fn = _agree_in_three_modes(fn, POSITIVE, tmp_path)
    for mode in (sf, loaded_fn):
        np.testing.assert_allclose(mode(paddle.to_tensor(MIXED)).numpy(),    # (its sum is > 0)
                                   fn(paddle.to_tensor(MIXED)).numpy(), rtol=1e-6)
        for x in (NEGATIVE, MIXED - 1.0):
            _value_or_refusal(fn, x, mode)


def refused_in_an_inner_loop_of_a_loop(x):
    g = x.max(axis=0)
    keep = [g]
    for r in x:
        h = keep[0]
        for row in x:
            if row.sum() > 0.0:
                h = h * 2.0
            h[0] = row.sum()
    return keep[0] + 1.0


def test_value_not_followed_in_an_inner_loop_is_never_another_number():
    """The outer loop carries keep[0] (changed in place in its body): a refusal must go with
    it, not leave the placeholder's zeros as its value."""
    _values_or_refusals(refused_in_an_inner_loop_of_a_loop)


def changed_in_place_under_an_if_in_the_body(x):
    h = x.max(axis=0)
    keep = [h]
    for row in x:
        if row.sum() > 0.0:
            h = h * 2.0
        if row.sum() < 5.0:
            h[0] = row.sum()
    return keep[0] + 1.0


def test_refusal_names_the_in_place_line_inside_a_tensor_if_of_the_body():
    """Fuzzer seed 213 (of the CI budget), 1000172: the refusal blamed the body's `if` (or the
    loop) that computed the value, not the in-place change inside it."""
    _values_or_refusals(changed_in_place_under_an_if_in_the_body)


# A refused value (runtime/side_effects.refused_value) is what the loops above leave for an
# object they cannot follow; made here directly, so that these tests do not depend on which
# loops are followed.
def refused_unless_reassigned(x):
    h = x.mean(axis=0)
    r = refused_value(h, "r cannot be computed", None)
    if x.sum() > 0.0:
        r = h * 2.0                # the positive path gives r a value
    for row in x:
        if row.sum() > 5.0:
            r = row                # carried by the loop, with its flag
    return r + h


def test_refused_value_fails_only_on_the_paths_that_read_it(tmp_path):
    sf = paddle.jit.to_static(refused_unless_reassigned, input_spec=SPEC)
    paddle.jit.save(sf, str(tmp_path / "model"), input_spec=SPEC)
    loaded = paddle.jit.load(str(tmp_path / "model"))
    big_last_row = np.array([[-9.0, -9.0, -9.0], [3.0, 3.0, 3.0]], "float32")    # sum < 0
    for mode in (sf, loaded):
        np.testing.assert_allclose(mode(paddle.to_tensor(POSITIVE)).numpy(), np.full(3, 3.0))
        np.testing.assert_allclose(mode(paddle.to_tensor(big_last_row)).numpy(),
                                   np.full(3, 0.0))        # r = the last row, h its mean
        for x in (NEGATIVE, np.zeros((0, 3), "float32")):
            with pytest.raises(ValueError, match="r cannot be computed"):
                mode(paddle.to_tensor(x))


def refused_then_changed_in_place_under_an_if(x):
    h = x.mean(axis=0)
    keep = [refused_value(h, "keep[0] cannot be computed", None)]
    g = x.sum() * 0.0
    if x.sum() > 0.0:
        keep[0] = h                # the object is replaced on this path
    else:
        keep[0][0] = 1.0           # and changed in place on this one: a read, so refused
    return keep[0] + g


def test_refused_value_changed_in_place_is_a_read():
    sf = paddle.jit.to_static(refused_then_changed_in_place_under_an_if, input_spec=SPEC)
    np.testing.assert_allclose(sf(paddle.to_tensor(POSITIVE)).numpy(), np.full(3, 1.0))
    with pytest.raises(ValueError, match=r"keep\[0\] cannot be computed"):
        sf(paddle.to_tensor(NEGATIVE))


def fails_on_both_branches_each_its_own_way(x):
    h = x.mean(axis=0)
    if x.sum() > 1.0:
        h = h + missing_on_this_path          # noqa: F821 - a global that does not exist
    else:
        h = h * z                             # noqa: F821 - a local never assigned
    z = h
    return z


@pytest.mark.parametrize("x, error, line_text", [
    (BIG, NameError, "h = h + missing_on_this_path"),
    (SMALL, UnboundLocalError, "h = h * z"),
])
def test_both_branches_failing_fail_with_the_error_of_the_path_taken(x, error, line_text):
    """Fuzzer seeds 5001065, 5001132, 6000454: the trace used to stop with the true branch's
    error whatever the path; each path now fails with its own, at its own line, as in eager."""
    with pytest.raises(error):
        fails_on_both_branches_each_its_own_way(paddle.to_tensor(x))
    sf = paddle.jit.to_static(fails_on_both_branches_each_its_own_way, input_spec=SPEC)
    with pytest.raises(error) as info:
        sf(paddle.to_tensor(x))
    assert line_text in str(info.value)


def _unassigned_before_a_failing_operand(x):
    if x.sum() > 0:
        z = x * 2.0
    return z + x[0]


def _unassigned_compared(x):
    if x.sum() > 0:
        z = x.sum()
    return x[0].sum() < z


@pytest.mark.parametrize("full_graph", [True, False])
def test_an_unassigned_operand_fails_before_the_operand_after_it(full_graph):
    """`z + x[0]` with no rows and `z` unassigned: Python reads `z` first (UnboundLocalError);
    the program checked `z` where the sum used it, after `x[0]` failed with IndexError."""
    sf = paddle.jit.to_static(_unassigned_before_a_failing_operand, input_spec=SPEC,
                              full_graph=full_graph)
    empty = paddle.zeros([0, 3])
    with pytest.raises(UnboundLocalError):
        _unassigned_before_a_failing_operand(empty)
    with pytest.raises(UnboundLocalError, match="'z'"):
        sf(empty)
    np.testing.assert_allclose(sf(paddle.to_tensor(BIG)).numpy(), BIG * 2.0 + BIG[0])


def test_an_unassigned_right_operand_of_a_comparison_fails_after_the_left():
    sf = paddle.jit.to_static(_unassigned_compared, input_spec=SPEC, full_graph=True)
    with pytest.raises(IndexError):
        _unassigned_compared(paddle.zeros([0, 3]))
    with pytest.raises(IndexError):
        sf(paddle.zeros([0, 3]))
    with pytest.raises(UnboundLocalError, match="'z'"):
        sf(paddle.to_tensor(-BIG))
    assert bool(sf(paddle.to_tensor(BIG))) == bool(_unassigned_compared(paddle.to_tensor(BIG)))


def local_of_a_nested_function_read_in_its_loop(x):
    g = x.max(axis=0)

    def inner(t):
        y = None
        for _ in range((x[:, 0] > 0.0).astype("int64").sum()):
            y = z * 2.0 if y is None else y + g     # z: inner's local, not yet assigned
        z = t + (g if y is None else y)
        return z
    return inner(g)


def user_lambda_reading_an_unassigned_enclosing_name(x):
    pick = lambda: z * 2.0                          # noqa: E731
    if x.sum() > 100.0:
        z = x
    return pick() if x.sum() > 0.0 else x


@pytest.mark.parametrize("full_graph", [True, False])
def test_a_nested_functions_local_read_by_a_converted_expression_is_unassigned(full_graph):
    """A local of a nested function read in `a if c else b` inside its tensor loop, before it
    is assigned: Python's UnboundLocalError, not a NameError of a free variable (the converter's
    lambda read it; fuzz seed 7160021548); a user's lambda still fails with NameError."""
    rows = np.array([[1.0, 2.0, 3.0]], "float32")
    for fn, error in ((local_of_a_nested_function_read_in_its_loop, UnboundLocalError),
                      (user_lambda_reading_an_unassigned_enclosing_name, NameError)):
        with pytest.raises(error) as eager:
            fn(paddle.to_tensor(rows))
        with pytest.raises(error) as static:
            paddle.jit.to_static(fn, full_graph=full_graph)(paddle.to_tensor(rows))
        assert isinstance(static.value, UnboundLocalError) == \
            isinstance(eager.value, UnboundLocalError)
        assert "'z'" in str(static.value)
    no_turn = np.array([[-1.0, 2.0, 3.0]], "float32")
    fn = local_of_a_nested_function_read_in_its_loop
    np.testing.assert_allclose(paddle.jit.to_static(fn, full_graph=full_graph)(
        paddle.to_tensor(no_turn)).numpy(), fn(paddle.to_tensor(no_turn)).numpy())
