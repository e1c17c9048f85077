"""onnxruntime's per-call time of examples/model.py (exported with dy2st.onnx.export) next to
dy2st's jit.load'ed model, measured in the same run on the same inputs; prints the ratio.

    python benchmarks/onnx_export.py
"""
import os
import sys
import tempfile
import timeit

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "examples"))

import dy2st as paddle  # noqa: E402
from model import RefineNet  # noqa: E402


def per_call(fn, repeat=5, number=200):
    """Best time of one call, in microseconds (after warm-up calls)."""
    for _ in range(50):
        fn()
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number * 1e6


def main() -> None:
    import onnxruntime
    paddle.seed(3)
    net = RefineNet()
    spec = [paddle.static.InputSpec([None, 4], "float32", "x")]
    with tempfile.TemporaryDirectory() as d:
        paddle.jit.save(net, os.path.join(d, "model"), input_spec=spec)
        loaded = paddle.jit.load(os.path.join(d, "model"))
        paddle.onnx.export(net, os.path.join(d, "model"), input_spec=spec)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        session = onnxruntime.InferenceSession(os.path.join(d, "model.onnx"), options,
                                               providers=["CPUExecutionProvider"])
        print(f"{'batch':>6} {'trips':>6} {'jit.load us':>12} {'onnxruntime us':>15} {'ratio':>7}")
        for batch, scale in ((1, 0.05), (1, 2.0), (64, 0.05), (64, 2.0)):
            x = (np.random.default_rng(batch).standard_normal((batch, 4)) * scale).astype("float32")
            out = loaded(x)
            got = session.run(None, {"x": x})
            assert np.allclose(got[0], out[0].numpy(), rtol=1e-5, atol=1e-6)
            t_dy2st = per_call(lambda: loaded(x))
            t_ort = per_call(lambda: session.run(None, {"x": x}))
            print(f"{batch:>6} {int(out[1].numpy()):>6} {t_dy2st:>12.1f} {t_ort:>15.1f} "
                  f"{t_ort / t_dy2st:>7.2f}")
    print("ratio = onnxruntime time / dy2st jit.load time (one thread, steady state)")


if __name__ == "__main__":
    main()
