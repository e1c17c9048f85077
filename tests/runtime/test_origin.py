"""Origins found from generated code: per-instruction caching, deferred resolution, and
forgetting what was cached when a file's maps are registered again or cleared."""
import pytest

import dy2st as paddle
from dy2st.runtime.origin import DeferredOrigin, Origin, op_origin, source_maps, user_origin

SOURCE = "def f(cb):\n    return cb()\n"
FILE = "<dy2st test_origin generated>"


@pytest.fixture
def generated():
    """A function compiled from a registered generated file (as transform does)."""
    namespace = {}
    exec(compile(SOURCE, FILE, "exec"), namespace)
    yield namespace["f"]
    source_maps._maps.pop(FILE, None)
    source_maps._spans.pop(FILE, None)


def _register(statement, call=None):
    # `cb()` is at columns 11..15 of generated line 2
    spans = {2: [(4, 15, statement)] + ([(11, 15, call)] if call else [])}
    source_maps.register(FILE, {2: statement}, spans)


def test_origin_of_a_generated_frame_is_the_narrowest_expression(generated):
    stmt, call = Origin("user.py", 10, "g", "y = h(x)"), Origin("user.py", 10, "g", "h(x)", 8, 12)
    _register(stmt, call)
    assert generated(lambda: user_origin(2)) == call


def test_op_origin_is_deferred_until_read_and_resolves_like_lookup_at(generated):
    stmt, call = Origin("user.py", 10, "g", "y = h(x)"), Origin("user.py", 10, "g", "h(x)", 8, 12)
    _register(stmt, call)
    found = generated(lambda: op_origin(2))
    assert isinstance(found, DeferredOrigin)
    assert found.resolve() == call
    # the same instruction gives the same (cached) object
    assert generated(lambda: op_origin(2)) is found


def test_registering_a_file_again_forgets_its_cached_origins(generated):
    _register(Origin("user.py", 10, "g", "old"))
    assert generated(lambda: user_origin(2)).source == "old"
    _register(Origin("user.py", 20, "g", "new"))
    assert generated(lambda: user_origin(2)).source == "new"


def test_a_line_without_a_map_falls_back_to_the_calling_frame(generated):
    source_maps.register(FILE, {}, {})
    found = generated(lambda: user_origin(2))
    assert found.file == __file__      # the caller of the generated function


def test_ops_read_their_origin_as_an_origin():
    @paddle.jit.to_static
    def fn(x):
        y = paddle.tanh(x) + paddle.exp(x)
        return y

    fn(paddle.to_tensor([1.0, 2.0]))
    ops = fn.program.global_block().ops
    origins = {op.type: op.origin for op in ops if op.type in ("tanh", "exp", "add")}
    assert all(type(o) is Origin for o in origins.values())
    assert {o.source for o in origins.values()} == {"y = paddle.tanh(x) + paddle.exp(x)"}
    # each op names its own call on the line
    cols = {k: (o.col, o.end_col) for k, o in origins.items()}
    assert cols == {"tanh": (8, 22), "exp": (25, 38), "add": (8, 38)}
