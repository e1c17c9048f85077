"""dy2st in one page: eager tensors, then a static Program with cond and while_loop built and run."""
import numpy as np

import dy2st as paddle
from dy2st import static


def eager_demo() -> None:
    """Eager mode: every op computes at once on numpy arrays."""
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    print("x @ x =", (x @ x).tolist())
    print("x.mean() =", x.mean().item(), "| dtype:", x.dtype, "| shape:", x.shape)
    print("relu-like max(x - 2, 0) =", paddle.maximum(x - 2, paddle.zeros_like(x)).tolist())


def build_program() -> tuple:
    """Static mode: the same calls append operators to a Program instead of computing."""
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3], "float32")         # unknown batch size
        total = x.sum()
        # Tensor-dependent branch: a `cond` op with two closed sub-blocks.
        y = static.nn.cond(total > 0, lambda: x * 2.0, lambda: -x)
        # Tensor-dependent loop: double `acc` until it exceeds the limit.
        limit = y.abs().max()
        acc = paddle.ones([], "float32")
        steps = paddle.zeros([], "int64")
        steps, acc = static.nn.while_loop(lambda s, a: a < limit,
                                          lambda s, a: (s + 1, a * 2.0),
                                          [steps, acc])
    return main, [y, steps, acc]


def static_demo() -> None:
    main, fetch = build_program()
    print("\nProgram text:")
    print(main)
    exe = static.Executor()
    for feed in (np.full((2, 3), 1.5, "float32"), np.arange(-12, 0, dtype="float32").reshape(4, 3)):
        y, steps, acc = exe.run(main, feed={"x": feed}, fetch_list=fetch)
        branch = "x * 2" if feed.sum() > 0 else "-x"
        print(f"\nfeed shape {list(feed.shape)}: branch {branch}, y[0] = {y[0].tolist()}, "
              f"loop ran {int(steps)} times, acc = {float(acc)}")


def to_static_demo() -> None:
    """The converted-function path, once dy2st.jit.to_static is available."""
    try:
        from dy2st.jit import to_static
    except ImportError:
        print("\n(dy2st.jit.to_static is not available yet)")
        return

    def f(x):
        if x.mean() > 0:
            x = x * 2
        return x

    g = to_static(f)
    x = paddle.to_tensor([1.0, -3.0])
    print("\nto_static(f)(x) =", g(x).tolist(), "| eager f(x) =", f(x).tolist())


if __name__ == "__main__":
    eager_demo()
    static_demo()
    to_static_demo()
