"""Random static Programs for pass tests, and a checker that runs a program before and after a
pass on random inputs and demands identical results (values, dtypes, shapes, inputs untouched)."""
from __future__ import annotations

import random
from typing import Callable, List, Tuple

import numpy as np

import dy2st as paddle
from dy2st import static
from dy2st.runtime.executor import CompiledProgram
from dy2st.runtime.program import Program
from dy2st.runtime.registry import apply

SHAPE = [3, 4]
FEEDS = ["x", "y"]


def _pick(rng: random.Random, pool: List) -> object:
    # favour recent values so chains get long, but reach back too
    return pool[-1 - min(int(rng.expovariate(0.5)), len(pool) - 1)]


def _unary(rng, v):
    return rng.choice([paddle.tanh, paddle.abs, paddle.neg, paddle.square, paddle.sin,
                       paddle.cos])(v)


def _step(rng: random.Random, pool: List, depth: int) -> object:
    a, b = _pick(rng, pool), _pick(rng, pool)
    kind = rng.randrange(19)
    if kind == 0:
        return rng.choice([paddle.add, paddle.subtract, paddle.multiply, paddle.maximum])(a, b)
    if kind == 1:
        return _unary(rng, a)
    if kind == 2:           # all-constant expressions (folding)
        c = paddle.full([], rng.choice([0.5, 2.0, -1.5]), "float32") * \
            paddle.full([], rng.choice([3.0, -0.25]), "float32")
        return a + c
    if kind == 3:
        return paddle.full(SHAPE, 1.5, "float32") + paddle.full(SHAPE, rng.choice([0.0, -0.0, 2.0]), "float32") + a
    if kind == 4:           # the same expression twice (CSE)
        return paddle.tanh(a) + paddle.tanh(a)
    if kind == 5:
        return paddle.multiply(a, b) - paddle.multiply(a, b)
    if kind == 6:           # no-op and real casts (apply: paddle.cast turns a no-op into assign)
        if rng.random() < 0.5:
            return apply("cast", [apply("cast", [a], {"dtype": "float32"})], {"dtype": "float32"})
        return paddle.cast(paddle.cast(a, "float64"), "float32")
    if kind == 7:           # no-op reshape, a view reshape and back
        return paddle.reshape(paddle.reshape(paddle.reshape(a, SHAPE), [4, 3]), SHAPE)
    if kind == 8:           # views of a fresh value that stay live while it is read
        t = paddle.tanh(a)
        view = t[::-1]
        u = t + 1.0
        return view * u
    if kind == 9:
        t = paddle.exp(paddle.tanh(a))
        tt = paddle.transpose(t, [1, 0])
        s = t * 2.0
        return paddle.transpose(tt, [1, 0]) - s
    if kind == 10:
        return paddle.assign(a) + b
    if kind == 11:
        return paddle.matmul(paddle.matmul(a, paddle.transpose(b, [1, 0])), a) * 0.1
    if kind == 12 and depth < 2:
        pred = paddle.mean(a) > 0.0
        return static.nn.cond(pred, lambda: _chain(rng, [a, b], depth + 1),
                              lambda: _chain(rng, [b, a], depth + 1))
    if kind == 13 and depth < 2:
        i = paddle.zeros([], "int64")
        n = rng.randrange(0, 4)
        body_seed = rng.randrange(1 << 30)

        def body(i, v):
            r = random.Random(body_seed)
            return [i + 1, _chain(r, [v, b], depth + 1)]
        _, out = static.nn.while_loop(lambda i, v: i < n, body, [i, a])
        return out
    if kind == 14:          # random ops: never folded or merged
        return a + paddle.rand(SHAPE) + paddle.rand(SHAPE)
    if kind == 15:
        return a + paddle.full(SHAPE, 2.0, "float32") * paddle.full(SHAPE, 2.0, "float32")
    if kind == 16:
        return paddle.maximum(a, paddle.zeros(SHAPE)) * paddle.tanh(a)
    if kind == 17:          # x op x: one buffer for both operands
        t = paddle.sin(a)
        return t * t
    return paddle.tanh(a * 0.5 + b)


def _chain(rng: random.Random, pool: List, depth: int) -> object:
    pool = list(pool)
    for _ in range(rng.randrange(1, 5)):
        pool.append(_step(rng, pool, depth))
    return pool[-1]


def random_program(seed: int, n_steps: int = 10) -> Tuple[Program, List[str], List[str]]:
    rng = random.Random(seed)
    main = static.Program()
    with static.program_guard(main):
        pool = [static.data(n, SHAPE, "float32") for n in FEEDS]
        for _ in range(n_steps):
            pool.append(_step(rng, pool, 0))
        fetch = [pool[-1]] + rng.sample(pool[:-1], rng.randrange(0, 3))
    main.feed_names = list(FEEDS)
    main.fetch_names = list(dict.fromkeys(v.name for v in fetch))
    return main, list(FEEDS), main.fetch_names


def run(program: Program, feeds: List[str], fetch: List[str], arrays: List[np.ndarray],
        times: int = 2) -> List[List[np.ndarray]]:
    compiled = CompiledProgram(program, feeds, fetch)
    results = []
    for _ in range(times):
        paddle.seed(7)
        given = [a.copy() for a in arrays]
        outs = compiled(given)
        for g, a in zip(given, arrays):
            np.testing.assert_array_equal(g, a, err_msg="a feed was written to")
        results.append([np.array(o, copy=True) for o in outs])
    return results


def assert_identical(before: List[List[np.ndarray]], after: List[List[np.ndarray]]) -> None:
    for rb, ra in zip(before, after):
        assert len(rb) == len(ra)
        for b, a in zip(rb, ra):
            assert b.dtype == a.dtype and b.shape == a.shape
            assert b.tobytes() == a.tobytes(), (b, a)


def check_pass(apply_pass: Callable[[Program], object], seeds: range, prepare=None) -> int:
    """Run each random program before and after the pass; returns how many programs changed."""
    changed = 0
    for seed in seeds:
        ref, feeds, fetch = random_program(seed)
        opt, _, _ = random_program(seed)
        if prepare is not None:
            prepare(ref)
            prepare(opt)
        n_before = opt.num_ops()
        result = apply_pass(opt)
        changed += bool(result) or opt.num_ops() != n_before
        rng = np.random.default_rng(seed)
        for _ in range(2):
            arrays = [rng.standard_normal(SHAPE).astype("float32") for _ in feeds]
            assert_identical(run(ref, feeds, fetch, arrays), run(opt, feeds, fetch, arrays))
    return changed


def build_program(fn):
    """A Program over one input x: float32[2, 3], fetching fn(x)."""
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [2, 3], "float32")
        out = fn(x)
    main.feed_names, main.fetch_names = ["x"], [out.name]
    return main
