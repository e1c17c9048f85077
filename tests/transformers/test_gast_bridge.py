"""The fast ast <-> gast bridge builds exactly gast's own trees, lists nodes, and tags lines."""
import ast
import dis
import glob
import os
import textwrap

import gast
import pytest

from dy2st.runtime.origin import Origin
from dy2st.transformers import anno
from dy2st.transformers.gast_bridge import ast_to_gast, gast_to_ast, to_ast_in_place

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STDLIB = os.path.dirname(ast.__file__)
CORPUS = sorted(glob.glob(os.path.join(ROOT, "dy2st", "**", "*.py"), recursive=True)) + [
    os.path.join(STDLIB, name) for name in
    ("ast.py", "typing.py", "dataclasses.py", "argparse.py", "contextlib.py", "asyncio/tasks.py")]

EVERY_CONSTRUCT = textwrap.dedent('''
    import os.path as p, sys
    from . import x as y
    @dec(1)
    async def f(a, /, b: int = 1, *args, c, d=2, **kw) -> "r":
        global g
        x: int = 1
        x += 1
        del x
        async with a as (b, c), d:
            await z
        async for i in y:
            pass
        try:
            pass
        except (E, F) as e:
            raise e from None
        except G:
            pass
        else:
            pass
        finally:
            pass
        while a if b else c:
            break
        for i, *j in {k: v for k, v in z if k}:
            continue
        assert a, "m"
        lambda q=1, *r, **s: (q, [r], {s}, {1: 2}, f"{q!r:>{w}}", ...)
        return a[1:2, ::3], b.c, -a, not a, a < b <= c, a and b or c
    def gen(z):
        yield z
        return (yield from z)
    class C(B, metaclass=M):
        def m(self): nonlocal_ = [i for i in x if i] + list(i for i in x)
    ''')


def same_as_gast(tree: ast.AST) -> None:
    nodes = []
    mine, theirs = ast_to_gast(tree, nodes), gast.ast_to_gast(tree)
    assert gast.dump(mine, include_attributes=True) == gast.dump(theirs, include_attributes=True)
    listed = {id(n) for n in nodes}
    walked = [n for n in gast.walk(mine) if not isinstance(n, (gast.expr_context, gast.Param))]
    assert {id(n) for n in walked} == listed and len(nodes) == len(walked)
    back, gast_back = gast_to_ast(theirs), gast.gast_to_ast(theirs)
    assert ast.dump(back, include_attributes=True) == ast.dump(gast_back, include_attributes=True)
    compile(back, "<bridge>", "exec")
    in_place = to_ast_in_place(mine)           # mine is spent: its nodes become ast nodes
    assert ast.dump(in_place, include_attributes=True) == ast.dump(gast_back, include_attributes=True)
    assert not any(type(n).__module__ != "ast" for n in ast.walk(in_place))


def test_every_construct_converts_like_gast():
    same_as_gast(ast.parse(EVERY_CONSTRUCT))


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: os.path.relpath(p, ROOT if p.startswith(ROOT) else STDLIB))
def test_real_files_convert_like_gast(path):
    with open(path, encoding="utf-8") as f:
        same_as_gast(ast.parse(f.read()))


def test_in_place_conversion_tags_lines_with_origins():
    tree = gast.ast_to_gast(ast.parse("def f(a):\n    b = a + 1\n    return b\n"))
    fn = tree.body[0]
    o_assign, o_add = Origin("u.py", 10, "f", "b = a + 1"), Origin("u.py", 10, "f", "b = a + 1", 8, 13)
    anno.setanno(fn.body[0], anno.ORIGIN, o_assign)
    anno.setanno(fn.body[0].value, anno.ORIGIN, o_add)
    origins = []
    tagged = to_ast_in_place(tree, origins)
    assert origins[:2] == [None, None]
    assign = tagged.body[0].body[0]
    assert origins[assign.lineno] is o_assign
    assert origins[assign.value.lineno] is o_add
    assert origins[assign.targets[0].lineno] is o_assign      # no origin: the parent's
    assert tagged.body[0].lineno == 1 and origins[1] is None  # no origin anywhere above: none
    assert all(n.col_offset == 0 for n in ast.walk(tagged) if hasattr(n, "col_offset"))
    code = compile(tagged, "<tagged>", "exec")
    inner = next(c for c in code.co_consts if isinstance(c, type(code)))
    lines = {line for _, line in dis.findlinestarts(inner) if line is not None}
    assert lines <= {1, assign.lineno, assign.value.lineno, tagged.body[0].body[1].lineno}


def test_shared_origin_gets_one_tag():
    tree = gast.ast_to_gast(ast.parse("x = 1\ny = 2\n"))
    shared = Origin("u.py", 3, "f", "x = 1")
    for stmt in tree.body:
        anno.setanno(stmt, anno.ORIGIN, shared)
    origins = []
    tagged = to_ast_in_place(tree, origins)
    assert tagged.body[0].lineno == tagged.body[1].lineno == 2 and origins == [None, None, shared]
