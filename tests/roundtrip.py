"""Save/load round trips checked the way the conformance runner checks them (importable as
`tests.roundtrip`).

`roundtrip_all(models, tmp)` runs every model eagerly and through to_static, saves each with
jit.save(InputSpecs with None dims), then loads ALL of them in ONE fresh interpreter (cwd an empty
folder, PYTHONPATH only the repo root, test modules blocked from import) and compares the loaded
outputs leaf by leaf with eager. Returns {name: None | reason}.

A model is `RT(name, factory, specs, inputs)`: factory() returns the function or a fresh Layer,
specs is [(shape, dtype), ...] and inputs a list of tuples of numpy arrays.
"""
import json
import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np

import dy2st as paddle

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class RT:
    def __init__(self, name, factory, specs, inputs):
        self.name, self.factory, self.specs, self.inputs = name, factory, specs, inputs


# ------------------------------------------------------------------ values (run.py's rules)
def _plain(x):
    if x is None or isinstance(x, (bool, int, float, str)):
        return ("py", x)
    if isinstance(x, np.generic):
        return ("py", x.item())
    if isinstance(x, (list, tuple)):
        return ("seq", [_plain(v) for v in x])
    if isinstance(x, dict):
        return ("dict", {str(k): _plain(v) for k, v in x.items()})
    if hasattr(x, "numpy"):
        return ("tensor", np.array(x.numpy()))
    return ("obj", repr(x))


def _leaves(p, out=None):
    out = [] if out is None else out
    if p[0] == "seq":
        for v in p[1]:
            _leaves(v, out)
    elif p[0] == "dict":
        for k in sorted(p[1]):
            _leaves(p[1][k], out)
    elif not (p[0] == "py" and p[1] is None):
        out.append(p)
    return out


def _kind(v):
    if isinstance(v, (bool, np.bool_)):
        return "b"
    if isinstance(v, (int, np.integer)):
        return "i"
    if isinstance(v, (float, np.floating)):
        return "f"
    k = np.asarray(v).dtype.kind
    return {"u": "i"}.get(k, k)


def _close(w, g):
    w, g = np.asarray(w), np.asarray(g)
    if w.dtype.kind == "b" or g.dtype.kind == "b":
        return np.array_equal(w.astype(bool), g.astype(bool))
    return bool(np.allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-5, atol=1e-6,
                            equal_nan=True))


def compare_leaf(want, got, where):
    (wt, w), (gt, g) = want, got
    if wt == "tensor":
        if gt != "tensor":
            return f"{where}: eager tensor, got {gt} {g!r}"
        if w.shape != g.shape:
            return f"{where}: shape {list(g.shape)} != eager {list(w.shape)}"
        if _kind(w) != _kind(g):
            return f"{where}: dtype {g.dtype} is not of the kind of eager {w.dtype}"
        return None if _close(w, g) else f"{where}: values {g!r} != eager {w!r}"
    if gt == "py" and _kind(g) == _kind(w):
        return None if _close(w, g) else f"{where}: {g!r} != eager {w!r}"
    if gt == "tensor" and np.size(g) == 1 and _kind(g) == _kind(w):
        return None if _close(w, np.reshape(g, ())) else f"{where}: {g!r} != eager {w!r}"
    return f"{where}: eager gave {type(w).__name__} {w!r}, got {gt} {g!r}"


def compare_tree(want, got, where="out"):
    """run.py's in-memory rule: same structure (lists == tuples), leaves by compare_leaf."""
    if want[0] in ("seq", "dict"):
        if got[0] != want[0]:
            return f"{where}: eager gave {want[0]}, got {got[0]}"
        if want[0] == "seq":
            if len(want[1]) != len(got[1]):
                return f"{where}: {len(got[1])} items, eager had {len(want[1])}"
            pairs = enumerate(zip(want[1], got[1]))
        else:
            if sorted(want[1]) != sorted(got[1]):
                return f"{where}: keys {sorted(got[1])} != eager {sorted(want[1])}"
            pairs = ((k, (want[1][k], got[1][k])) for k in sorted(want[1]))
        for k, (w, g) in pairs:
            r = compare_tree(w, g, f"{where}[{k!r}]")
            if r:
                return r
        return None
    if want == ("py", None) or (want[0] == "py" and isinstance(want[1], str)):
        return None if got == want else f"{where}: eager gave {want[1]!r}, got {got!r}"
    return compare_leaf(want, got, where)


def _t(values):
    return [paddle.to_tensor(v.copy()) if isinstance(v, np.ndarray) else v for v in values]


# ------------------------------------------------------------------ the loader process
_LOADER = textwrap.dedent(r"""
    import importlib.abc, json, os, sys, traceback
    import numpy as np

    class _Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "tests" or name.startswith(("tests.", "test_", "conftest")):
                raise ImportError(f"the loader must not import {name}")
    sys.meta_path.insert(0, _Block())
    import dy2st as paddle

    def plain_leaves(x, out):
        if x is None:
            return out
        if isinstance(x, (list, tuple)):
            for v in x:
                plain_leaves(v, out)
        elif isinstance(x, dict):
            for k in sorted(x, key=str):
                plain_leaves(x[k], out)
        elif isinstance(x, (bool, int, float)):
            out.append(("py", x))
        elif hasattr(x, "numpy"):
            out.append(("tensor", np.array(x.numpy())))
        else:
            out.append(("obj", repr(x)))
        return out

    root = sys.argv[1]
    for job in sorted(os.listdir(root)):
        d = os.path.join(root, job)
        meta = json.load(open(os.path.join(d, "meta.json")))
        result = {"error": None, "sets": []}
        arrays = {}
        try:
            model = paddle.jit.load(os.path.join(d, "model", "model"))
            inputs = np.load(os.path.join(d, "inputs.npz"))
            for k, n in enumerate(meta["n_args"]):
                try:
                    got = plain_leaves(model(*[paddle.to_tensor(inputs[f"s{k}_a{j}"])
                                               for j in range(n)]), [])
                except Exception as e:
                    result["sets"].append({"error": f"{type(e).__name__}: {e}"})
                    continue
                kinds = []
                for j, (tag, v) in enumerate(got):
                    kinds.append([tag, type(v).__name__ if tag == "py" else None])
                    arrays[f"s{k}_l{j}"] = np.asarray(v) if tag != "obj" else np.asarray(str(v))
                result["sets"].append({"error": None, "leaves": kinds})
        except Exception as e:
            result["error"] = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
        np.savez(os.path.join(d, "got.npz"), **arrays)
        json.dump(result, open(os.path.join(d, "got.json"), "w"))
""")


def _pyval(a, typename):
    return {"bool": bool, "int": int, "float": float}[typename](np.asarray(a).item())


def roundtrip_all(models, tmp):
    """{name: None (all good) | reason}; see the module docstring."""
    tmp = str(tmp)
    jobs = os.path.join(tmp, "jobs")
    os.makedirs(jobs, exist_ok=True)
    reasons, expected = {}, {}
    for idx, m in enumerate(models):
        try:
            target = m.factory()
            if isinstance(target, paddle.nn.Layer):
                target.eval()
            # a Layer's parameters are random: eager results come from the same instance
            eager = [_plain(target(*_t(values))) for values in m.inputs]
            static = paddle.jit.to_static(target, full_graph=True)
            for k, values in enumerate(m.inputs):
                r = compare_tree(eager[k], _plain(static(*_t(values))), f"static set {k}")
                if r:
                    raise AssertionError(r)
            d = os.path.join(jobs, f"{idx:04d}")
            os.makedirs(os.path.join(d, "model"))
            paddle.jit.save(static, os.path.join(d, "model", "model"),
                            input_spec=[paddle.static.InputSpec(list(s), dt) for s, dt in m.specs])
            np.savez(os.path.join(d, "inputs.npz"), **{f"s{k}_a{j}": v for k, vs in
                                                        enumerate(m.inputs) for j, v in enumerate(vs)})
            with open(os.path.join(d, "meta.json"), "w") as f:
                json.dump({"name": m.name, "n_args": [len(v) for v in m.inputs]}, f)
            expected[idx] = [_leaves(e) for e in eager]
            reasons[m.name] = "pending"
        except Exception as e:  # noqa: BLE001
            reasons[m.name] = f"before load: {type(e).__name__}: {e}\n{traceback.format_exc()}"
    empty = os.path.join(tmp, "cwd")
    os.makedirs(empty, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONPATH"] = REPO
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.run([sys.executable, "-c", _LOADER, jobs], cwd=empty, env=env,
                          capture_output=True, text=True, timeout=300)
    for idx, m in enumerate(models):
        if reasons.get(m.name) != "pending":
            continue
        d = os.path.join(jobs, f"{idx:04d}")
        if not os.path.exists(os.path.join(d, "got.json")):
            reasons[m.name] = f"loader never reported: {proc.stderr[-2000:]}"
            continue
        got = json.load(open(os.path.join(d, "got.json")))
        arrays = np.load(os.path.join(d, "got.npz"))
        reasons[m.name] = _compare_loaded(expected[idx], got, arrays)
    return reasons


def _compare_loaded(expected, got, arrays):
    if got["error"]:
        return f"jit.load: {got['error']}"
    for k, (want, s) in enumerate(zip(expected, got["sets"])):
        if s["error"]:
            return f"loaded set {k}: {s['error']}"
        if len(s["leaves"]) != len(want):
            return f"loaded set {k}: {len(s['leaves'])} outputs, eager had {len(want)}"
        for j, ((tag, pytype), w) in enumerate(zip(s["leaves"], want)):
            a = arrays[f"s{k}_l{j}"]
            g = ("py", _pyval(a, pytype)) if tag == "py" else (tag, a)
            r = compare_leaf(w, g, f"loaded set {k} output {j}")
            if r:
                return r
    return None
