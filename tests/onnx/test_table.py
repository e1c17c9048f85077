"""The lowering table covers the op registry: every op is lowered or listed as not exportable
(with a reason), so an op added to dy2st must choose one."""
import importlib

import dy2st  # noqa: F401 - registers the runtime ops
from dy2st.onnx import lowerings, table  # noqa: F401 - lowerings fills the table
from dy2st.runtime.registry import OPS


def registry():
    for mod in ("dy2st.nn", "dy2st.nn.functional"):
        importlib.import_module(mod)
    return set(OPS)


def test_every_registered_op_is_lowered_or_listed_as_not_exportable():
    ops = registry()
    missing = sorted(ops - set(table.LOWERINGS) - set(table.NOT_EXPORTABLE))
    assert not missing, ("ops with no ONNX lowering that are not listed as not exportable "
                         f"(add a lowering in dy2st/onnx/ops_*.py or list them): {missing}")


def test_the_table_names_real_ops_once_with_reasons():
    ops = registry()
    assert not set(table.LOWERINGS) & set(table.NOT_EXPORTABLE)
    assert sorted(set(table.LOWERINGS) - ops) == []
    assert sorted(set(table.NOT_EXPORTABLE) - ops) == []
    assert all(len(reason) > 10 for reason in table.NOT_EXPORTABLE.values())
    assert all(low.min_opset >= table.MIN_OPSET for low in table.LOWERINGS.values())


def test_control_flow_and_arrays_are_lowered():
    assert {"cond", "while", "create_array", "array_write", "array_read", "array_length",
            "array_stack", "array_concat"} <= set(table.LOWERINGS)
