"""The mixed-precision rewrite of a static Program's forward ops (Paddle's rewrite_program):
each op of the global block gets cast ops before it that give its float inputs the precision
auto_cast's rule gives it under the program's lists; fp16_guard marks the ops an O2 program with
use_amp_guard may cast."""
from __future__ import annotations

import contextlib
import weakref
from typing import Dict, Iterator, List, Optional, Set, Tuple

from ...amp.auto_cast import UNTOUCHED, UNTOUCHED_PREFIXES, AmpState, target_dtype
from ...runtime import state
from ...runtime.dtype import DTYPES, dtype_name
from ...runtime.program import Block, Operator, Program, Variable
from ...runtime.registry import OPS, Meta
from .fp16_lists import AutoMixedPrecisionLists

_CASTABLE = ("float32", "float16", "bfloat16")
# program -> ids of the ops built inside fp16_guard blocks
_guarded: "weakref.WeakKeyDictionary[Program, Set[int]]" = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def fp16_guard() -> Iterator[None]:
    """Marks the ops built inside as the ones a program decorated at level O2 with
    use_amp_guard=True (use_pure_fp16 with use_fp16_guard) may run in low precision; the
    others keep float32. Elsewhere (eagerly, under to_static) the block runs unchanged."""
    block = state.current_block()
    start = len(block.ops) if block is not None else 0
    try:
        yield
    finally:
        if block is not None:
            _guarded.setdefault(block.program, set()).update(id(op) for op in block.ops[start:])


def guarded_ops(program: Program) -> Set[int]:
    return _guarded.get(program, set())


def _has_sub_block(op: Operator) -> bool:
    return op.type in ("cond", "while") or any(k.endswith("block") for k in op.attrs)


class _Rewriter:
    """Walks the ops of one block in order, rebuilding its op list with the casts."""

    def __init__(self, block: Block, amp: AmpState, black_vars: Set[str],
                 only: Optional[Set[int]]) -> None:
        self.block, self.amp, self.black_vars, self.only = block, amp, black_vars, only
        self.original = {name: v.dtype for name, v in block.vars.items()}
        self.casts: Dict[Tuple[str, str], str] = {}
        self.n_casts = 0

    def var(self, name: str) -> Optional[Variable]:
        return self.block.vars.get(name)

    def cast(self, name: str, dtype: str, op: Operator) -> str:
        key = (name, dtype)
        if key not in self.casts:
            v = self.block.vars[name]
            out = self.block.append_op_with_outputs("cast", [v], (Meta(v._shape, DTYPES[dtype]),),
                                                    {"dtype": dtype}, op.origin)[0]
            self.casts[key] = out.name
            self.n_casts += 1
        return self.casts[key]

    def keep_as_built(self, op: Operator) -> None:
        """Ops that stay as built: their inputs get back the dtype they had when built."""
        if op.type != "cast":
            op.inputs = [self.cast(n, dtype_name(self.original[n]), op)
                         if (v := self.var(n)) is not None and n in self.original and
                         v.dtype != self.original[n] else n for n in op.inputs]
        self.block.ops.append(op)

    def rewrite(self, op: Operator) -> None:
        vars_ = [self.var(n) for n in op.inputs]
        floats = [dtype_name(v.dtype) for v in vars_
                  if v is not None and v.kind == "dense" and dtype_name(v.dtype) in _CASTABLE]
        if not floats:
            return self.keep_as_built(op)
        if self.black_vars and self.black_vars & set(op.inputs + op.outputs):
            target: Optional[str] = "float32"
        else:
            target = target_dtype(self.amp, op.type, floats)
        if target is not None:
            op.inputs = [self.cast(n, target, op)
                         if v is not None and v.kind == "dense" and dtype_name(v.dtype) in _CASTABLE and
                         dtype_name(v.dtype) != target else n for n, v in zip(op.inputs, vars_)]
        self.block.ops.append(op)
        # the outputs take the dtypes the op gives its new inputs
        inferred = OPS[op.type].infer(*[self.block.vars[n] for n in op.inputs], **op.attrs)
        metas: List[Meta] = [inferred] if isinstance(inferred, Meta) else list(inferred)
        for name, meta in zip(op.outputs, metas):
            out = self.var(name)
            if out is not None and out.kind == "dense":
                out.dtype = meta.dtype

    def run(self) -> int:
        ops, self.block.ops = self.block.ops, []
        for op in ops:
            untouched = op.type in UNTOUCHED or op.type.startswith(UNTOUCHED_PREFIXES) or \
                op.type not in OPS or _has_sub_block(op)
            if untouched or (self.only is not None and id(op) not in self.only):
                self.keep_as_built(op)
            else:
                self.rewrite(op)
        self.block.program.version += 1
        return self.n_casts


def rewrite_program(program: Program, amp_lists: AutoMixedPrecisionLists, level: str = "O1",
                    use_promote: bool = False, use_amp_guard: bool = False) -> int:
    """Insert the casts of mixed precision into `program`'s global block (the forward built so
    far); returns how many. Level O1 / OD / O2 as paddle.amp.auto_cast, with the lists given."""
    amp = AmpState(level, amp_lists.amp_dtype, frozenset(amp_lists.low_precision()),
                   frozenset(amp_lists.full_precision()), bool(use_promote))
    only = guarded_ops(program) if use_amp_guard else None
    rewriter = _Rewriter(program.global_block(), amp, set(amp_lists.black_varnames or ()), only)
    return rewriter.run()
