"""Functional control flow: cond and while_loop build `cond` / `while` ops with closed sub-blocks
in static mode and run plain Python in eager mode."""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np

from . import state
from .dtype import bool_
from .origin import user_origin
from .program import Block, Variable, block_guard
from .pytree import LEAF, describe, flatten, unflatten
from .registry import Meta, append_op, register_op
from .tensor import Tensor, TensorLike


class UndefinedVar:
    """A name that has no value on some path; using it raises a clear NameError."""

    def __init__(self, name: str, where: str = "") -> None:
        self._name = name
        self._where = where

    def _fail(self, *args: Any, **kwargs: Any):
        raise NameError(f"variable '{self._name}' is not defined on every path{self._where}; "
                        "give it a value before the branch or loop")

    def __repr__(self) -> str:
        return f"UndefinedVar({self._name!r})"

    __getattr__ = _fail
    __call__ = _fail
    __bool__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __getitem__ = __iter__ = __len__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = __neg__ = __matmul__ = _fail


def is_undefined(v: Any) -> bool:
    return type(v) is UndefinedVar


def _no_kernel(*args, **kwargs):
    raise RuntimeError("control-flow ops are run by the executor")


register_op("cond", infer=None)(_no_kernel)
register_op("while", infer=None, n_outputs=1)(_no_kernel)


def _is_number(v: Any) -> bool:
    return isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)) and not isinstance(v, np.ndarray)


def _constant(v: Any, like: Optional[Any] = None):
    from .ops.operands import constant, scalar_dtype
    return constant(v, like.dtype if like is not None else scalar_dtype(v))


def _meta(v: Variable) -> Meta:
    return Meta(v._shape, v.dtype, v.kind, v.elem)


def _where(v: Any) -> str:
    """The user's line that produced variable v, if known."""
    if not isinstance(v, Variable):
        return ""
    for op in reversed(v.block.ops):
        if v.name in op.outputs and op.origin is not None:
            return f" (line {op.origin.line}: {op.origin.source})"
    return ""


def _label(names: Optional[Sequence[str]], i: int, fallback: str) -> str:
    return f"'{names[i]}'" if names and i < len(names) else fallback


def _as_pred(pred: Variable) -> Variable:
    if pred.kind != "dense":
        raise TypeError("a tensor array cannot be used as a condition")
    if all(d >= 0 for d in pred._shape) and int(np.prod(pred._shape)) != 1:
        raise ValueError(f"the truth value of a tensor with {int(np.prod(pred._shape))} elements is "
                         "ambiguous; use .any() or .all()")
    from . import ops
    if pred._shape:
        pred = ops.reshape(pred, [])
    if pred.dtype != bool_:
        pred = ops.cast(pred, "bool")
    return pred


def _align_captures(blocks: Sequence[Block], n_leading: int) -> List[Variable]:
    """Give every block the same captured outer variables, in one order; returns them."""
    program = blocks[0].program
    sources: List[str] = []
    for b in blocks:
        for s in b.capture_sources():
            if s not in sources:
                sources.append(s)
    outer = [program_var(program, s) for s in sources]
    for b in blocks:
        leading = b.params[:n_leading]
        for v in outer:
            b.local(v)
        b.params = leading + [b.captures[s] for s in sources]
    return outer


def program_var(program, name: str) -> Variable:
    v = program.find_var(name)
    if v is None:
        raise KeyError(name)
    return v


# ----------------------------------------------------------------------------- cond
def cond(pred: Any, true_fn: Optional[Callable] = None, false_fn: Optional[Callable] = None,
         name: Optional[str] = None, return_names: Optional[Sequence[str]] = None) -> Any:
    """true_fn() if pred else false_fn(); a `cond` op when pred is symbolic."""
    if not isinstance(pred, Variable):
        if isinstance(pred, Tensor):
            pred = bool(pred)
        if pred:
            return true_fn() if true_fn is not None else None
        return false_fn() if false_fn is not None else None
    pred = _as_pred(pred)
    parent = state.current_block()
    program = parent.program
    tb = program.create_block(parent.idx)
    with block_guard(tb):
        t_out = true_fn() if true_fn is not None else None
    fb = program.create_block(parent.idx)
    with block_guard(fb):
        f_out = false_fn() if false_fn is not None else None
    return merge_branches(pred, t_out, f_out, tb, fb, return_names)


def _same_constant(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and _is_number(a) and bool(a == b)
    except Exception:  # noqa: BLE001 - objects with odd __eq__ are simply not equal
        return False


def merge_branches(pred: Variable, t_out: Any, f_out: Any, tb: Block, fb: Block,
                   names: Optional[Sequence[str]] = None) -> Any:
    t_leaves, t_tree = flatten(t_out)
    f_leaves, f_tree = flatten(f_out)
    if t_tree != f_tree:
        raise ValueError("the two branches of a tensor `if` produce different structures: "
                         f"{describe(t_tree)} in the true branch and {describe(f_tree)} in the "
                         "false branch; both must produce the same nesting of tensors")
    result: List[Any] = [None] * len(t_leaves)
    t_res: List[Variable] = []
    f_res: List[Variable] = []
    slots: List[int] = []
    metas: List[Meta] = []
    for i, (a, b) in enumerate(zip(t_leaves, f_leaves)):
        label = _label(names, i, f"output {i}")
        if is_undefined(a) or is_undefined(b):
            result[i] = a if is_undefined(a) else b
            continue
        at, bt = isinstance(a, TensorLike), isinstance(b, TensorLike)
        if not at and not bt:
            if _same_constant(a, b):
                result[i] = a
                continue
            if _is_number(a) and _is_number(b):
                from .ops.operands import promote, scalar_dtype
                d = promote(scalar_dtype(a), scalar_dtype(b))
                with block_guard(tb):
                    a = _constant_of(a, d)
                with block_guard(fb):
                    b = _constant_of(b, d)
            else:
                raise TypeError(f"{label} is {a!r} in the true branch and {b!r} in the false "
                                "branch of a tensor `if`; only tensors and numbers can differ "
                                "between branches")
        elif not at:
            if not _is_number(a):
                raise TypeError(f"{label} is a tensor in one branch and {type(a).__name__} in "
                                "the other branch of a tensor `if`")
            with block_guard(tb):
                a = _constant(a, b)
        elif not bt:
            if not _is_number(b):
                raise TypeError(f"{label} is a tensor in one branch and {type(b).__name__} in "
                                "the other branch of a tensor `if`")
            with block_guard(fb):
                b = _constant(b, a)
        with block_guard(tb):
            la = _local(tb, a)
        with block_guard(fb):
            lb = _local(fb, b)
        metas.append(_unify(label, la, lb))
        t_res.append(la)
        f_res.append(lb)
        slots.append(i)
    tb.results = [v.name for v in t_res]
    fb.results = [v.name for v in f_res]
    sources = _align_captures([tb, fb], 0)
    if metas:
        outs = append_op("cond", [pred, *sources], {"true_block": tb.idx, "false_block": fb.idx},
                         metas=metas)
    else:
        outs = ()
        append_op("cond", [pred, *sources], {"true_block": tb.idx, "false_block": fb.idx}, metas=[])
    for i, v in zip(slots, outs):
        result[i] = v
    return unflatten(t_tree, result)


def _constant_of(v: Any, d) -> Any:
    from .ops.operands import constant
    return constant(v, d)


def _local(block: Block, v: Any) -> Variable:
    if isinstance(v, Tensor):
        v = block.program.capture_tensor(v)
    return block.local(v)


def _unify(label: str, a: Variable, b: Variable) -> Meta:
    if a.kind != b.kind:
        raise TypeError(f"{label} is a tensor array in one branch and a tensor in the other")
    if a.dtype != b.dtype:
        raise TypeError(f"{label} has dtype {a.dtype} in the true branch{_where(a)} and "
                        f"{b.dtype} in the false branch{_where(b)}; both branches must agree")
    if a.kind == "array":
        elem = a.elem if b.elem is None else b.elem if a.elem is None else _unify_elem(label, a.elem, b.elem)
        return Meta((), a.dtype, "array", elem)
    if len(a._shape) != len(b._shape):
        raise ValueError(f"{label} has shape {list(a._shape)} in the true branch{_where(a)} and "
                         f"{list(b._shape)} in the false branch{_where(b)}; ranks must agree")
    return Meta(tuple(x if x == y else -1 for x, y in zip(a._shape, b._shape)), a.dtype)


def _unify_elem(label: str, a: tuple, b: tuple) -> tuple:
    if a[1] != b[1] or len(a[0]) != len(b[0]):
        raise TypeError(f"{label}: tensor array items differ ({a[1]}{list(a[0])} vs {b[1]}{list(b[0])})")
    return (tuple(x if x == y else -1 for x, y in zip(a[0], b[0])), a[1])


# ----------------------------------------------------------------------------- while_loop
def while_loop(cond: Callable, body: Callable, loop_vars: Sequence[Any], is_test: bool = False,
               name: Optional[str] = None, names: Optional[Sequence[str]] = None) -> List[Any]:
    """Repeat body(*loop_vars) while cond(*loop_vars); a `while` op when cond is symbolic."""
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise TypeError("while_loop: loop_vars must be a non-empty list or tuple")
    loop_vars = list(loop_vars)
    c = probe(cond, *loop_vars)
    if not isinstance(c, Variable):
        while c:
            loop_vars = _as_list(body(*loop_vars), len(loop_vars))
            c = probe(cond, *loop_vars)
            if isinstance(c, Variable):
                return static_while(cond, body, loop_vars, names)
        return loop_vars
    return static_while(cond, body, loop_vars, names)


def probe(fn: Callable, *args: Any) -> Any:
    """fn(*args) evaluated where its ops are thrown away: a loop condition is first evaluated
    only to learn whether it is symbolic (then the loop's own blocks evaluate it again)."""
    parent = state.current_block()
    if parent is None:
        return fn(*args)
    program = parent.program
    n_blocks = len(program.blocks)
    scratch = program.create_block(parent.idx)
    try:
        with block_guard(scratch):
            return fn(*args)
    finally:
        del program.blocks[n_blocks:]


def _as_list(out: Any, n: int) -> List[Any]:
    if isinstance(out, (list, tuple)) and len(out) == n:
        return list(out)
    if n == 1:
        return [out]
    raise ValueError(f"while_loop: body must return {n} values (as the loop_vars), got {out!r}")


def _spec(v: Any) -> Optional[Meta]:
    if isinstance(v, Variable):
        return _meta(v)
    if isinstance(v, Tensor):
        return Meta(tuple(v._value.shape), v.dtype)
    return None


class _LearnedStructure(Exception):
    """Loop variables undefined before the loop turned out to be structures (e.g. a returned
    tuple): the loop is traced again with placeholders of that structure."""

    def __init__(self, values: dict) -> None:
        super().__init__("loop variable structure learned")
        self.values = values


def static_while(cond: Callable, body: Callable, loop_vars: List[Any],
                 names: Optional[Sequence[str]] = None) -> List[Any]:
    loop_vars = list(loop_vars)
    parent = state.current_block()
    for _ in range(len(loop_vars) + 1):
        try:
            return _static_while(cond, body, loop_vars, names)
        except _LearnedStructure as learned:
            with block_guard(parent):
                for k, value in learned.values.items():
                    loop_vars[k] = placeholder_like(value)
    raise RuntimeError("while_loop: loop variable structures did not settle")


def _static_while(cond: Callable, body: Callable, loop_vars: List[Any],
                  names: Optional[Sequence[str]] = None) -> List[Any]:
    parent = state.current_block()
    program = parent.program
    leaves, tree = flatten(loop_vars)
    with block_guard(parent):
        init = [(_constant(v) if _is_number(v) else v) for v in leaves]
    is_var = [isinstance(v, TensorLike) for v in init]
    specs = [_spec(v) for v in init]
    labels = [_leaf_label(names, tree, i) for i in range(len(init))]
    for _attempt in range(5):
        n_blocks = len(program.blocks)
        cb = program.create_block(parent.idx)
        bb = program.create_block(parent.idx)
        c_params = _make_params(cb, specs, init)
        b_params = _make_params(bb, specs, init)
        with block_guard(cb):
            c = cond(*unflatten(tree, c_params))
            if not isinstance(c, Variable):
                c = _constant(bool(c))
            c = _as_pred(c)
            cb.results = [cb.local(c).name]
        with block_guard(bb):
            out = _as_list(body(*unflatten(tree, b_params)), len(loop_vars))
            out_leaves, out_tree = flatten(out)
            if out_tree != tree:
                grown = {k: v1 for k, (v0, v1) in enumerate(zip(loop_vars, out))
                         if is_undefined(v0) and not is_undefined(v1)}
                if grown:
                    del program.blocks[n_blocks:]
                    raise _LearnedStructure(grown)
                raise ValueError(
                    "a tensor loop changes the structure of its loop variables: "
                    f"{describe(tree)} before the loop, {describe(out_tree)} after one iteration")
            results = []
            learned = {}
            for i, (o, p) in enumerate(zip(out_leaves, b_params)):
                if not is_var[i]:
                    if is_undefined(p) and not is_undefined(o):
                        learned[i] = o      # first defined inside the loop: learn its type
                        continue
                    if not _same_constant(o, p):
                        raise TypeError(f"loop variable {labels[i]} is the Python value {p!r} before "
                                        f"a tensor loop and {o!r} after an iteration; only tensors "
                                        "and numbers can change inside a tensor loop")
                    continue
                if _is_number(o):
                    o = _constant(o, p)
                if not isinstance(o, TensorLike):
                    raise TypeError(f"loop variable {labels[i]} becomes {type(o).__name__} in the "
                                    "loop body; it must stay a tensor")
                results.append(_local(bb, o))
        if learned:
            del program.blocks[n_blocks:]
            with block_guard(parent):
                for i, o in learned.items():
                    if isinstance(o, TensorLike) or _is_number(o):
                        init[i] = _constant(o) if _is_number(o) else placeholder_like(o)
                        is_var[i] = True
                        specs[i] = _spec(init[i])
                    else:
                        init[i] = o      # a Python value such as the None of a bare `return`
            continue
        new_specs = list(specs)
        k = 0
        for i in range(len(init)):
            if not is_var[i]:
                continue
            new_specs[i] = _relax(labels[i], specs[i], results[k], init[i])
            k += 1
        if new_specs == specs:
            break
        del program.blocks[n_blocks:]
        specs = new_specs
    else:
        raise RuntimeError("while_loop: loop variable shapes did not settle")
    bb.results = [v.name for v in results]
    n_lv = sum(is_var)
    sources = _align_captures([cb, bb], n_lv)
    inits = [v for v, var in zip(init, is_var) if var]
    metas = [s for s, var in zip(specs, is_var) if var]
    outs = append_op("while", [*inits, *sources],
                     {"cond_block": cb.idx, "body_block": bb.idx, "n_loop_vars": n_lv},
                     metas=metas)
    it = iter(outs)
    final = [next(it) if var else v for v, var in zip(init, is_var)]
    return _as_list(unflatten(tree, final), len(loop_vars))


def placeholder_like(value: Any) -> Any:
    """Zeros of the same structure, dtype and rank (unknown dims become 1): the value of a
    name on a path where it is not assigned (an untaken branch, before a loop defines it)."""
    from . import ops
    if isinstance(value, TensorLike):
        if isinstance(value, Variable) and value.kind == "array":
            return ops.create_array(value.dtype)
        shape = value._shape if isinstance(value, Variable) else value._value.shape
        return ops.full([d if d >= 0 else 1 for d in shape], 0, value.dtype)
    if type(value) in (list, tuple):
        return type(value)(placeholder_like(v) for v in value)
    if type(value) is dict:
        return {k: placeholder_like(v) for k, v in value.items()}
    return value


def _leaf_label(names, tree, i) -> str:
    if names and tree[0] in ("list", "tuple") and len(tree[1]) == len(names) and all(
            s is LEAF for s in tree[1]):
        return f"'{names[i]}'"
    return f"#{i}"


def _make_params(block: Block, specs, init) -> List[Any]:
    params = []
    for s, v in zip(specs, init):
        if s is None:
            params.append(v)
            continue
        p = block.create_var(s.shape, s.dtype, prefix="loop", kind=s.kind, elem=s.elem)
        block.params.append(p.name)
        params.append(p)
    return params


def _relax(label: str, spec: Meta, out: Variable, init: Any) -> Meta:
    if out.kind != spec.kind:
        raise TypeError(f"loop variable {label} changes kind (tensor array vs tensor) in the loop body")
    if out.dtype != spec.dtype and spec.kind == "dense":
        raise TypeError(f"loop variable {label} is {spec.dtype}{list(spec.shape)} before the loop"
                        f"{_where(init)} and {out.dtype}{list(out._shape)} after the loop body"
                        f"{_where(out)}; a loop variable must keep its dtype")
    if spec.kind == "array":
        if out.elem is None or spec.elem is None:
            return Meta((), out.dtype, "array", out.elem or spec.elem)
        return Meta((), out.dtype, "array", _unify_elem(label, spec.elem, out.elem))
    if len(out._shape) != len(spec.shape):
        raise ValueError(f"loop variable {label} has shape {list(spec.shape)} before the loop"
                         f"{_where(init)} and {list(out._shape)} after the loop body{_where(out)}; "
                         "a loop variable must keep its rank")
    return Meta(tuple(a if a == b else -1 for a, b in zip(spec.shape, out._shape)), spec.dtype)
