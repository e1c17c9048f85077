"""templates: placeholders filled with names, original nodes, statement lists and nonlocal lists."""
import ast

import gast

from dy2st.transformers import anno, templates
from dy2st.transformers.base import Transformer, copy_origin
from dy2st.transformers.context import PassContext
from dy2st.transformers.naming import Namer
from tests.support import same_code


def src(nodes):
    if not isinstance(nodes, list):
        nodes = [gast.Expr(value=nodes)]
    mod = gast.Module(body=nodes, type_ignores=[])
    return ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(mod))).strip()


def expr(text):
    return gast.parse(text).body[0].value


def test_string_becomes_name():
    out = templates.replace("target = value + 1", target="y", value="x")
    assert src(out) == "y = x + 1"
    assert isinstance(out[0].targets[0].ctx, gast.Store)


def test_node_is_used_as_is_with_annotations():
    node = expr("a * b")
    anno.setanno(node, anno.ORIGIN, "origin-marker")
    out = templates.replace("y = _jst.Call(fn)(v)", fn="helper", v=node)
    assert src(out) == "y = _jst.Call(helper)(a * b)"
    filled = out[0].value.args[0]
    assert filled is node
    assert anno.getanno(filled, anno.ORIGIN) == "origin-marker"


def test_statement_list_placeholder():
    body = gast.parse("a = 1\nb = 2").body
    out = templates.replace("if not flag:\n    rest", flag="f", rest=body)
    assert src(out) == "if not f:\n    a = 1\n    b = 2"


def test_nonlocal_list_and_empty_nonlocal_dropped():
    out = templates.replace("def fn():\n    nonlocal names\n    pass", fn="g", names=["a", "b"])
    assert src(out) == "def g():\n    nonlocal a, b\n    pass"
    out = templates.replace("def fn():\n    nonlocal names\n    pass", fn="g", names=[])
    assert "nonlocal" not in src(out)


def test_store_context_for_tuple_target():
    tup = expr("(p, q)")
    out = templates.replace("target = args", target=tup, args="z")
    assert same_code(src(out), "p, q = z")
    assert all(isinstance(e.ctx, gast.Store) for e in out[0].targets[0].elts)


def test_replace_expr():
    e = templates.replace_expr("_jst.Not(x)", x="cond")
    assert src(e) == "_jst.Not(cond)"


def test_copy_origin_fills_only_missing():
    src_node = expr("x")
    anno.setanno(src_node, anno.ORIGIN, "user")
    new = templates.replace("y = f(z)", f="g", z="w")
    keep = new[0].value.func
    anno.setanno(keep, anno.ORIGIN, "kept")
    copy_origin(src_node, new)
    assert anno.getanno(new[0], anno.ORIGIN) == "user"
    assert anno.getanno(new[0].value.args[0], anno.ORIGIN) == "user"
    assert anno.getanno(keep, anno.ORIGIN) == "kept"


def test_transformer_base_copies_origin_to_replacement():
    class Doubler(Transformer):
        def visit_Name(self, node):
            if not isinstance(node.ctx, gast.Load):
                return node
            return templates.replace_expr("n * 2", n=node.id)

    tree = gast.parse("y = x")
    name = tree.body[0].value
    anno.setanno(name, anno.ORIGIN, "line-1")
    Doubler(PassContext(Namer(set()))).visit(tree)
    replaced = tree.body[0].value
    assert isinstance(replaced, gast.BinOp)
    assert anno.getanno(replaced, anno.ORIGIN) == "line-1"
    assert anno.getanno(replaced.right, anno.ORIGIN) == "line-1"
