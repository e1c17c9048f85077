"""The guards' bytecode scan on every Python dy2st supports: the instructions it sees are 3.11's
whatever compiled them (3.9/3.10 rotations and comprehension calls, 3.12's inlined
comprehensions, `or` jumps, slices and super, 3.13's paired loads and TO_BOOL), so the same
source gives the reads that 3.11's scan finds."""
import types

import pytest

from dy2st.jit.guards import reads_of
from dy2st.jit.guards.bytecode import instructions

# ops of other versions that the scan never sees
FOREIGN = {"LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST", "TO_BOOL",
           "BINARY_SLICE", "LOAD_SUPER_ATTR", "LOAD_FAST_AND_CLEAR", "ROT_TWO", "ROT_THREE",
           "EXTENDED_ARG", "CALL_KW", "SET_FUNCTION_ATTRIBUTE", "LOAD_FROM_DICT_OR_DEREF"}

SOURCE = '''
class Base:
    def run(self, x):
        return x


class Net(Base):
    def forward(self, xs, t, cfg):
        a = [c.k for c in xs]
        b = {k: v.m for k, v in cfg.table.items()}
        c = cfg.__dict__.get("alt") or CFG
        d = A if t else B
        e = xs[1:2]
        f, g = cfg.p, cfg.q
        h = super().run(cfg.w)
        i = sorted(xs, key=lambda c: c.z)
        return a, b, c, d, e, f.r, g.s, h, i, [v.n for v in xs], [v.n for v in CFGS]
'''


def _code(source: str, name: str) -> types.CodeType:
    todo = [compile(source, "<test>", "exec")]
    while todo:
        code = todo.pop()
        if code.co_name == name:
            return code
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    raise LookupError(name)


def test_the_scan_sees_only_the_ops_of_3_11():
    code = _code(SOURCE, "forward")
    names = {op.opname for op in instructions(code)}
    assert not names & FOREIGN
    ops = instructions(code)
    for op in ops:                  # every jump lands on an op of the list
        assert not op.jump or op.target is None or 0 <= op.target < len(ops)


def test_reads_are_those_of_3_11():
    reads = reads_of(_code(SOURCE, "forward"))
    chains = reads.chains
    # a comprehension's loop name aliases the items it loops over (3.12 inlines it)
    assert ("local", "xs", ("[*]", "k")) in chains
    assert ("local", "cfg", ("table", "values")) not in chains
    # `A or B` where A is a call: the local may hold what the call returned, so it is captured
    # from the frame (3.12 and newer compile `or` as COPY / POP_JUMP_IF_TRUE / POP_TOP)
    assert "c" in reads.opaque
    # `f, g = cfg.p, cfg.q` (3.9/3.10 rotate the stack before the stores): g, stored right
    # after its path, aliases it; f, stored after other loads, is captured from the frame
    assert ("local", "cfg", ("q", "s")) in chains and "g" not in reads.opaque
    assert "f" in reads.opaque
    # two equal comprehensions on one line are one constant on 3.9/3.10: each loop is followed
    assert ("local", "xs", ("[*]", "n")) in chains and ("global", "CFGS", ("[*]", "n")) in chains
    assert {"A", "B", "CFG", "CFGS", "sorted", "super"} <= reads.globals


def test_a_long_loop_body_keeps_its_loop_target_aliased():
    # a body past 256 code units: dis lists the EXTENDED_ARG of FOR_ITER's jump on its own
    body = "\n".join(f"        y = y + c.k{n} * {n}" for n in range(120))
    source = f"def f(cfgs):\n    y = 0\n    for c in cfgs:\n{body}\n    return y\n"
    code = _code(source, "f")
    assert ("local", "cfgs", ("[*]", "k119")) in reads_of(code).chains
    assert "c" not in reads_of(code).opaque


@pytest.mark.parametrize("expr, target", [("A or B", "B"), ("A and B", "B"),
                                          ("pick(A) or B", "B")])
def test_a_local_from_or_and_aliases_both_sides(expr, target):
    code = _code(f"def f():\n    c = {expr}\n    return c.k\n", "f")
    chains = reads_of(code).chains
    assert ("global", target, ("k",)) in chains
    if expr.startswith("A"):
        assert ("global", "A", ("k",)) in chains
    else:
        assert "c" in reads_of(code).opaque


def test_a_comprehension_name_shared_with_the_function_keeps_both_reads():
    # 3.12's inlined comprehension puts `c` back after the loop: that store binds nothing new,
    # and the function's own `c = pick(x)` still makes `c` a local captured from the frame
    code = _code("def f(x):\n    s = sum([c.k for c in CFGS])\n    c = pick(x)\n"
                 "    return s + c.m\n", "f")
    reads = reads_of(code)
    assert ("global", "CFGS", ("[*]", "k")) in reads.chains
    assert "c" in reads.opaque
