"""The ONNX graph under construction: unique names, nodes per (sub)graph scope, initializers, and
the walk that lowers a Block op by op through the lowering table (folding constant ops)."""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from ..runtime.dtype import dtype_name
from ..runtime.program import Block, Operator, Program, Variable
from ..runtime.registry import OPS
from . import table
from .array_types import array_elem_dtype
from .bfloat16 import lower_bfloat16, touches_bfloat16
from .errors import NotExportableError, where_text
from .ops_complex import COMPLEX_REASON


class Const:
    """A value known at export time (the result of an op whose inputs are all constants)."""

    __slots__ = ("value",)

    def __init__(self, value: np.ndarray) -> None:
        self.value = value


Value = Union[str, Const]          # what a dy2st variable is in the graph: an ONNX name or a Const
# ops that are never computed at export time: they have effects, draw random numbers, or build
# values (tensor arrays) that only exist when the graph runs
_NO_FOLD_KINDS = ("array",)


class Builder:
    """Builds one ONNX model from one Program; `scopes[-1]` holds the nodes of the graph being
    built (the main graph, or an If branch / Loop body)."""

    def __init__(self, program: Program, opset: int, onnx: Any) -> None:
        self.program = program
        self.opset = opset
        self.onnx = onnx
        self.helper = onnx.helper
        self.used: set = set()
        self.initializers: List[Any] = []
        self._const_names: Dict[Any, str] = {}
        self.scopes: List[List[Any]] = [[]]
        self.produced: List[set] = [set()]      # names computed by each scope's nodes
        self.dropped: List[str] = []        # effects the ONNX graph leaves out (for warnings)

    # ----------------------------------------------------------------------------- names
    def fresh(self, base: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_.@:/-]", "_", base) or "v"
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}__{k}"
        self.used.add(name)
        return name

    # ----------------------------------------------------------------------------- graph parts
    def node(self, op_type: str, inputs: Sequence[str], n_out: int = 1,
             outputs: Optional[Sequence[str]] = None, **attrs: Any) -> Any:
        """Append a node to the current scope; its output name (n_out == 1) or names."""
        outs = list(outputs) if outputs is not None else [
            self.fresh(op_type.lower()) for _ in range(n_out)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.scopes[-1].append(self.helper.make_node(op_type, list(inputs), outs, **attrs))
        self.produced[-1].update(outs)
        return outs[0] if n_out == 1 and outputs is None else outs

    def push_scope(self) -> None:
        self.scopes.append([])
        self.produced.append(set())

    def pop_scope(self) -> List[Any]:
        self.produced.pop()
        return self.scopes.pop()

    def graph_outputs(self, values: Sequence[Value], is_array: Sequence[bool],
                      op: Operator) -> List[str]:
        """Names for a subgraph's outputs: a value computed in this subgraph is its own output;
        others (outer names, constants, repeats) go through Identity."""
        names: List[str] = []
        for v, array in zip(values, is_array):
            name = self.name_of(v)
            if name in self.produced[-1] and name not in names:
                names.append(name)
                continue
            if array and self.opset < 14:
                raise NotExportableError(
                    op.type, "a tensor array passed through a branch or loop unchanged needs "
                    "Identity on sequences: export with opset_version >= 14", op.origin)
            names.append(self.node("Identity", [name]))
        return names

    def const(self, value: Any, dtype: Any = None) -> str:
        """An initializer holding `value` (shared by equal constants)."""
        arr = np.asarray(value, dtype=dtype)
        if arr.dtype == np.dtype(object) or (arr.dtype.kind not in "biuf" and
                                             arr.dtype.name != "bfloat16"):
            raise TypeError(f"cannot store a {arr.dtype} constant in an ONNX model")
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        name = self._const_names.get(key)
        if name is None:
            name = self.fresh("const")
            self.initializers.append(self.onnx.numpy_helper.from_array(arr, name))
            self._const_names[key] = name
        return name

    def tensor_type(self, dtype: Any) -> int:
        if dtype_name(dtype) == "bfloat16":        # numpy knows the name only through ml_dtypes' type
            return self.onnx.TensorProto.BFLOAT16
        return self.helper.np_dtype_to_tensor_dtype(np.dtype(dtype_name(dtype)))

    def value_info(self, name: str, var: Variable, dims: Optional[Sequence[Any]] = None) -> Any:
        """A typed graph input/output for `var`: a tensor (dims: -1 unknown, a str a named dim)
        or, for a tensor array, a sequence of tensors."""
        if var.kind == "array":
            return self.helper.make_tensor_sequence_value_info(
                name, self.tensor_type(array_elem_dtype(var)), None)
        shape = dims if dims is not None else var._shape
        shape = [d if isinstance(d, str) else (None if d < 0 else int(d)) for d in shape]
        return self.helper.make_tensor_value_info(name, self.tensor_type(var.dtype), shape)

    def name_of(self, value: Value) -> str:
        return self.const(value.value) if isinstance(value, Const) else value

    def subgraph(self, name: str, block: Block, env: Dict[str, Value], inputs: List[Any],
                 out_vars: Sequence[Variable], op: Operator) -> Any:
        """The ONNX graph of `block` (its params already bound in env), its results typed as
        out_vars."""
        self.push_scope()
        try:
            self.lower_block(block, env)
            outputs = self.graph_outputs([env[r] for r in block.results],
                                         [v.kind == "array" for v in out_vars], op)
            infos = [self.value_info(out, var, [-1] * len(var._shape))
                     for out, var in zip(outputs, out_vars)]
        finally:
            nodes = self.pop_scope()
        return self.helper.make_graph(nodes, self.fresh(name), inputs, infos)

    # ----------------------------------------------------------------------------- lowering
    def lower_block(self, block: Block, env: Dict[str, Value]) -> None:
        for op in block.ops:
            self.lower_op(block, op, env)

    def lower_op(self, block: Block, op: Operator, env: Dict[str, Value]) -> None:
        lowering = table.LOWERINGS.get(op.type)
        if lowering is None:
            reason = table.NOT_EXPORTABLE.get(op.type)
            if reason is None:
                reason = "the op has no ONNX lowering and is not in dy2st.onnx's table"
            raise NotExportableError(op.type, reason, op.origin)
        if any(block.program.find_var(n).dtype.is_complex for n in op.outputs):
            raise NotExportableError(op.type, COMPLEX_REASON, op.origin)
        if self.opset < lowering.min_opset:
            raise NotExportableError(op.type, f"ONNX opset {self.opset} cannot express it; "
                                              f"export with opset_version >= {lowering.min_opset}",
                                     op.origin)
        values = [env[n] for n in op.inputs]
        if table.FOLDABLE.get(op.type) and all(isinstance(v, Const) for v in values) and \
                self._fold(block, op, values, env):
            return
        if touches_bfloat16(block, op):
            outs = lower_bfloat16(self, block, op, values, lowering, Const, OpContext)
        else:
            outs = lowering.fn(OpContext(self, block, op, values))
        if len(outs) != len(op.outputs):
            raise AssertionError(f"the ONNX lowering of {op.type} gave {len(outs)} outputs "
                                 f"for {len(op.outputs)}")
        for name, out in zip(op.outputs, outs):
            env[name] = out

    def _fold(self, block: Block, op: Operator, values: List[Const], env: Dict[str, Value]) -> bool:
        out_vars = [block.vars[n] for n in op.outputs]
        if any(v.kind in _NO_FOLD_KINDS for v in out_vars):
            return False
        try:
            result = OPS[op.type].kernel(*[c.value for c in values], **op.attrs)
        except Exception:  # noqa: BLE001 - the graph computes (and reports) it when it runs
            return False
        results = [result] if len(out_vars) == 1 else list(result)
        for var, r in zip(out_vars, results):
            env[var.name] = Const(np.asarray(r).astype(var.dtype.np, copy=False))
        return True


class OpContext:
    """What a lowering sees of one op: its ONNX inputs, variables, attrs, and node builders."""

    def __init__(self, builder: Builder, block: Block, op: Operator, values: List[Value]) -> None:
        self.b = builder
        self.block = block
        self.op = op
        self.values = values
        self.attrs = op.attrs

    @property
    def opset(self) -> int:
        return self.b.opset

    def input(self, i: int) -> str:
        return self.b.name_of(self.values[i])

    @property
    def inputs(self) -> List[str]:
        return [self.b.name_of(v) for v in self.values]

    def constant(self, i: int) -> Optional[np.ndarray]:
        """The value of input i when it is known at export time, else None."""
        v = self.values[i]
        return v.value if isinstance(v, Const) else None

    def in_var(self, i: int) -> Variable:
        return self.block.vars[self.op.inputs[i]]

    def out_var(self, i: int = 0) -> Variable:
        return self.block.vars[self.op.outputs[i]]

    def dtype(self, i: int) -> str:
        return dtype_name(self.in_var(i).dtype)

    @property
    def out_dtype(self) -> str:
        return dtype_name(self.out_var(0).dtype)

    def node(self, op_type: str, inputs: Sequence[str], n_out: int = 1, **attrs: Any) -> Any:
        return self.b.node(op_type, inputs, n_out, **attrs)

    def const(self, value: Any, dtype: Any = None) -> str:
        return self.b.const(value, dtype)

    def ints(self, values: Sequence[int]) -> str:
        """An int64 1-D constant (axes, shapes, starts...)."""
        return self.b.const(np.asarray(list(values), dtype=np.int64).reshape(-1))

    def cast(self, name: str, from_dtype: str, to_dtype: str) -> str:
        if dtype_name(from_dtype) == dtype_name(to_dtype):
            return name
        return self.node("Cast", [name], to=self.b.tensor_type(to_dtype))

    def input_as(self, i: int, dtype: str) -> str:
        """Input i cast to dtype (no node when it already is)."""
        c = self.constant(i)
        if c is not None:
            return self.const(c.astype(np.dtype(dtype_name(dtype))))
        return self.cast(self.input(i), self.dtype(i), dtype)

    def fail(self, reason: str) -> NotExportableError:
        return NotExportableError(self.op.type, reason, self.op.origin)

    def where(self) -> str:
        return where_text(self.op.origin)
