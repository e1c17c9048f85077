"""analysis: names read / written, liveness, loop-carried names and branch outputs."""
import ast
import os
import re

import gast
import numpy as np

import dy2st as paddle
from dy2st.transformers import analysis, anno


def parse_fn(src):
    return gast.parse(src).body[0]


def test_written_names_targets_and_mutations():
    fn = parse_fn(
        "def f(x):\n"
        "    a = 1\n"
        "    b, (c, *d) = x\n"
        "    e += 1\n"
        "    lst.append(3)\n"
        "    for i in x: pass\n"
        "    def g(): pass\n"
        "    lambda q: q\n"
        "    obj.attr = 5\n")
    names = analysis.written_names(fn.body)
    assert names == {"a", "b", "c", "d", "e", "lst", "i", "g"}


def test_written_attributes_in_order():
    fn = parse_fn("def f(self):\n    self.x = 1\n    st.total += 2\n    self.x = 3\n")
    assert analysis.written_attributes(fn.body) == ["self.x", "st.total"]


def test_read_names_include_augassign_target():
    fn = parse_fn("def f():\n    y += z\n")
    assert analysis.read_names(fn.body[0]) == {"y", "z"}


def test_liveness_after_if():
    fn = parse_fn(
        "def f(x):\n"
        "    if x:\n"
        "        tmp = 1\n"
        "        out = tmp\n"
        "    else:\n"
        "        out = 2\n"
        "    return out\n")
    analysis.analyze_function(fn)
    if_node = fn.body[0]
    live = anno.getanno(if_node, anno.LIVE_OUT)
    assert "out" in live and "tmp" not in live


def test_loop_body_live_in():
    fn = parse_fn(
        "def f(x, n):\n"
        "    s = 0\n"
        "    while n:\n"
        "        t = x * 2\n"
        "        s = s + t\n"
        "        n = n - 1\n"
        "    return s\n")
    analysis.analyze_function(fn)
    loop = fn.body[1]
    body_in = anno.getanno(loop, anno.BODY_LIVE_IN)
    assert {"s", "n", "x"} <= body_in
    assert "t" not in body_in       # written before being read in the body


def carried(fn, X, n):
    sf = paddle.jit.to_static(fn)
    sf(paddle.to_tensor(X), paddle.to_tensor(np.array(n)))
    names = set()
    for m in re.finditer(r"def (?:while|for)_body_\d+\(.*\):\n\s+nonlocal ([\w, ]+)", sf.code):
        names |= {v.strip() for v in m.group(1).split(",")}
    tuples = re.findall(r"_jst\.(?:While|For)\(.*?, (\('[^)]*\))", sf.code)
    for t in tuples:
        names |= set(eval(t))
    return names, sf


def loop_with_locals(x, n):
    s = x * 0
    i = paddle.zeros([], "int64")
    while i < n:
        t = x * 2
        u = t + 1
        s = s + u
        i = i + 1
    return s


def loop_read_after(x, n):
    i = paddle.zeros([], "int64")
    last = x
    while i < n:
        last = x * paddle.cast(i, "float32")
        i = i + 1
    return last


def test_loop_locals_not_carried():
    names, sf = carried(loop_with_locals, np.ones(3, np.float32), 3)
    assert {"s", "i"} <= names
    assert not names & {"t", "u"}, sf.code
    np.testing.assert_allclose(sf(paddle.to_tensor(np.ones(3, np.float32)),
                                  paddle.to_tensor(np.array(3))).numpy(), [9.0, 9.0, 9.0])


def test_name_read_after_loop_is_carried():
    names, sf = carried(loop_read_after, np.ones(3, np.float32), 2)
    assert {"last", "i"} <= names
    out = sf(paddle.to_tensor(np.ones(3, np.float32)), paddle.to_tensor(np.array(4)))
    np.testing.assert_allclose(out.numpy(), [3.0, 3.0, 3.0])


def branch_outputs(x):
    a = x + 1
    if x.sum() > 0:
        scratch = a * 2
        a = scratch + 1
        unused = a * 5
    else:
        a = a - 1
    return a


def test_branch_outputs_are_only_live_names():
    sf = paddle.jit.to_static(branch_outputs)
    for data in (np.ones(2, np.float32), -np.ones(2, np.float32)):
        np.testing.assert_allclose(sf(paddle.to_tensor(data)).numpy(),
                                   branch_outputs(paddle.to_tensor(data)).numpy())
    m = re.search(r"_jst\.IfElse\(.*, (\([^()]*\)), (\([^()]*\))\)", sf.code)
    names, outputs = eval(m.group(1)), eval(m.group(2))
    assert [names[i] for i in outputs] == ["a"]
    # the cond op has exactly one output
    cond_line = [ln for ln in str(sf.program).splitlines() if "= cond(" in ln][0]
    assert cond_line.split("=")[0].count(":") == 1, cond_line


def _facts_by_separate_walks(fn):
    loads = {n.id for n in gast.walk(fn) if isinstance(n, gast.Name) and
             isinstance(n.ctx, gast.Load)}
    return (analysis.written_names(fn.body, mutations=False), analysis.mutated_names(fn.body),
            loads, *analysis.declarations(fn))


def test_function_facts_match_the_separate_walks():
    fn = parse_fn(
        "def f(x, n=default, *, k: hint = 2):\n"
        "    global g\n"
        "    a = x\n"
        "    if a:\n"
        "        nonlocal q\n"
        "        array_write(x, 0, array=arr)\n"
        "    items.append(a)\n"
        "    def inner(v: vhint = w):\n"
        "        nonlocal total\n"
        "        total += v\n"
        "        acc.extend([y for y in u])\n"
        "    lam = lambda z: seen.add(z) or z2\n"
        "    class C:\n"
        "        d.update({})\n"
        "    import os.path as p, numpy\n"
        "    return (m := a)\n")
    facts = analysis.function_facts(fn)
    assert tuple(facts) == _facts_by_separate_walks(fn)
    assert facts.written == {"a", "arr", "inner", "total", "lam", "C", "p", "numpy", "m"}
    assert facts.mutated == {"items", "acc", "seen", "d"}
    assert {"default", "hint", "vhint", "w", "z2", "u", "x"} <= facts.loads
    assert (facts.nonlocals, facts.globals) == ({"q"}, {"g"})
    # and every function of a large module
    with open(os.path.join(os.path.dirname(ast.__file__), "argparse.py"), encoding="utf-8") as f:
        tree = gast.ast_to_gast(ast.parse(f.read()))
    fns = [n for n in gast.walk(tree) if isinstance(n, gast.FunctionDef)]
    assert len(fns) > 100
    for fn in fns:
        assert tuple(analysis.function_facts(fn)) == _facts_by_separate_walks(fn), fn.name
