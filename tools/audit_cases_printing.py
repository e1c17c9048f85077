"""Audit round 6, print / f-strings / assert with tensors: the values compared, and the text
printed on each call compared with eager's (`print_view`; the `[dy2st build]` line a trace
prints for a symbolic tensor aside) (tools/audit_cases.py)."""
import contextlib
import io

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, XS, C

PRINT_MODES = ("full_graph", "breaks")


def print_sum_under_tensor_if(x):
    if x.sum() > 0:
        print("positive", x.sum())
        y = x * 2.0
    else:
        print("negative", x.sum())
        y = x - 1.0
    return y


def print_item_formatted(x):
    print(f"mean={x.mean().item():.3f}")
    return x * 2.0


def print_per_row_in_loop(x):
    s = x[0] * 0.0
    for i, r in enumerate(x):
        s = s + r
        print("row", i, float(r.sum()))
    return s


def fstring_of_tensor_length(x):
    text = f"{x.max().item():.2f}|{x.shape[0]}"
    return x * float(len(text))


def assert_with_tensor_message(x):
    assert x.max() < 2.5, f"max is {x.max().item():.2f}"
    return x + 1.0


def print_python_count_from_loop(x):
    n = 0
    for r in x:
        if r.sum() > 0:
            n += 1
    print("count", n)
    return x * float(n)


def print_shape_and_dtype(x):
    print(x.shape, x.dtype)
    return x.sum(axis=0)


def print_star_list_sep(x):
    parts = [x.sum(), x.mean()]
    print(*[round(float(p), 3) for p in parts], sep=",")
    return parts[0] + parts[1]


def print_after_inplace_change(x):
    y = x * 1.0
    y[0] = 7.0
    print("first", float(y[0, 0]))
    return y


def repr_of_python_number_from_tensor(x):
    v = int((x > 0).astype("int64").sum())
    label = repr(v) + str(v * 2)
    return x * float(len(label)), label


PRINT_CASES = [print_sum_under_tensor_if, print_item_formatted, print_per_row_in_loop,
               print_python_count_from_loop, print_shape_and_dtype, print_star_list_sep,
               print_after_inplace_change]
CASES = [
    C(53, print_sum_under_tensor_if), C(53, print_item_formatted, refusal_ok=FG_SAVE),
    C(53, print_per_row_in_loop, refusal_ok=FG_SAVE), C(53, fstring_of_tensor_length,
                                                       refusal_ok=FG_SAVE),
    C(53, assert_with_tensor_message, refusal_ok=FG_SAVE),
    C(53, print_python_count_from_loop, refusal_ok=FG_SAVE), C(53, print_shape_and_dtype),
    C(53, print_star_list_sep, refusal_ok=FG_SAVE),
    C(53, print_after_inplace_change, refusal_ok=FG_SAVE),
    C(53, repr_of_python_number_from_tensor, refusal_ok=FG_SAVE),
]


def _printed(call, x) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            call(paddle.to_tensor(x))
        except Exception as e:  # noqa: BLE001 - a refusal prints its kind, compared below
            print(f"<raise {type(e).__name__}>")
    # the line a trace prints once for a symbolic tensor is dy2st's own (jst/printing.py)
    return "".join(ln for ln in out.getvalue().splitlines(keepends=True)
                   if not ln.startswith("[dy2st build]"))


def print_view(modes=PRINT_MODES) -> int:
    """Run PRINT_CASES eagerly and through to_static, comparing what each call prints; a mode
    that refuses (raises) on a call is skipped there. Prints the cases and modes that differ."""
    bad = 0
    calls = XS + XS[:1]     # the last call repeats the first: a program reused prints too
    for fn in PRINT_CASES:
        want = [_printed(fn, x) for (x,) in calls]
        for mode in modes:
            sf = paddle.jit.to_static(fn, full_graph=(mode == "full_graph"))
            for k, (x,) in enumerate(calls):
                got = _printed(sf, x)
                if got != want[k] and "<raise" not in got:
                    print(f"   printed by {fn.__name__} ({mode}, call {k}): {got!r} vs "
                          f"eager {want[k]!r}")
                    bad += 1
                    break
    print(f"{len(PRINT_CASES)} print cases: {bad} case-modes differ")
    return bad
