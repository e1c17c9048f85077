"""bfloat16 through ONNX: values stay BFLOAT16 tensors in the graph, and each op that reads or
writes one is lowered in float32 between Casts (to FLOAT before it, back to BFLOAT16 after it),
which is what dy2st's bfloat16 kernels compute (runtime/bfloat16.py) and what onnxruntime's CPU,
with almost no bfloat16 kernels but a bfloat16 Cast, can run."""
from __future__ import annotations

import copy
from typing import Any, Dict, List

import numpy as np

from ..runtime.dtype import float32
from ..runtime.program import Block, Operator, Variable
from .errors import NotExportableError

BF16 = "bfloat16"


def touches_bfloat16(block: Block, op: Operator) -> bool:
    find = block.program.find_var
    return any((v := find(n)) is not None and v.dtype == BF16 for n in (*op.inputs, *op.outputs))


# ops lowered as they are: If and Loop carry BFLOAT16 tensors (the ops of their blocks are
# lowered one by one), and the effects compute nothing
PASS_THROUGH = frozenset({"cond", "while", "print", "assert", "raise", "check_defined"})
ARRAY_REASON = ("a tensor array of bfloat16 values has no ONNX form onnxruntime runs (its "
                "sequence ops have no bfloat16 kernels); cast the values to float32 before "
                "they enter the array")


def _as_float32(var: Variable) -> Variable:
    twin = copy.copy(var)
    twin.dtype = float32
    return twin


class _Float32Vars:
    """block.vars with the bfloat16 variables read as float32 ones."""

    def __init__(self, vars: Dict[str, Variable]) -> None:
        self._vars = vars

    def __getitem__(self, name: str) -> Variable:
        v = self._vars[name]
        return _as_float32(v) if v.dtype == BF16 else v

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self._vars else default

    def __contains__(self, name: object) -> bool:
        return name in self._vars

    def __iter__(self) -> Any:
        return iter(self._vars)


class Float32View:
    """A Block whose bfloat16 variables look float32 to a lowering."""

    def __init__(self, block: Block) -> None:
        self._block = block
        self.vars = _Float32Vars(block.vars)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._block, name)


def lower_bfloat16(builder: Any, block: Block, op: Operator, values: List[Any],
                   lowering: Any, const_type: Any, context_type: Any) -> List[Any]:
    """The ONNX outputs of an op that reads or writes bfloat16 values: computed in float32 from
    its inputs and rounded back to BFLOAT16 (round to nearest even, as ml_dtypes and dy2st's
    kernels round); control flow as it is; tensor arrays refused."""
    if op.type in PASS_THROUGH:
        return lowering.fn(context_type(builder, block, op, values))
    if op.type.startswith("array_") or op.type == "create_array":
        raise NotExportableError(op.type, ARRAY_REASON, op.origin)
    find = block.program.find_var
    fvalues = []
    for n, v in zip(op.inputs, values):
        if find(n).dtype == BF16:
            v = const_type(v.value.astype(np.float32)) if isinstance(v, const_type) else \
                builder.node("Cast", [v], to=builder.tensor_type("float32"))
        fvalues.append(v)
    outs = lowering.fn(context_type(builder, Float32View(block), op, fvalues))
    rounded = []
    for n, out in zip(op.outputs, outs):
        if find(n).dtype == BF16:
            if isinstance(out, const_type):
                out = const_type(out.value.astype(find(n).dtype.np))
            else:
                out = builder.node("Cast", [builder.name_of(out)],
                                   to=builder.tensor_type(find(n).dtype))
        rounded.append(out)
    return rounded
