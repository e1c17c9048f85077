"""all_nodes lists exactly gast.walk's nodes, in its order, annotations and all."""
import ast
import os

import gast

from dy2st.transformers import anno
from dy2st.transformers.walk import all_nodes, all_statements


def test_same_nodes_and_order_as_gast_walk():
    with open(os.path.join(os.path.dirname(ast.__file__), "argparse.py"), encoding="utf-8") as f:
        tree = gast.ast_to_gast(ast.parse(f.read()))
    # annotations live in a dict on the node: they are not children
    anno.setanno(tree.body[0], anno.ORIGIN, "somewhere")
    anno.setanno(tree.body[1], "kept", [tree.body[2]])
    walked = list(gast.walk(tree))
    listed = all_nodes(tree)
    assert len(listed) == len(walked) > 1000
    assert all(a is b for a, b in zip(listed, walked))


def test_without_contexts_the_same_nodes_but_load_store_del():
    with open(os.path.join(os.path.dirname(ast.__file__), "argparse.py"), encoding="utf-8") as f:
        tree = gast.ast_to_gast(ast.parse(f.read()))
    listed = all_nodes(tree, contexts=False)
    expected = [n for n in gast.walk(tree) if not isinstance(n, gast.expr_context)]
    assert len(listed) == len(expected) < len(all_nodes(tree))
    assert all(a is b for a, b in zip(listed, expected))


def test_single_node_and_nested_lists():
    leaf = gast.Constant(value=1, kind=None)
    assert all_nodes(leaf) == [leaf]
    call = gast.parse("f(a, *b, k=c)").body[0].value
    assert [type(n).__name__ for n in all_nodes(call)] == [
        type(n).__name__ for n in gast.walk(call)]


def test_all_statements_finds_every_def_and_return_but_no_expression():
    with open(os.path.join(os.path.dirname(ast.__file__), "argparse.py"), encoding="utf-8") as f:
        tree = gast.ast_to_gast(ast.parse(f.read()))
    found = all_statements(tree)
    for kind in (gast.FunctionDef, gast.ClassDef, gast.Return, gast.ExceptHandler):
        assert {id(n) for n in found if isinstance(n, kind)} == \
            {id(n) for n in gast.walk(tree) if isinstance(n, kind)}
    assert not any(isinstance(n, gast.expr) for n in found)
    # a def comes before the defs inside it
    position = {id(n): k for k, n in enumerate(found)}
    for fn in (n for n in found if isinstance(n, gast.FunctionDef)):
        inner = [n for n in all_statements(fn) if isinstance(n, gast.FunctionDef) and n is not fn]
        assert all(position[id(n)] > position[id(fn)] for n in inner)


def test_all_statements_can_stop_at_nested_scopes():
    tree = gast.parse("def f():\n    if a:\n        return 1\n    def g():\n        while b:\n"
                      "            pass\n    class C:\n        x = 1\n").body[0]
    kinds = [type(n).__name__ for n in all_statements(tree, nested_scopes=False)]
    assert kinds == ["FunctionDef", "If", "Return", "FunctionDef", "ClassDef"]
    assert "While" in [type(n).__name__ for n in all_statements(tree)]
