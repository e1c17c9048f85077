"""Conversion under threads (issue 17): many threads converting fresh functions at once get
the eager results, no exception, and each function is converted once."""
import gc
import sys
import threading
import time
from contextlib import contextmanager

import numpy as np

import dy2st as paddle
from dy2st.jit import transform
from tests.support import import_source

THREADS = 8
JOIN_SECONDS = 120

FUNCTION = '''
def f{i}(x, n):
    s = x * {i}.0
    if s.mean() > 0:
        s = s + 1.0
    else:
        s = s - 1.0
    k = 0
    while k < n:
        s = s * 0.5 + x
        k += 1
    for j in range(3):
        s = s + j * {i}
    return paddle.tanh(s).sum()
'''


def fresh_functions(tmp_path, tag: str, n: int):
    source = "import dy2st as paddle\nimport numpy as np\n" + "".join(FUNCTION.format(i=i) for i in range(n))
    module = import_source(tmp_path, f"threads_{tag}", source)
    return [getattr(module, f"f{i}") for i in range(n)]


@contextmanager
def thread_switches_inside_collections():
    """Every garbage collection lets other threads run (as a weakref callback or __del__ run by
    the collector may): a collection triggered while a thread builds ast objects then switches
    threads in the middle of it, which is how CPython's shared ast state gets corrupted."""
    def let_others_run(phase, info):
        time.sleep(0)
    thresholds, interval = gc.get_threshold(), sys.getswitchinterval()
    gc.callbacks.append(let_others_run)
    gc.set_threshold(100)
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        gc.callbacks.remove(let_others_run)
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(interval)


def run_threads(work) -> None:
    """work(t) in THREADS threads released at once by a barrier; bounded in time."""
    barrier = threading.Barrier(THREADS)

    def start(t):
        barrier.wait(timeout=JOIN_SECONDS)
        work(t)
    threads = [threading.Thread(target=start, args=(t,), daemon=True) for t in range(THREADS)]
    for th in threads:
        th.start()
    deadline = time.monotonic() + JOIN_SECONDS
    for th in threads:
        th.join(max(0.0, deadline - time.monotonic()))
    assert not any(th.is_alive() for th in threads), "a thread did not finish in time"


def test_parallel_first_conversions_match_eager(tmp_path):
    x = paddle.to_tensor(np.linspace(-1, 1, 6).astype("float32"))
    failures = []
    with thread_switches_inside_collections():
        for round_ in range(3):
            fns = fresh_functions(tmp_path, f"round{round_}", 16)
            statics = [paddle.jit.to_static(f) for f in fns]
            wanted = [f(x, 2).numpy() for f in fns]

            def work(t):
                for k in range(len(fns)):
                    i = (k + 5 * t) % len(fns)        # threads start on different functions
                    try:
                        got = statics[i](x, 2).numpy()
                        if not np.allclose(got, wanted[i], rtol=1e-6):
                            failures.append((i, "wrong result", got, wanted[i]))
                    except Exception as e:  # noqa: BLE001 - every failure is reported
                        failures.append((i, type(e).__name__, str(e)[:200]))
            run_threads(work)
    assert failures == []


def test_a_function_raced_by_many_threads_is_converted_once(tmp_path, monkeypatch):
    built = []
    build = transform.build_code

    def counting_build(fn):
        built.append(fn.__name__)
        return build(fn)
    monkeypatch.setattr(transform, "build_code", counting_build)
    fns = fresh_functions(tmp_path, "race", 4)
    x = paddle.to_tensor(np.ones(3, "float32"))
    results = [[None] * len(fns) for _ in range(THREADS)]

    def work(t):
        for i, f in enumerate(fns):
            results[t][i] = paddle.jit.to_static(f)(x, 1).numpy()
    with thread_switches_inside_collections():
        run_threads(work)
    assert sorted(built) == sorted(f.__name__ for f in fns)
    for i, f in enumerate(fns):
        for t in range(THREADS):
            np.testing.assert_allclose(results[t][i], f(x, 1).numpy(), rtol=1e-6)


# A statement that breaks the graph (a tensor's value read in Python): such functions are
# outlined into regions and islands, which parses and compiles more ast trees (issue 31).
BREAKING = '''
def g{i}(x, n):
    s = x * {i}.0
    if s.mean() > 0:
        s = s + 1.0
    else:
        s = s - 1.0
    s = s + float(np.asarray(s.numpy()).sum() * 0)
    k = 0
    while k < n:
        s = s * 0.5 + x
        k += 1
    return paddle.tanh(s).sum()
'''


@contextmanager
def ast_work_outside_the_lock():
    """Every ast.parse / compile() of an ast tree made without transform.conversion_lock held,
    as (kind, innermost dy2st frame): each is a chance of CPython's SystemError under threads."""
    import ast
    import builtins
    import traceback
    found = []
    parse, compile_ = ast.parse, builtins.compile

    def where():
        frames = [f for f in traceback.extract_stack()[:-2] if "/dy2st/" in f.filename]
        return f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"

    def checked_parse(*args, **kwargs):
        if not transform.conversion_lock._is_owned():
            found.append(("ast.parse", where()))
        return parse(*args, **kwargs)

    def checked_compile(source, *args, **kwargs):
        if isinstance(source, ast.AST) and not transform.conversion_lock._is_owned():
            found.append(("compile", where()))
        return compile_(source, *args, **kwargs)
    ast.parse, builtins.compile = checked_parse, checked_compile
    try:
        yield found
    finally:
        ast.parse, builtins.compile = parse, compile_


def test_parallel_first_conversions_with_graph_breaks(tmp_path):
    """Fresh functions, a quarter of them breaking the graph, first converted by 8 threads at
    once: eager results, no exception, and no ast work outside the conversion lock."""
    x = paddle.to_tensor(np.linspace(-1, 1, 6).astype("float32"))
    failures = []
    source = "import dy2st as paddle\nimport numpy as np\n" + "".join(
        (BREAKING if i % 4 == 0 else FUNCTION).format(i=i).replace(f"def f{i}(", f"def g{i}(")
        for i in range(48))
    module = import_source(tmp_path, "threads_breaks", source)
    fns = [getattr(module, f"g{i}") for i in range(48)]
    statics = [paddle.jit.to_static(f, full_graph=False) for f in fns]
    wanted = [f(x, 2).numpy() for f in fns]

    def work(t):
        for k in range(len(fns)):
            i = (k + 7 * t) % len(fns)
            try:
                got = statics[i](x, 2).numpy()
                if not np.allclose(got, wanted[i], rtol=1e-6):
                    failures.append((i, "wrong result", got, wanted[i]))
            except Exception as e:  # noqa: BLE001 - every failure is reported
                failures.append((i, type(e).__name__, str(e)[:200]))
    with ast_work_outside_the_lock() as outside, thread_switches_inside_collections():
        run_threads(work)
    assert failures == []
    assert outside == []
