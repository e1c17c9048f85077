"""The element dtype of a tensor array for its ONNX sequence type. An array created before a loop
or a tensor `if` is declared without an element type (`array<?>`, dtype float32 by default);
the loop's or branch's values of the same array know it, and so does what is written into it."""
from __future__ import annotations

from typing import Dict, List, Set

from ..runtime.control_flow.structure import cond_parts, while_parts
from ..runtime.dtype import dtype_name
from ..runtime.program import Program, Variable


def array_elem_dtype(var: Variable) -> str:
    """The dtype of the items of array `var`: its own element type, else that of a value of the
    same array across while / cond ops, else the dtype of an item written into it."""
    if var.elem is not None:
        return dtype_name(var.elem[1])
    program = var.block.program
    group = _same_array(program, var.name)
    for name in sorted(group):
        other = program.var_index.get(name)
        if other is not None and other.elem is not None:
            return dtype_name(other.elem[1])
    for block in program.blocks:
        for op in block.ops:
            if op.type == "array_write" and op.inputs[0] in group:
                item = program.var_index.get(op.inputs[2])
                if item is not None:
                    return dtype_name(item.dtype)
    return dtype_name(var.dtype)


def _same_array(program: Program, name: str) -> Set[str]:
    """The names of the values that are the same array as `name`: a while's input, body params
    and results and output of one loop variable; a cond's input and branch params; a cond's
    output and branch results; an array_write's input and output."""
    links: Dict[str, List[str]] = {}

    def link(*names: str) -> None:
        for a in names:
            links.setdefault(a, []).extend(b for b in names if b != a)
    for block in program.blocks:
        for op in block.ops:
            if op.type == "while":
                loop = while_parts(program, op)
                c, b = loop.cond_block, loop.body_block
                for k in range(loop.n_carried):
                    link(op.inputs[k], op.outputs[k], c.params[k], b.params[k], b.results[k])
            elif op.type == "cond":
                t, f = cond_parts(program, op).branches
                for j, x in enumerate(op.inputs[1:]):
                    link(x, t.params[j], f.params[j])
                for j, out in enumerate(op.outputs):
                    link(out, t.results[j], f.results[j])
            elif op.type == "array_write":
                link(op.inputs[0], op.outputs[0])
    seen, todo = {name}, [name]
    while todo:
        for other in links.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen
