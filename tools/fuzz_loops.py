"""Generators of the differential fuzzer (tools/fuzz.py) for tensor loops whose loop variables
change from turn to turn (issue 24, items 9 and 10): dict keys added or deleted, a variable that
starts as None, a dtype that widens, also in programs with graph breaks. The trip counts come
from the data (0 on some inputs). They draw from their own random stream (`loops <seed>`), so
every other program is generated as before."""
from __future__ import annotations

from typing import List

# The trip count of a snippet's loop: how many rows have a column above a threshold (0 for some
# of the fuzzer's inputs, several for others).
COUNTS = ["(x[:, 0] > 0.0).astype('int64').sum()", "(x[:, 1] > 0.3).astype('int64').sum()",
          "(x[:, 2] > -0.2).astype('int64').sum()"]

# Snippets inserted before a statement of f (at its indent); `{n}` is a trip count. Names end
# in 8 so that they never meet the generator's own names (or the silent generators', in 9).
SNIPPETS = [
    ["dk8 = {'a': h * 1.0}", "for i8 in range({n}):",
     "    dk8['b'] = dk8['a'] * 0.5 + (dk8['b'] if 'b' in dk8 else g)",
     "g = g + dk8.get('b', h)"],
    ["dk8 = {'a': h * 1.0, 'b': g * 2.0}", "k8 = paddle.zeros([], 'int64')", "while k8 < {n}:",
     "    dk8.pop('b', None)", "    dk8['a'] = dk8['a'] + s", "    k8 = k8 + 1",
     "h = h + len(dk8) + (dk8['b'] if 'b' in dk8 else g * s)"],
    ["dk8 = {}", "for i8 in range({n}):", "    dk8['s'] = h.sum()", "    dk8['m'] = g * 0.5",
     "if 'm' in dk8:", "    g = g + dk8['m'] * dk8['s']"],
    ["dk8 = {'in': {'v': h * 1.0}}", "for i8 in range({n}):",
     "    dk8['in']['w'] = dk8['in']['v'] * 0.5 + s",
     "h = h + (dk8['in']['w'] if 'w' in dk8['in'] else g)"],
    ["y8 = None", "for i8 in range({n}):", "    y8 = h * 2.0 if y8 is None else y8 * 0.5 + g",
     "h = h + (g * s if y8 is None else y8)"],
    ["c8 = paddle.zeros([], 'int64')", "for i8 in range({n}):", "    c8 = c8 + h.sum()",
     "s = s + c8"],
    ["b8 = paddle.to_tensor(False)", "k8 = paddle.zeros([], 'int64')", "while k8 < {n}:",
     "    b8 = b8 + g.max()", "    k8 = k8 + 1", "g = g + b8"],
]


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def add_loop_changes(gen, head: List[str]) -> List[str]:
    """Insert one snippet drawn from gen.loop_change_rng before a statement of gen's f (its
    lines); returns the head unchanged (the snippets need no helper)."""
    r = gen.loop_change_rng
    # (programs with graph breaks get one too since regions keep object identity and seed every
    # output: a tensor computed before a break and read after it had a wrong gradient there)
    snippet = [t.replace("{n}", r.choice(COUNTS)) for t in r.choice(SNIPPETS)]
    i = r.choice(gen.spots(before_the_last_return=True))
    indent = _indent(gen.lines[i])
    gen.lines[i:i] = [indent + t for t in snippet]
    return head
