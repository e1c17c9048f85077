"""Audit round 5, Python state changed by library calls inside the converted function (heapq,
bisect, random, setattr, next() of a global iterator, numpy `out=`) and read between calls
(tools/audit_cases.py)."""
import bisect
import heapq
import itertools
import random

import numpy as np

import dy2st as paddle
from tools.audit_cases_python import C

FG = ("full_graph",)    # a clear HiddenStateError at the line: no guard sees a random stream

HEAP = []


def heappush_global(x):
    heapq.heappush(HEAP, len(HEAP) * 2 + 1)
    return x * float(len(HEAP)) + float(HEAP[0])


def _heap(k):
    if k == 0:
        HEAP.clear()


SORTED = []


def bisect_insort_global(x):
    bisect.insort(SORTED, 3 - len(SORTED))
    return x * float(SORTED[0]) + float(len(SORTED))


def _sorted(k):
    if k == 0:
        SORTED.clear()


class Cfg:
    pass


CFG = Cfg()
CFG.k = 0


def setattr_builtin(x):
    setattr(CFG, "k", CFG.k + 1)  # noqa: B010 - the builtin is what is checked
    return x * float(CFG.k)


def _cfg(k):
    if k == 0:
        CFG.k = 0


STEP = itertools.count(1)


def next_of_global_iterator(x):
    k = next(STEP)
    return x * float(k)


def _step(k):
    global STEP
    if k == 0:
        STEP = itertools.count(1)


def python_random_read(x):
    return x * random.random()


def _seed(k):
    random.seed(k)


def numpy_random_read(x):
    return x + paddle.to_tensor(np.random.rand(3).astype("float32"))


def _np_seed(k):
    np.random.seed(k)


ORDER = [0, 1, 2]


def random_shuffle_global(x):
    random.shuffle(ORDER)
    return paddle.stack([x[:, i] for i in ORDER], axis=1)


def _order(k):
    random.seed(k)
    ORDER[:] = [0, 1, 2]


BUF = np.zeros(3, "float32")


def numpy_out_argument(x):
    np.add(BUF, 1.0, out=BUF)
    return x * paddle.to_tensor(BUF)


def _buf(k):
    if k == 0:
        BUF[:] = 0.0


DICT = {"n": 0}


def dict_update_via_setdefault_and_pop(x):
    DICT.setdefault("seen", []).append(1)
    n = len(DICT["seen"])
    return x * float(n)


def _dict(k):
    if k == 0:
        DICT.clear()


def vars_update(x):
    vars(CFG).update(k=CFG.k + 2)
    return x + float(CFG.k)


CASES = [
    C(36, heappush_global, between=_heap, save=False),
    C(36, bisect_insort_global, between=_sorted, save=False),
    C(36, setattr_builtin, between=_cfg, save=False),
    C(36, next_of_global_iterator, between=_step, save=False, refusal_ok=FG),
    C(36, python_random_read, between=_seed, save=False, refusal_ok=FG),
    C(36, numpy_random_read, between=_np_seed, save=False, refusal_ok=FG),
    C(36, random_shuffle_global, between=_order, save=False, refusal_ok=FG),
    C(36, numpy_out_argument, between=_buf, save=False),
    C(36, dict_update_via_setdefault_and_pop, between=_dict, save=False),
    C(36, vars_update, between=_cfg, save=False),
]
