"""Compiles a Program into one generated Python function: a local per variable, kernels bound as
constants, values deleted after their last use, sub-blocks as plain functions."""
from __future__ import annotations

import ast
import hashlib
import linecache
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .program import Block, Operator, Program, Variable
from .registry import OPS

# Ops with no inputs whose result can be computed once when compiling (never mutated later).
HOISTABLE = {"full", "full_range", "eye"}


def _is_literal(v: Any) -> bool:
    try:
        return ast.literal_eval(repr(v)) == v
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


class _Codegen:
    def __init__(self, program: Program) -> None:
        self.program = program
        self.ns: Dict[str, Any] = {"__builtins__": __builtins__}
        self.lines: List[str] = []
        self.line_ops: Dict[int, Tuple[int, Operator]] = {}
        self.idents: Dict[str, str] = {}
        self.kernels: Dict[str, str] = {}

    def ident(self, name: str) -> str:
        s = self.idents.get(name)
        if s is None:
            s = f"v{len(self.idents)}"
            self.idents[name] = s
        return s

    def const(self, prefix: str, value: Any) -> str:
        key = f"{prefix}{len(self.ns)}"
        self.ns[key] = value
        return key

    def kernel(self, op_type: str) -> str:
        k = self.kernels.get(op_type)
        if k is None:
            k = f"K_{op_type}"
            self.ns[k] = OPS[op_type].kernel
            self.kernels[op_type] = k
        return k

    def emit(self, line: str, op: Optional[Tuple[int, Operator]] = None) -> None:
        self.lines.append(line)
        if op is not None:
            self.line_ops[len(self.lines)] = op

    # -------------------------------------------------------------------------------------
    def block_fn(self, block: Block, fn_name: str, single_result: bool = False) -> None:
        """Emit `def fn_name(params): ...` for a closed sub-block."""
        for op in block.ops:
            for key in ("true_block", "false_block", "cond_block", "body_block"):
                if key in op.attrs:
                    sub = self.program.blocks[op.attrs[key]]
                    self.block_fn(sub, f"B{sub.idx}", single_result=(key == "cond_block"))
        params = ", ".join(self.ident(p) for p in block.params)
        self.emit(f"def {fn_name}({params}):")
        self.body(block, "    ", block.results)
        res = [self.ident(r) for r in block.results]
        if single_result:
            self.emit(f"    return {res[0]}")
        else:
            self.emit(f"    return ({', '.join(res)}{',' if len(res) == 1 else ''})")

    def body(self, block: Block, ind: str, keep: Sequence[str]) -> None:
        last_use: Dict[str, int] = {}
        for i, op in enumerate(block.ops):
            for n in op.inputs:
                last_use[n] = i
        keep = set(keep)
        for i, op in enumerate(block.ops):
            self.op(block, op, ind)
            dead = [n for n in dict.fromkeys(op.inputs) if last_use.get(n) == i and n not in keep]
            dead += [n for n in op.outputs if n not in last_use and n not in keep]  # never read
            if dead:
                self.emit(f"{ind}del {', '.join(self.ident(n) for n in dead)}")
        if not block.ops:
            self.emit(f"{ind}pass")

    def op(self, block: Block, op: Operator, ind: str) -> None:
        tag = (block.idx, op)
        ins = [self.ident(n) for n in op.inputs]
        outs = [self.ident(n) for n in op.outputs]
        lhs = ", ".join(outs) + ("," if len(outs) == 1 else "")
        if op.type == "cond":
            t, f = op.attrs["true_block"], op.attrs["false_block"]
            args = ", ".join(ins[1:])
            self.emit(f"{ind}if {ins[0]}:", tag)
            self.emit(f"{ind}    {lhs + ' = ' if outs else ''}B{t}({args})", tag)
            self.emit(f"{ind}else:", tag)
            self.emit(f"{ind}    {lhs + ' = ' if outs else ''}B{f}({args})", tag)
            return
        if op.type == "while":
            n = op.attrs["n_loop_vars"]
            c, b = op.attrs["cond_block"], op.attrs["body_block"]
            lv = [f"{o}_l" for o in outs]
            caps = ins[n:]
            args = ", ".join(lv + caps)
            lvs = ", ".join(lv) + ("," if len(lv) == 1 else "")
            self.emit(f"{ind}{lvs} = {', '.join(ins[:n])}{',' if n == 1 else ''}", tag)
            self.emit(f"{ind}while C{c}({args}):", tag)
            self.emit(f"{ind}    {lvs} = B{b}({args})", tag)
            self.emit(f"{ind}{lhs} = {lvs}", tag)
            return
        attrs = []
        for k, v in op.attrs.items():
            attrs.append(f"{k}={repr(v) if _is_literal(v) else self.const('A', v)}")
        call = f"{self.kernel(op.type)}({', '.join(ins + attrs)})"
        if op.type in HOISTABLE and not op.inputs:
            value = OPS[op.type].kernel(**op.attrs)
            value.setflags(write=False)
            self.emit(f"{ind}{outs[0]} = {self.const('H', value)}", tag)
            return
        plain = ", ".join(outs)
        self.emit(f"{ind}{plain} = {call}" if outs else f"{ind}{call}", tag)


class CompiledProgram:
    """A callable running a Program: arrays in (feed order), arrays out (fetch order)."""

    def __init__(self, program: Program, feed_names: Sequence[str], fetch_names: Sequence[str]) -> None:
        gen = _Codegen(program)
        g = program.global_block()
        for op in g.ops:
            for key in ("true_block", "false_block", "cond_block", "body_block"):
                if key in op.attrs:
                    sub = program.blocks[op.attrs[key]]
                    gen.block_fn(sub, f"B{sub.idx}", single_result=(key == "cond_block"))
        gen.emit("def run(__feeds):")
        feeds = [gen.ident(n) for n in feed_names]
        if feeds:
            gen.emit(f"    {', '.join(feeds)}{',' if len(feeds) == 1 else ''} = __feeds")
        used = {n for op in g.ops for n in op.inputs} | set(fetch_names)
        self.persistable_names = [n for n in program.persistables if n in used]
        for n in self.persistable_names:
            gen.emit(f"    {gen.ident(n)} = {gen.const('T', program.persistables[n])}._value")
        gen.body(g, "    ", fetch_names)
        gen.emit(f"    return [{', '.join(gen.ident(n) for n in fetch_names)}]")
        source = "\n".join(gen.lines) + "\n"
        source = _rename_cond_blocks(source, program)
        digest = hashlib.sha1(source.encode()).hexdigest()[:12]
        self.filename = f"<dy2st program {digest}>"
        linecache.cache[self.filename] = (len(source), None, source.splitlines(True), self.filename)
        exec(compile(source, self.filename, "exec"), gen.ns)
        self.source = source
        self.program = program
        self.line_ops = gen.line_ops
        self._run = gen.ns["run"]
        self.feed_names = list(feed_names)
        self.fetch_names = list(fetch_names)

    def __call__(self, arrays: Sequence[Any]) -> List[Any]:
        try:
            return self._run(arrays)
        except Exception as e:  # noqa: BLE001 - re-raised with the failing op's origin
            raise_with_op_origin(e, self, sys.exc_info()[2])


def _rename_cond_blocks(source: str, program: Program) -> str:
    for blk in program.blocks:
        for op in blk.ops:
            if op.type == "while":
                c = op.attrs["cond_block"]
                source = source.replace(f"def B{c}(", f"def C{c}(")
    return source


def raise_with_op_origin(e: BaseException, compiled: CompiledProgram, tb) -> None:
    from .printer import op_text
    found = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == compiled.filename:
            found = compiled.line_ops.get(tb.tb_lineno, found)
        tb = tb.tb_next
    if found is None:
        raise e
    block_idx, op = found
    where = ""
    if op.origin is not None:
        o = op.origin
        where = f'\n  File "{o.file}", line {o.line}, in {o.function}\n    {o.source}'
    text = op_text(compiled.program.blocks[block_idx], op)
    msg = f"{e}\n[operator {text}] failed when the program ran{where}"
    from .errors import reraise_as
    reraise_as(e, msg, op.origin)


def compile_program(program: Program, feed_names: Sequence[str], fetch_names: Sequence[str]) -> CompiledProgram:
    key = (program.version, tuple(feed_names), tuple(fetch_names))
    cached = program._compiled.get(key)
    if cached is None:
        cached = CompiledProgram(program, feed_names, fetch_names)
        program._compiled = {k: v for k, v in program._compiled.items() if k[0] == program.version}
        program._compiled[key] = cached
    return cached


class Executor:
    """Runs static Programs: `run(program, feed={name: array}, fetch_list=[vars])` -> arrays."""

    def __init__(self, place: Any = None) -> None:
        self.place = place

    def run(self, program: Optional[Program] = None, feed: Optional[Dict[str, Any]] = None,
            fetch_list: Optional[Sequence[Any]] = None, return_numpy: bool = True) -> List[Any]:
        from .program import default_main_program
        program = program or default_main_program()
        feed = feed or {}
        fetch_names = [f.name if isinstance(f, Variable) else str(f) for f in (fetch_list or [])]
        g = program.global_block()
        for n in fetch_names:
            if n not in g.vars:
                raise KeyError(f"fetch target {n!r} is not a variable of the global block")
        feed_names = list(feed)
        arrays = []
        for n in feed_names:
            var = g.vars.get(n)
            if var is None:
                raise KeyError(f"feed {n!r} is not a variable of the program")
            v = feed[n]
            arr = np.asarray(v.numpy() if hasattr(v, "numpy") else v)
            if arr.dtype != var.dtype.np:
                arr = arr.astype(var.dtype.np)
            if len(arr.shape) != len(var._shape) or any(
                    d >= 0 and d != a for d, a in zip(var._shape, arr.shape)):
                raise ValueError(f"feed {n!r} has shape {list(arr.shape)}, the program expects "
                                 f"{list(var._shape)} (-1 is any size)")
            arrays.append(arr)
        compiled = compile_program(program, feed_names, fetch_names)
        outs = compiled(arrays)
        if return_numpy:
            return [np.asarray(o) if not isinstance(o, list) else o for o in outs]
        from .tensor import Tensor
        return [Tensor(o) for o in outs]
