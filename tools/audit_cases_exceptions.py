"""Audit round 6, exceptions and `with` around tensor control flow: try/except/else/finally over
tensor `if`s and loops, errors raised under tensor conditions, and context managers of the
user's own whose enter/exit change Python state (tools/audit_cases.py)."""
import contextlib

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, C


# ====================================================== try / except / finally (group 38)
def except_in_loop_python_index(x):
    acc = x[0] * 0.0
    for i in range(x.shape[0]):
        try:
            if i == 1:
                raise KeyError(i)
            acc = acc + x[i]
        except KeyError:
            acc = acc - 1.0
    return acc


def raise_in_tensor_loop_caught(x):
    s = x[0] * 0.0
    try:
        for r in x:
            if r.sum() > 2.0:
                raise ValueError("big")
            s = s + r
    except ValueError:
        s = s * -1.0
    return s


def finally_after_tensor_if(x):
    try:
        y = x * 2.0
        if y.sum() > 0:
            y = y + 1.0
    finally:
        y = y * 0.5
    return y


def raise_under_tensor_condition(x):
    y = x * 2.0
    if y.mean() > 1.0:
        raise ValueError("too large")
    return y


def assert_caught(x):
    try:
        assert x.sum() > 0, "negative"
        y = x * 2.0
    except AssertionError:
        y = -x
    return y


def exception_message_used(x):
    try:
        k = int(x.shape[0])
        if k > 2:
            raise ValueError(f"rows {k}")
        msg = "ok"
    except ValueError as e:
        msg = str(e)
    return x * float(len(msg))


def try_else_break_in_tensor_loop(x):
    acc = x[0] * 0.0
    for r in x:
        try:
            v = r * 2.0
        except ZeroDivisionError:
            v = r
        else:
            if v.sum() > 1.0:
                break
        acc = acc + v
    return acc


def except_shape_error_fallback(x):
    try:
        y = x.reshape([2, -1]).sum(axis=0)
    except Exception:  # noqa: BLE001 - the user's program catches whatever reshape raises
        y = x.sum(axis=0)
    return y


def finally_return_overrides_value(x):
    def pick(t):
        try:
            if t.sum() > 0:
                return t * 2.0
            return t * 3.0
        finally:
            pass
    return pick(x) + 1.0


def nested_try_reraise(x):
    y = x * 1.0
    try:
        try:
            if x.shape[0] > 2:
                raise KeyError("inner")
            y = y + 1.0
        except KeyError:
            y = y * 2.0
            raise
    except KeyError:
        y = y - 3.0
    return y


# ====================================================== with and context managers (group 39)
class Tracked:
    enters = 0
    exits = 0

    def __enter__(self):
        Tracked.enters += 1
        return self

    def __exit__(self, *exc):
        Tracked.exits += 1
        return False


def _reset_tracked(k):
    Tracked.enters = Tracked.exits = k


def with_counter_around_tensor_loop(x):
    with Tracked():
        s = x[0] * 0.0
        for r in x:
            if r.sum() > 0:
                s = s + r
    return s * float(Tracked.exits)


def return_inside_with_under_tensor_if(x):
    with Tracked():
        if x.mean() > 0:
            return x * 2.0
        y = x - 1.0
    return y * float(Tracked.exits)


class Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def with_swallows_raise_under_tensor_if(x):
    y = x * 1.0
    with Swallow():
        if x.sum() > 0:
            raise ValueError("swallowed")
        y = y * 2.0
    return y


STATE = {"depth": 0}


@contextlib.contextmanager
def scaled(k):
    STATE["depth"] += 1
    try:
        yield k
    finally:
        STATE["depth"] -= 1


def contextmanager_nested_depth(x):
    with scaled(2.0) as a:
        with scaled(3.0) as b:
            d = STATE["depth"]
            y = x * a * b * float(d)
            if y.sum() > 0:
                y = y - 1.0
    return y + float(STATE["depth"])


class Accum:
    def __init__(self, t):
        self.t = t

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.t = self.t * 2.0
        return False


def exit_changes_tensor_attr(x):
    acc = Accum(x[0])
    with acc:
        if x.sum() > 0:
            acc.t = acc.t + 1.0
    return acc.t


GRAD_ON = [True]


def _flip_grad(k):
    GRAD_ON[0] = k % 2 == 0


def set_grad_enabled_from_global(x):
    with paddle.set_grad_enabled(GRAD_ON[0]):
        y = x * x
    return y + x


def with_in_helper_in_tensor_loop(x):
    def step(r):
        with Tracked():
            return r * float(Tracked.exits + 1)
    s = x[0] * 0.0
    for r in x:
        if r.mean() < 0:
            continue
        s = s + step(r)
    return s, Tracked.exits


@contextlib.contextmanager
def clipped(t):
    box = [t]
    yield box
    box[0] = box[0].clip(-1.0, 1.0)


def contextmanager_writes_after_yield(x):
    with clipped(x * 2.0) as box:
        if x.sum() > 0:
            box[0] = box[0] + 1.0
    return box[0]


CASES = [
    C(38, except_in_loop_python_index, refusal_ok=FG_SAVE),
    C(38, raise_in_tensor_loop_caught, refusal_ok=FG_SAVE),
    C(38, finally_after_tensor_if), C(38, raise_under_tensor_condition, refusal_ok=FG_SAVE),
    C(38, assert_caught, refusal_ok=FG_SAVE), C(38, exception_message_used, refusal_ok=FG_SAVE),
    C(38, try_else_break_in_tensor_loop, refusal_ok=FG_SAVE),
    C(38, except_shape_error_fallback, refusal_ok=FG_SAVE),
    C(38, finally_return_overrides_value), C(38, nested_try_reraise, refusal_ok=FG_SAVE),
    C(39, with_counter_around_tensor_loop, between=_reset_tracked, save=False),
    C(39, return_inside_with_under_tensor_if, between=_reset_tracked, save=False),
    C(39, with_swallows_raise_under_tensor_if, refusal_ok=FG_SAVE),
    C(39, contextmanager_nested_depth), C(39, exit_changes_tensor_attr),
    C(39, set_grad_enabled_from_global, between=_flip_grad, save=False),
    C(39, with_in_helper_in_tensor_loop, between=_reset_tracked, save=False,
      refusal_ok=FG_SAVE),
    C(39, contextmanager_writes_after_yield),
]
