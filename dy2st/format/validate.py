"""Cross-checks of a built Program: every name assigned once and used in its own block after its
definition, control flow fitting its sub-blocks, attrs fitting each kernel's signature and each
op's shape/dtype inference agreeing with the declared outputs (so a loaded model fails here,
not mid-run)."""
from __future__ import annotations

import inspect
from typing import Any, Dict, List, Sequence

import numpy as np

from ..runtime.dtype import dtype_name
from ..runtime.program import Block, Operator, Program
from ..runtime.registry import OPS
from .attr_schema import check_attrs
from .errors import fail
from .fields import MAX_ELEMENTS

CONTROL_FLOW_ATTRS = {"cond": ("true_block", "false_block"), "while": ("cond_block", "body_block")}


def check_var_sizes(block: Block, where: str) -> None:
    """Every declared shape (and tensor array element shape) stays within MAX_ELEMENTS."""
    for v in block.vars.values():
        for shape in (v._shape,) + ((tuple(v.elem[0]),) if v.elem else ()):
            if _elements(shape) > MAX_ELEMENTS:
                raise fail(where, f"variable {v.name!r} has shape {list(shape)}, more than "
                                   f"{MAX_ELEMENTS} elements")


def check_names(program: Program, where: str) -> None:
    """Each variable name is declared in one block only: a sub-block never shadows a name of
    another block (the executor's generated code nests sub-blocks in their parents)."""
    seen: Dict[str, int] = {}
    for b in program.blocks:
        for name in b.vars:
            if name in seen:
                raise fail(f"{where}: program.blocks[{b.idx}]",
                            f"variable {name!r} is also declared in block {seen[name]}")
            seen[name] = b.idx


def check_block(program: Program, block: Block, owner: Dict[int, int], where: str) -> None:
    """Every name is declared, defined before use, and control flow fits its sub-blocks."""
    defined = set(block.params)
    if block.idx == 0:
        defined |= set(program.feed_names) | set(program.persistables)
    for name in list(block.params) + list(block.results) + sorted(defined):
        if name not in block.vars:
            raise fail(where, f"{name!r} is used but not declared in block {block.idx}")
    for i, op in enumerate(block.ops):
        ow = f"{where}.ops[{i}] ({op.type})"
        for n in op.inputs:
            if n not in block.vars:
                raise fail(ow, f"input {n!r} is not a variable of block {block.idx}")
            if n not in defined:
                raise fail(ow, f"input {n!r} is used before it is defined")
        for n in op.outputs:
            if n not in block.vars:
                raise fail(ow, f"output {n!r} is not a variable of block {block.idx}")
            if n in defined:
                raise fail(ow, f"output {n!r} is already defined (a feed, parameter, block "
                                "param or earlier output): every variable is assigned once")
        if len(set(op.outputs)) != len(op.outputs):
            raise fail(ow, f"names an output twice ({op.outputs})")
        _check_op_shape(program, block, op, owner, ow)
        if op.type not in CONTROL_FLOW_ATTRS:
            check_attrs(block, op, ow)
            _check_signature(OPS[op.type].kernel, op, ow)
            _check_inference(OPS[op.type], block, op, ow)
        defined.update(op.outputs)
    for n in block.results:
        if n not in defined:
            raise fail(where, f"result {n!r} is never defined")


def _check_op_shape(program: Program, block: Block, op: Operator, owner: Dict[int, int],
                    where: str) -> None:
    keys = CONTROL_FLOW_ATTRS.get(op.type, ())
    stray = [k for k in op.attrs if k.endswith("_block") and k not in keys]
    if stray or any(k not in op.attrs for k in keys):
        raise fail(where, f"sub-block attrs {sorted(k for k in op.attrs if k.endswith('_block'))} "
                           f"do not fit a {op.type!r} op (expected {list(keys)})")
    subs = []
    for k in keys:
        idx = op.attrs[k]
        if type(idx) is not int or not 0 < idx < len(program.blocks):
            raise fail(where, f"{k}={idx!r} is not a sub-block index")
        sub = program.blocks[idx]
        if sub.parent_idx != block.idx or idx in owner:
            raise fail(where, f"{k}={idx} is not a child block of block {block.idx} owned by this op")
        owner[idx] = block.idx
        subs.append(sub)
    if op.type == "cond":
        ok = len(op.inputs) >= 1 and all(len(s.params) == len(op.inputs) - 1 and
                                         len(s.results) == len(op.outputs) for s in subs)
    elif op.type == "while":
        n = op.attrs.get("n_loop_vars")
        c, b = subs
        ok = (type(n) is int and 0 <= n <= len(op.inputs) and len(op.outputs) == n and
              len(c.params) == len(b.params) == len(op.inputs) and len(c.results) == 1 and
              len(b.results) == n)
    else:
        return
    if not ok:
        raise fail(where, f"the {op.type} op's inputs/outputs do not match its sub-blocks' "
                           "params/results")


def _check_signature(kernel: Any, op: Operator, where: str) -> None:
    try:
        sig = inspect.signature(kernel)
    except (TypeError, ValueError):
        return                          # numpy ufuncs have no signature; they take no attrs
    try:
        sig.bind(*([None] * len(op.inputs)), **op.attrs)
    except TypeError as e:
        raise fail(where, f"the inputs/attrs {sorted(op.attrs)} do not fit the {op.type} kernel "
                           f"({e})") from None


def _elements(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        if d > 0:
            n *= d
    return n


def _check_inference(opdef: Any, block: Block, op: Operator, where: str) -> None:
    """The op's own shape/dtype inference, run on the declared inputs with the stored attrs
    (which checks their types and ranges), must agree with the declared outputs."""
    inputs = [block.vars[n] for n in op.inputs]
    try:
        metas = opdef.infer(*inputs, **op.attrs)
    except RecursionError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure means the attrs or inputs do not fit
        raise fail(where, f"its attrs or inputs are not valid for a {op.type!r} op "
                           f"({type(e).__name__}: {str(e)[:200]})") from None
    metas = [metas] if opdef.n_outputs == 1 else list(metas)
    if len(metas) != len(op.outputs):
        raise fail(where, f"a {op.type!r} op has {len(metas)} output(s), the file declares "
                           f"{len(op.outputs)}")
    for meta, name in zip(metas, op.outputs):
        var = block.vars[name]
        shape = _meta_shape(meta, where)
        kind = getattr(meta, "kind", "dense")
        declared = list(var._shape)
        fits = (kind == var.kind and dtype_name(meta.dtype) == dtype_name(var.dtype) and
                (var.kind != "dense" or (len(shape) == len(declared) and all(
                    a == b or a < 0 or b < 0 for a, b in zip(shape, declared)))))
        if not fits:
            raise fail(where, f"output {name!r} is declared {var.kind} {dtype_name(var.dtype)}{declared}, but "
                               f"the op's inputs and attrs give {kind} {dtype_name(meta.dtype)}{shape}")
        if _elements(shape) > MAX_ELEMENTS:
            raise fail(where, f"output {name!r} would have shape {shape}, more than "
                               f"{MAX_ELEMENTS} elements")


def _meta_shape(meta: Any, where: str) -> List[int]:
    shape = getattr(meta, "shape", None)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
        raise fail(where, f"the op's inputs and attrs give no valid shape ({str(shape)[:80]})")
    return [int(d) for d in shape]
