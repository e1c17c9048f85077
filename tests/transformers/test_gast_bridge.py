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


_ABSENT = object()


def _field(node, name):
    """What ast.dump / gast.dump show of a field: nothing when it is absent or None by default."""
    value = getattr(node, name, _ABSENT)
    if value is None and getattr(type(node), name, 42) is None:
        return _ABSENT
    return value


def assert_same_tree(a, b, path="tree") -> None:
    """a and b are equal trees, attributes (line and column numbers) included: what comparing
    their dump(include_attributes=True) strings checks, without building the strings (three
    times cheaper on the 550 files of the corpus). Leaves compare by type and value (the dumps
    compare their repr); the message names the first difference's path."""
    if isinstance(a, ast.AST):                 # (gast's nodes are ast.AST subclasses)
        assert type(a) is type(b), f"{path}: {type(a).__name__} vs {type(b).__name__}"
        for name in a._fields + a._attributes:
            assert_same_tree(_field(a, name), _field(b, name), f"{path}.{name}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{path}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_tree(x, y, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} vs {b!r}"


def same_as_gast(tree: ast.AST) -> None:
    nodes = []
    mine, theirs = ast_to_gast(tree, nodes), gast.ast_to_gast(tree)
    assert_same_tree(mine, theirs)
    listed = {id(n) for n in nodes}
    walked = [n for n in gast.walk(mine) if not isinstance(n, (gast.expr_context, gast.Param))]
    assert {id(n) for n in walked} == listed and len(nodes) == len(walked)
    back, gast_back = gast_to_ast(theirs), gast.gast_to_ast(theirs)
    assert_same_tree(back, gast_back)
    compile(back, "<bridge>", "exec")
    in_place = to_ast_in_place(mine)           # mine is spent: its nodes become ast nodes
    assert_same_tree(in_place, gast_back)
    assert not any(type(n).__module__ != "ast" for n in ast.walk(in_place))


@pytest.mark.parametrize("change", [
    lambda t: setattr(t.body[0].value, "lineno", 7),              # an attribute
    lambda t: setattr(t.body[0].value.right, "value", 1.0),       # 1 == 1.0, repr differs
    lambda t: setattr(t.body[0].value.right, "value", True),
    lambda t: t.body.pop(),                                       # a list's length
    lambda t: setattr(t.body[0].targets[0], "ctx", ast.Load()),   # a node's type
    lambda t: setattr(t.body[1], "type_comment", "int"),          # None by default, then set
    lambda t: delattr(t.body[1], "targets"),                      # a field left out
])
def test_the_tree_comparison_sees_every_difference(change):
    source = "x = y + 1\nz = x\n"
    changed = ast.parse(source)
    change(changed)
    assert_same_tree(ast.parse(source), ast.parse(source))
    with pytest.raises(AssertionError):
        assert_same_tree(ast.parse(source), changed)


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
