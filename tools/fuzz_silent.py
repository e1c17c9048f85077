"""Generators of the differential fuzzer (tools/fuzz.py) for the silent-result cases of issue 24:
no_grad blocks, Python values read from tensors (and Counter/sorted/dict keys over them),
globals the function writes, closures made in loops, walrus expressions, tensors changed in
place after they were appended to a list, dict keys added in loops, and Layers with forward
hooks saved by jit.save. They draw from their own random stream (`silent <seed>`), so every
program that does not use them is generated as before."""
from __future__ import annotations

import random
from typing import List, Tuple

import numpy as np

# Snippets inserted before a statement of f (at its indent). Names end in 9 so that they never
# meet the generator's own names. Those of PYTHON_LOGIC need the number itself in Python code
# (a dict key, sorting, text): one graph cannot hold that, so such programs run with
# full_graph=False (graph breaks), as do tensors written to globals and keys added in loops.
NO_GRAD = [
    ["with paddle.no_grad():", "    g = g * h + s"],
    ["with paddle.set_grad_enabled(False):", "    h = paddle.tanh(h) * g"],
    ["g = g + frozen9(h)"],
    ["with paddle.no_grad():", "    h[1] = g[0] * 2.0"],
    ["with paddle.no_grad():", "    acc[0] = acc[0] * h", "    s = s * 0.5"],
    ["with paddle.no_grad():", "    t9 = h * g", "    with paddle.enable_grad():",
     "        g = g + t9 * h"],
]
PYTHON_VALUES = [
    ["g = g * h.max().item()"],
    ["s = s + float(g.mean())"],
    ["if h.sum().item() > 0.5:", "    g = g + 1.0"],
    ["vals9 = h.tolist()", "g = g + vals9[0] * vals9[2]"],
    ["g = g * sum(h.tolist())"],
    ["h = h + int(x.shape[0]) * 0.5"],
    ["if bool(g.mean() > s):", "    h = h * 0.5"],
    ["m9 = g.numpy().tolist()", "h = h * (m9[1] - 0.5)"],
]
PYTHON_LOGIC = [
    ["ids9 = (x[:, 0] > 0.0).astype('int64').tolist()",
     "g = g + float(collections.Counter(ids9)[1])"],
    ["order9 = sorted(h.tolist())", "g = g + order9[0] - order9[-1]"],
    ["seen9 = {}", "for v9 in h.tolist():", "    seen9[round(v9, 1)] = v9",
     "g = g + len(seen9)"],
    ["text9 = f'{s.item():.3f}'", "s = s + float(text9)"],
    ["best9 = max(range(3), key=lambda k9: h.tolist()[k9])", "g = g + h[best9]"],
]
CLOSURES = [
    ["fns9 = []", "for k9 in range(3):", "    fns9.append(lambda t: t * k9 + s)",
     "h = fns9[0](h) + fns9[1](g)"],
    ["fns9 = []", "for k9 in range(2):", "    def shift9(t):", "        return t + k9 * 0.5",
     "    fns9.append(shift9)", "g = fns9[0](g)"],
    ["fns9 = [lambda t: t * j9 for j9 in range(3)]", "h = fns9[0](h) + fns9[2](g)"],
    ["fns9 = []", "for k9 in range(3):", "    fns9.append(lambda t, k9=k9: t * k9)",
     "h = fns9[1](h) + fns9[2](g)"],
    ["fns9 = []", "k9 = 0", "while k9 < 2:", "    fns9.append(lambda t: t - k9 * g)",
     "    k9 += 1", "h = fns9[0](h)"],
]
WALRUS = [
    ["w9 = s * 0.0", "while (w9 := w9 + 0.5) < 1.6:", "    h = h * 0.9"],
    ["if (m9 := h.mean()) > s:", "    g = g + m9"],
    ["n9 = 0", "while (n9 := n9 + 1) < 3:", "    g = g + h * 0.25"],
    ["g = g * (q9 := s * 0.5) + q9"],
]
APPENDED = [
    ["lst9 = []", "for r9 in x:", "    t9 = r9 * 2.0", "    lst9.append(t9)",
     "    t9[0] = t9[1] + s", "g = g + paddle.stack(lst9).sum(axis=0)"],
    ["lst9 = []", "for k9 in range(x.shape[0]):", "    t9 = x[k9] + h", "    lst9.append(t9)",
     "    t9.multiply_(g)", "h = h + paddle.stack(lst9).mean(axis=0)"],
    ["lst9 = [h * 1.0]", "t9 = lst9[0]", "t9[2] = s", "g = g + lst9[0]"],
    ["box9 = {'acc': []}", "for r9 in x:", "    box9['acc'].append(r9 * s)",
     "h = h + paddle.stack(box9['acc']).sum(axis=0)"],
]
GLOBALS = [["GN9 = c + 2", "h = h * GN9"], ["GN9 = GN9 * 0 + 3", "g = g - GN9 * 0.1"]]
# full_graph=False: keys added in a tensor loop (a refusal in one graph). (A tensor written to
# a global and read after a break is issue 23's: the region reads the global it saw first.)
BREAKING = [
    ["dd9 = {}", "for r9 in x:", "    dd9['k'] = r9 * 2.0", "g = g + dd9['k']"],
    ["dd9 = {'n': s}", "for r9 in x:", "    dd9['m' + str(len(dd9))] = r9", "g = g + len(dd9)"],
]
# More of some kinds, drawn from a stream of their own (`more`, see add_silent), so that the
# programs of earlier seeds stay as they were: a tensor written to a global (a graph break with
# full_graph=False), a sublayer's pre-hook, and `:=` inside comprehensions (the element over a
# tensor's rows, a tensor filter over a Python range, a dict comprehension).
MORE = {
    "breaking": [["GT9 = h * 2.0", "g = g + GT9"],
                 ["GT9 = g * 0.5", "GT9 = GT9 + h", "h = h - GT9"]],
    "walrus": [["vals9 = [(y9 := r9 * 0.5) for r9 in x]", "g = g + y9 + vals9[0]"],
               ["ks9 = [k9 for k9 in range(3) if (t9 := h[k9]) > 0.0]",
                "h = h + t9 * len(ks9)"],
               ["m9 = {k9: (u9 := g[k9] * 2.0) for k9 in range(3)}", "g = g * u9 + m9[1]"]],
}
MORE_HOOK = "    net.inner.register_forward_pre_hook(lambda layer, inputs: (inputs[0] + 0.25,))"
# True: a graph-breaking snippet (PYTHON_LOGIC, BREAKING) goes anywhere in the random f; False
# makes f only the snippet and its return (the form before 2026-11-29; tools/fuzz.py
# --no-whole-function-breaks reproduces its programs; docs/fuzzing.md)
WHOLE_FUNCTION_BREAKS = True
KINDS = ["no_grad", "values", "logic", "closures", "walrus", "appended", "globals",
         "breaking", "hooks"]
FROZEN = ["@paddle.no_grad()", "def frozen9(t):", "    return t * t + 0.5", "", ""]
HOOKED = [
    "", "",
    "class Inner9(paddle.nn.Layer):",
    "    def forward(self, t):",
    "        return t * 2.0",
    "", "",
    "class Net9(paddle.nn.Layer):",
    "    def __init__(self):",
    "        super().__init__()",
    "        self.inner = Inner9()",
    "",
    "    def forward(self, x):",
    "        return f(self.inner(x))",
    "", "",
    "def make():",
    "    net = Net9()",
]
HOOKS = [
    "    net.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 0.5 + 0.1,))",
    "    net.register_forward_post_hook(lambda layer, inputs, out: out * 2.0 - "
    "inputs[0].mean(axis=0))",
    "    net.inner.register_forward_post_hook(lambda layer, inputs, out: out + 1.0)",
    "    net.register_forward_post_hook(lambda layer, inputs, out: None)",
]


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def add_silent(gen, head: List[str]) -> Tuple[List[str], List[str]]:
    """Insert one snippet of a kind drawn from gen.silent_rng into gen's f (gen.lines); returns
    the new head (helpers, imports) and lines to append after f. Sets gen.full_graph = False
    for snippets one graph cannot hold."""
    r = gen.silent_rng
    # seeded by the silent stream's state, drawing nothing from it
    more = random.Random(repr(r.getstate()[1][:8]))
    kind = r.choice(KINDS)
    tail: List[str] = []
    if kind == "hooks":
        tail = HOOKED + [h for h in HOOKS if r.random() < 0.6] + \
            ([MORE_HOOK] if more.random() < 0.4 else []) + ["    return net"]
        return head, tail
    snippet = r.choice({"no_grad": NO_GRAD, "values": PYTHON_VALUES, "logic": PYTHON_LOGIC,
                        "closures": CLOSURES, "walrus": WALRUS, "appended": APPENDED,
                        "globals": GLOBALS, "breaking": BREAKING}[kind])
    if kind in MORE and more.random() < 0.4:
        snippet = more.choice(MORE[kind])
    spots = gen.spots(before_the_last_return=True)
    if kind == "globals":
        # first: a global assigned under an `if`, in a loop or after a `return` inside one
        # is refused (docs/conversion_limits.md)
        spots = [0]
    elif kind in ("logic", "breaking") and not WHOLE_FUNCTION_BREAKS:
        # f is only the snippet and the return: with graph breaks, a tensor changed in place
        # in one compiled region does not reach its aliases in the others (docs/fuzzing.md,
        # open), which the random statements would keep finding
        gen.lines = [t for t in gen.lines if t.startswith("    return h + g + ")]
        spots = [0]
    i = r.choice(spots)
    indent = _indent(gen.lines[i])
    gen.lines[i:i] = [indent + t for t in snippet]
    at = head.index("def f(x):")
    if kind in ("logic", "breaking"):
        gen.full_graph = False
        head = head[:at] + ["FULL_GRAPH = False", "", ""] + head[at:]
        at += 3
    if any("frozen9(" in t for t in snippet):
        head = head[:at] + FROZEN + head[at:]
    if any("collections." in t for t in snippet):
        head = ["import collections"] + head
    names = sorted({n for n in ("GN9", "GT9") if any(n in t for t in snippet)})
    if names:
        head = head[:at] + [f"{n} = 1" for n in names] + ["", ""] + head[at:]
        gen.lines.insert(0, f"    global {', '.join(names)}")
    return head, tail


WRITTEN_GLOBALS = ("GN9", "GT9")     # the globals the snippets above make f assign


def written_globals(module) -> dict:
    """The values of the globals f writes, as numbers or numpy arrays (the eager and the static
    run share the module: its state after each call is compared)."""
    out = {}
    for name in WRITTEN_GLOBALS:
        if hasattr(module, name):
            v = getattr(module, name)
            out[name] = np.array(v.numpy()) if hasattr(v, "numpy") else v
    return out


def same_globals(a: dict, b: dict) -> bool:
    """Whether two written_globals agree (numbers equal, arrays close)."""
    if a.keys() != b.keys():
        return False
    for name in a:
        u, v = a[name], b[name]
        if isinstance(u, np.ndarray) != isinstance(v, np.ndarray):
            return False
        if isinstance(u, np.ndarray):
            if u.shape != v.shape or not np.allclose(u, v, rtol=1e-4, atol=1e-4, equal_nan=True):
                return False
        elif type(u) is not type(v) or u != v:
            return False
    return True
