"""Program text: one op a line, sub-blocks indented under their op, the user's line at the end."""
from __future__ import annotations

import os
from typing import List

from .dtype import DType, dtype_name
from .program import Block, Operator, Program, Variable


def _type(v: Variable) -> str:
    if v.kind == "array":
        elem = f"{dtype_name(v.elem[1])}{list(v.elem[0])}" if v.elem else "?"
        return f"array<{elem}>"
    return f"{dtype_name(v.dtype)}{list(v._shape)}"


def _attr_text(op: Operator) -> str:
    parts = []
    for k, v in op.attrs.items():
        # a DType attr reads paddle.float32 (its str), not its enum repr
        parts.append(f"{k}={v}" if isinstance(v, DType) else f"{k}={v!r}")
    return (" {" + ", ".join(parts) + "}") if parts else ""


def op_text(block: Block, op: Operator) -> str:
    outs = ", ".join(f"{n}: {_type(block.vars[n])}" for n in op.outputs)
    lhs = f"{outs} = " if outs else ""
    return f"{lhs}{op.type}({', '.join(op.inputs)}){_attr_text(op)}"


def _origin_text(op: Operator) -> str:
    if op.origin is None:
        return ""
    return f"  # {os.path.basename(op.origin.file)}:{op.origin.line}"


def _block_lines(program: Program, block: Block, indent: str, out: List[str]) -> None:
    for op in block.ops:
        out.append(f"{indent}{op_text(block, op)}{_origin_text(op)}")
        for key in ("true_block", "false_block", "cond_block", "body_block"):
            if key in op.attrs:
                sub = program.blocks[op.attrs[key]]
                params = ", ".join(f"{p}: {_type(sub.vars[p])}" for p in sub.params)
                out.append(f"{indent}  {key} {sub.idx} ({params}) -> ({', '.join(sub.results)}):")
                _block_lines(program, sub, indent + "    ", out)


def program_to_text(program: Program) -> str:
    g = program.global_block()
    lines: List[str] = []
    feeds = ", ".join(f"{n}: {_type(g.vars[n])}" for n in program.feed_names if n in g.vars)
    params = [n for n, v in g.vars.items() if v.persistable]
    header = f"program({feeds})"
    if program.fetch_names:
        header += f" -> ({', '.join(program.fetch_names)})"
    lines.append(header + ":")
    for n in params:
        lines.append(f"  param {n}: {_type(g.vars[n])}")
    _block_lines(program, g, "  ", lines)
    return "\n".join(lines)
