"""dy2st in one page: eager tensors, a static Program with cond and while_loop, and to_static on a
Layer (rewritten code, traced Program, export and reload)."""
import os
import sys

import numpy as np

import dy2st as paddle
from dy2st import static

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


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
    """The main job: convert a Layer with tensor control flow, show the rewritten code and the
    Program, compare with eager, then export it and run the exported model."""
    import os
    import tempfile

    from model import RefineNet

    paddle.seed(0)
    net = RefineNet()
    net.eval()
    inputs = [paddle.to_tensor(np.random.default_rng(k).standard_normal((n, 4)).astype("float32") * s)
              for k, n, s in ((1, 3, 0.05), (2, 5, 4.0))]
    eager = [net(x) for x in inputs]
    static_net = paddle.jit.to_static(net, input_spec=[static.InputSpec([None, 4], "float32")])
    print("\nTransformed forward():")
    print(paddle.jit.to_code(net))
    for x, (want, want_steps) in zip(inputs, eager):
        got, steps = static_net(x)
        print(f"batch {x.shape[0]}: static == eager: {np.allclose(got.numpy(), want.numpy(), atol=1e-5)}, "
              f"refine steps {int(steps)} (eager {int(want_steps)})")
    print("\nTraced Program:")
    print(static_net.forward.program)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "refine")
        paddle.jit.save(static_net, path)
        loaded = paddle.jit.load(path)
        out, _ = loaded(inputs[1])
        print(f"\nsaved to {path}.json/.npz; loaded model == eager: "
              f"{np.allclose(out.numpy(), eager[1][0].numpy(), atol=1e-5)}")


if __name__ == "__main__":
    eager_demo()
    static_demo()
    to_static_demo()
