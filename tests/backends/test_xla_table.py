"""The XLA lowering table covers the op registry: every op has a jax lowering or is listed as
not lowerable with a reason, so an op added to dy2st must choose one."""
import importlib

import numpy as np
import pytest

pytest.importorskip("jax", reason="jax is not installed (pip install 'dy2st[xla]')")

import dy2st  # noqa: E402,F401 - registers the runtime ops
from dy2st.backends import get_backend  # noqa: E402
from dy2st.backends.xla import lowerings, table  # noqa: E402,F401 - lowerings fills the table
from dy2st.backends.xla.ops_host import HOST_OPS  # noqa: E402
from dy2st.runtime.registry import OPS  # noqa: E402


def registry():
    for mod in ("dy2st.nn", "dy2st.nn.functional", "dy2st.optimizer"):
        importlib.import_module(mod)
    return set(OPS)


def test_every_registered_op_is_lowered_or_listed_as_not_lowerable():
    missing = sorted(registry() - set(table.LOWERINGS) - set(table.NOT_LOWERABLE))
    assert not missing, ("ops with no XLA lowering that are not listed as not lowerable (add a "
                         f"lowering in dy2st/backends/xla/ops_*.py or list them): {missing}")


def test_the_table_names_real_ops_once_with_reasons():
    ops = registry()
    assert not set(table.LOWERINGS) & set(table.NOT_LOWERABLE)
    assert sorted(set(table.LOWERINGS) - ops) == []
    assert sorted(set(table.NOT_LOWERABLE) - ops) == []
    assert all(len(reason) > 10 for reason in table.NOT_LOWERABLE.values())
    # only data-dependent shapes stay off XLA
    assert sorted(table.NOT_LOWERABLE) == ["category_nms", "generate_proposals", "masked_select",
                                           "matrix_nms", "nms", "nonzero", "unique",
                                           "unique_consecutive"]


def test_host_callback_ops_are_lowered_ops():
    assert len(set(HOST_OPS)) == len(HOST_OPS)
    assert set(HOST_OPS) <= set(table.LOWERINGS)


def test_the_backend_names_what_it_cannot_lower():
    def f(x):
        return dy2st.masked_select(x, x > 0)
    static = dy2st.jit.to_static(f)
    static(dy2st.to_tensor(np.array([1.0, -1.0], "float32")))
    xla = get_backend("xla")
    assert "masked_select" in xla.unsupported(static.program)
    assert get_backend("numpy").unsupported(static.program) is None
    plain = dy2st.jit.to_static(lambda x: x * 2)
    plain(dy2st.ones([2]))
    assert xla.unsupported(plain.program) is None
