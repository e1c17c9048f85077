"""Audit round 6, iteration: generators and `yield` in helpers (closed by a break, with a
`finally`), iterator classes, itertools, and zip / enumerate / map / filter / reversed over
tensors and lists of tensors under tensor conditions (tools/audit_cases.py)."""
# ruff: noqa: B023 - closures read loop variables late on purpose where that is the case
import itertools

import dy2st as paddle
from tools.audit_cases_python import FG_SAVE, SAVE, C


# ====================================================== generators and iterators (group 40)
def _windows(t):
    for i in range(t.shape[0] - 1):
        yield t[i], t[i + 1]


def generator_windows_tensor_if(x):
    s = x[0] * 0.0
    for a, b in _windows(x):
        if (a - b).sum() > 0:
            s = s + a
        else:
            s = s - b
    return s


CLOSED = [0]


def _reset_closed(k):
    CLOSED[0] = k


def _gen_with_finally(t):
    try:
        for r in t:
            yield r * 2.0
    finally:
        CLOSED[0] += 1


def generator_closed_by_tensor_break(x):
    s = x[0] * 0.0
    for v in _gen_with_finally(x):
        s = s + v
        if v.sum() > 1.0:
            break
    return s, CLOSED[0]


def iter_next_over_list_of_tensors(x):
    it = iter([x * 1.0, x * 2.0])
    a = next(it)
    b = next(it, None)
    c = next(it, None)
    return a + (b if c is None else c)


def generator_sum_with_tensor_filter(x):
    return x[0] * 0.0 + sum(r for r in x if r.sum() > 0.0)


def pairwise_rows(x):
    s = x[0] * 0.0
    for a, b in itertools.pairwise(x):
        s = s + a * b
    return s


def reversed_list_of_tensors(x):
    parts = [x * float(k) for k in range(3)]
    out = x[0] * 0.0
    for k, p in enumerate(reversed(parts)):
        if p.sum() > 0:
            out = out + p[0] * float(k)
    return out


class RowIter:
    def __init__(self, t):
        self.t = t
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.t.shape[0]:
            raise StopIteration
        self.i += 1
        return self.t[self.i - 1]


def custom_iterator_rows(x):
    s = x[0] * 0.0
    for r in RowIter(x):
        s = s + paddle.tanh(r)
    return s


def _scaled_rows(t, k):
    for r in t:
        if r.mean() > 0:
            yield r * k
        else:
            yield r - k


def yield_under_tensor_if(x):
    return paddle.stack(list(_scaled_rows(x, 2.0)))


def _chunks(t, n):
    yield from (t[i:i + n] for i in range(0, t.shape[0], n))


def yield_from_chunks(x):
    return [c.sum(axis=0) for c in _chunks(x, 2)]


def islice_and_chain(x):
    head = list(itertools.islice(x, 2))
    both = list(itertools.chain(head, [x[-1] * 2.0]))
    return paddle.stack(both).sum(axis=0)


COUNTER = itertools.count()


def generator_state_across_calls(x):
    # a Python iterator kept between calls: each call takes the next number
    return x * float(next(COUNTER) % 3)


def _reset_counter(k):
    global COUNTER
    COUNTER = itertools.count(k)


# ====================================================== zip / enumerate / map / filter (group 41)
def zip_rows_with_reversed_rows(x):
    s = x[0] * 0.0
    for a, b in zip(x, x[::-1]):
        if (a * b).sum() > 0:
            s = s + a
    return s


def map_builtin_over_rows(x):
    return paddle.stack(list(map(paddle.tanh, x)))


def filter_list_of_tensors_count(x):
    parts = [x * 1.0, x * -1.0, x * 2.0]
    kept = list(filter(lambda t: t.sum() > 0.0, parts))
    return x * float(len(kept))


def zip_tensor_with_shorter_list(x):
    s = x[0] * 0.0
    for r, w in zip(x, [1.0, 2.0, 3.0]):
        s = s + r * w
    return s


def enumerate_zip_nested_unpack(x):
    s = x[0] * 0.0
    for i, (a, b) in enumerate(zip(x, x * 2.0)):
        if i % 2 == 0:
            s = s + a
        else:
            s = s - b
    return s


def dict_of_zip_items_tensor_if(x):
    named = dict(zip(["a", "b", "c"], [x[0], x[0] * 2.0, x[0] * -1.0]))
    out = x[0] * 0.0
    for name, t in named.items():
        if t.sum() > 0:
            out = out + t * float(len(name))
    return out


def map_two_iterables(x):
    ws = [paddle.full([3], 0.5), paddle.full([3], 2.0)]
    return sum(map(lambda a, b: a * b, x, ws))


def any_over_tensor_generator(x):
    if any(r.sum() > 2.0 for r in x):
        return x * 2.0
    return x - 1.0


def all_over_list_comprehension(x):
    flags = [r.max() < 1.5 for r in x]
    if all(flags):
        return x + 1.0
    return x * 0.5


def zip_star_columns(x):
    cols = list(zip(*x))
    return paddle.stack([paddle.stack(list(c)) for c in cols])


def enumerate_with_tensor_continue(x):
    s = x[0] * 0.0
    n = 0
    for i, r in enumerate(x, start=1):
        if r.sum() < 0:
            continue
        s = s + r * float(i)
        n += 1
    return s, n


def sorted_rows_by_sum(x):
    rows_ = sorted(x, key=lambda r: float(r.sum()))
    return paddle.stack(rows_)


CASES = [
    C(40, generator_windows_tensor_if, refusal_ok=SAVE),
    C(40, generator_closed_by_tensor_break, between=_reset_closed, refusal_ok=FG_SAVE,
      save=False),
    C(40, iter_next_over_list_of_tensors), C(40, generator_sum_with_tensor_filter,
                                            refusal_ok=FG_SAVE),
    C(40, pairwise_rows, refusal_ok=SAVE), C(40, reversed_list_of_tensors),
    C(40, custom_iterator_rows, refusal_ok=SAVE), C(40, yield_under_tensor_if, refusal_ok=FG_SAVE),
    C(40, yield_from_chunks, refusal_ok=SAVE), C(40, islice_and_chain, refusal_ok=SAVE),
    C(40, generator_state_across_calls, between=_reset_counter, refusal_ok=FG_SAVE, save=False),
    C(41, zip_rows_with_reversed_rows, refusal_ok=SAVE), C(41, map_builtin_over_rows, refusal_ok=SAVE),
    C(41, filter_list_of_tensors_count, refusal_ok=FG_SAVE),
    C(41, zip_tensor_with_shorter_list, refusal_ok=SAVE),
    C(41, enumerate_zip_nested_unpack, refusal_ok=SAVE),
    C(41, dict_of_zip_items_tensor_if), C(41, map_two_iterables, refusal_ok=SAVE),
    C(41, any_over_tensor_generator, refusal_ok=FG_SAVE),
    C(41, all_over_list_comprehension, refusal_ok=FG_SAVE),
    C(41, zip_star_columns, refusal_ok=SAVE),
    C(41, enumerate_with_tensor_continue, refusal_ok=FG_SAVE),
    C(41, sorted_rows_by_sum, refusal_ok=FG_SAVE),
]
