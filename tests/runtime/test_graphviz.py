"""The Graphviz picture of a Program: ops are nodes with the user's line as tooltip, tensors are
edges labelled dtype[shape], cond / while sub-blocks are clusters; rendering needs `dot`."""
import re
import shutil

import pytest

import dy2st as paddle
from dy2st.runtime.graphviz import GraphvizError, program_to_dot, write_graph
from dy2st.static import InputSpec


def branchy(x, n):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    else:
        y = y - 1
    i = paddle.zeros([1], "int64")
    while i < n:
        y = y * 0.5
        i += 1
    return y.mean()


@pytest.fixture(scope="module")
def concrete():
    sf = paddle.jit.to_static(branchy)
    return sf.get_concrete_program(InputSpec([None, 3], "float32", name="img"),
                                   InputSpec([1], "int64"))


@pytest.fixture(scope="module")
def dot(concrete):
    return program_to_dot(concrete.program, "branchy", [s.name for s in concrete.inputs])


def _nodes(dot):
    return dict(re.findall(r'^\s*(n\d+) \[label="([^"]*)"', dot, re.M))


def test_every_op_is_a_node(concrete, dot):
    labels = list(_nodes(dot).values())
    for block in concrete.program.blocks:
        for op in block.ops:
            assert op.type in labels
    ops = sum(len(b.ops) for b in concrete.program.blocks)
    assert sum(1 for line in dot.splitlines() if "shape=box" in line) == ops


def test_inputs_outputs_and_parameters_are_nodes(dot):
    labels = list(_nodes(dot).values())
    assert "input img" in labels and "input n" in labels and "output 0" in labels


def test_edges_are_labelled_with_dtype_and_shape(dot):
    nodes = _nodes(dot)
    edges = re.findall(r'(n\d+) -> (n\d+) \[label="([^"]*)"', dot)
    first_multiply = next(k for k, v in nodes.items() if v == "multiply")
    feed = next(k for k, v in nodes.items() if v == "input img")
    assert (feed, first_multiply, "float32[?, 3]") in edges
    mean = next(k for k, v in nodes.items() if v == "mean")
    assert any(dst == mean and label == "float32[?, 3]" for _, dst, label in edges)
    assert any(label == "bool[]" for _, _, label in edges)


def test_control_flow_sub_blocks_are_clusters(dot):
    for title in ("cond true", "cond false", "while cond", "while body"):
        assert re.search(rf'subgraph cluster_b\d+ {{\n\s*label="{title} \(block \d+\)"', dot), title
    body = dot[dot.index('label="while body'):]
    body = body[:body.index("}")]
    assert 'label="multiply"' in body and 'label="add"' in body


def test_tooltips_name_the_users_line(dot):
    line = branchy.__code__.co_firstlineno + 2
    assert re.search(rf'label="sum".*tooltip="[^"]*test_graphviz.py:{line} in branchy\\nif y.sum\(\) > 0:"',
                     dot)


def test_quotes_in_source_are_escaped():
    from dy2st.runtime.graphviz import _quote
    assert _quote('say "hi"\n') == '"say \\"hi\\"\\n"'


def test_write_dot_text(tmp_path, dot):
    path = write_graph(dot, str(tmp_path / "g.dot"))
    assert open(path).read() == dot


def test_render_without_dot_says_how_to_install(tmp_path, dot, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))     # no `dot` program on it
    with pytest.raises(GraphvizError, match="apt-get install graphviz"):
        write_graph(dot, str(tmp_path / "g.svg"))
    assert not (tmp_path / "g.svg").exists()


def test_a_path_without_extension_is_refused(tmp_path, dot):
    with pytest.raises(GraphvizError, match="extension"):
        write_graph(dot, str(tmp_path / "g"))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_render_svg(tmp_path, dot):
    path = write_graph(dot, str(tmp_path / "g.svg"))
    text = open(path).read()
    assert "<svg" in text and "while body" in text and "multiply" in text
