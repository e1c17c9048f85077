"""The one op registry: every op is declared once (kernel, shape/dtype inference) and reached
through `apply`, which computes eagerly or appends an Operator to the Block being built."""
from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, NamedTuple, NoReturn, Optional, Sequence, Set, Tuple

import numpy as np

from . import state
from .complex_capable import COMPLEX_CAPABLE, complex_refusal
from .dtype import DType
from .errors import broadcast_mismatch, reraise_as
from .origin import user_origin
from .program import Block, Variable
from .tensor import Tensor
from .widened import WIDENED, exact_read, narrow_dtypes


class Meta(NamedTuple):
    """What static inference knows of an output: shape (-1 unknown), dtype, kind, array element."""
    shape: Tuple[int, ...]
    dtype: DType
    kind: str = "dense"
    elem: Any = None


class OpDef(NamedTuple):
    name: str
    kernel: Callable[..., Any]
    infer: Callable[..., Any]
    n_outputs: int
    doc: str


OPS: Dict[str, OpDef] = {}


class Hooks:
    """Callbacks that packages above the runtime register, so the runtime and nn never import
    them: dy2st.autograd records eager ops with `record(opdef, inputs, attrs, out)` when an input
    needs a gradient; dy2st.jit gives `layer_forward(layer)`, the converted forward a user Layer
    runs while a Program is traced (None: its own forward); dy2st.amp, while auto_cast is on,
    sets `autocast(name, inputs) -> inputs` (casting them to the op's precision) and
    `autocast_key`, which to_static adds to its cache key. `classify_as` is the name the ops of
    a composite are classified by while it runs (see `classified_as`)."""
    record: Optional[Callable[..., None]] = None
    layer_forward: Optional[Callable[[Any], Any]] = None
    autocast: Optional[Callable[[str, Sequence[Any]], Sequence[Any]]] = None
    autocast_key: Any = None
    classify_as: Optional[str] = None


hooks = Hooks()


class classified_as:
    """A composite op: a function that dy2st computes with several ops where Paddle runs one
    kernel of its own name, which Paddle's mixed-precision lists name (bmm gray, dist black,
    max_pool2d_with_index white, ...). While it runs, `apply` has auto_cast classify every op it
    applies by `name` instead of the op's own name, so the composite computes in the precision
    Paddle gives `name`. As a decorator, or `with classified_as(name):` around part of a body.
    An enclosing composite's name wins."""

    __slots__ = ("name", "outer")

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> None:
        self.outer = hooks.classify_as
        if self.outer is None:
            hooks.classify_as = self.name

    def __exit__(self, *exc: Any) -> None:
        hooks.classify_as = self.outer

    def __call__(self, fn: Callable) -> Callable:
        name = self.name

        @functools.wraps(fn)
        def composite(*args: Any, **kwargs: Any) -> Any:
            outer = hooks.classify_as
            if hooks.autocast is None or outer is not None:     # nothing to classify
                return fn(*args, **kwargs)
            hooks.classify_as = name
            try:
                return fn(*args, **kwargs)
            finally:
                hooks.classify_as = outer
        return composite


def register_op(name: str, infer: Callable[..., Any], n_outputs: int = 1) -> Callable:
    """Declare op `name` with the decorated numpy kernel `kernel(*arrays, **attrs)`."""
    def deco(kernel: Callable) -> Callable:
        if name in OPS:
            raise ValueError(f"op {name!r} is declared twice")
        run = kernel
        for adapter in KERNEL_ADAPTERS:
            run = adapter(name, run)
        if run is not kernel:
            UNADAPTED[name] = kernel
        OPS[name] = OpDef(name, run, infer, n_outputs, (kernel.__doc__ or "").strip())
        return kernel
    return deco


# fn(op name, kernel) -> kernel, applied to every kernel, those declared later too (bfloat16's
# compute-in-float32 adapter, runtime/bfloat16.py, added when the dtype registers)
KERNEL_ADAPTERS: List[Callable[[str, Callable], Callable]] = []
# The numpy dtypes the adapters are for, and the kernel as declared of each op an adapter
# changed: an adapter passes arrays of other dtypes to that kernel unchanged, so `apply` (eager)
# and the executor (static, where dtypes are known when compiling) call it directly for them,
# saving the adapter's call.
ADAPTED_DTYPES: Set[np.dtype] = set()
UNADAPTED: Dict[str, Callable[..., Any]] = {}
# the dtype kinds `apply` looks at closely: complex, and those of ADAPTED_DTYPES (bfloat16: "V")
_checked_kinds = "c"


def adapt_kernels(adapter: Callable[[str, Callable], Callable], dtype: np.dtype) -> None:
    """Wrap every op's kernel, now and when declared, with `adapter(name, kernel)`, which
    changes what the kernel does for arrays of `dtype` only."""
    global _checked_kinds
    KERNEL_ADAPTERS.append(adapter)
    ADAPTED_DTYPES.add(np.dtype(dtype))
    _checked_kinds += np.dtype(dtype).kind
    for name, opdef in list(OPS.items()):
        run = adapter(name, opdef.kernel)
        if run is not opdef.kernel:
            UNADAPTED.setdefault(name, opdef.kernel)
            OPS[name] = opdef._replace(kernel=run)


# op name -> into(*arrays, out=buffer, **attrs): the op's kernel writing its result into `out`, an
# array of the result's shape and float dtype that may be one of the inputs. The buffer-reuse
# pass (passes/inplace.py) writes such an op into a dying input, as it does for numpy ufuncs.
INTO: Dict[str, Callable[..., Any]] = {}


def register_into(name: str) -> Callable:
    """Declare the decorated function as op `name`'s writing-into form (see INTO)."""
    def deco(fn: Callable) -> Callable:
        if name in INTO:
            raise ValueError(f"op {name!r} has an into-kernel already")
        INTO[name] = fn
        return fn
    return deco


def get_op(name: str) -> OpDef:
    try:
        return OPS[name]
    except KeyError:
        raise KeyError(f"unknown op type {name!r}") from None


_ndarray = np.ndarray


def _wrap(value: Any) -> Tensor:
    if type(value) is not np.ndarray:
        if isinstance(value, list):      # a tensor array in eager mode is a Python list
            return value
        value = np.asarray(value)
    return Tensor(value)


def apply(name: str, inputs: Sequence[Any], attrs: Optional[Dict[str, Any]] = None):
    """Run op `name` on eager tensors, or append it to the current Block."""
    opdef = OPS[name]
    if hooks.autocast is not None:
        # inside a composite, by its name (casts and bookkeeping ops keep their own)
        inputs = hooks.autocast(name, inputs)
    attrs = attrs if attrs is not None else {}
    if not state.build_state.blocks:
        try:
            values = [x._value for x in inputs]
        except AttributeError:
            values = None
        if values is not None:
            kernel = opdef.kernel
            if name not in COMPLEX_CAPABLE or name in UNADAPTED:
                # inline, as most ops run it: a call would cost as much as the check. A complex
                # value or one of an adapted dtype's kind is looked at closely by eager_kernel
                for v in values:
                    if type(v) is _ndarray and v.dtype.kind in _checked_kinds:
                        kernel = eager_kernel(name, kernel, values)
                        break
                else:
                    if UNADAPTED:
                        kernel = UNADAPTED.get(name, kernel)
            try:
                out = kernel(*values, **attrs)
            except Exception as e:  # noqa: BLE001 - any kernel failure is named, then re-raised
                raise_eager_error(name, e, values)
            out = _wrap(out) if opdef.n_outputs == 1 else tuple(_wrap(o) for o in out)
            for x in inputs:    # most ops see no input that needs a gradient: one check each
                if not x.stop_gradient:
                    if hooks.record is not None:
                        hooks.record(opdef, inputs, attrs, out)
                    break
            return out
        if any(isinstance(x, Variable) for x in inputs):
            raise RuntimeError(f"{name}: symbolic tensors can only be used while a Program is "
                               "being built (inside static.program_guard or a to_static call)")
        values = [x if isinstance(x, list) else x._value for x in inputs]
        kernel = opdef.kernel
        if name not in COMPLEX_CAPABLE or name in UNADAPTED:
            kernel = eager_kernel(name, kernel, values)
        try:
            return _wrap(kernel(*values, **attrs))
        except Exception as e:  # noqa: BLE001 - any kernel failure is named, then re-raised
            raise_eager_error(name, e, values)
    return append_op(name, inputs, attrs)


def eager_kernel(name: str, kernel: Callable[..., Any], values: Sequence[Any]) -> Callable[..., Any]:
    """The kernel op `name` runs on the eager arrays `values` (its OPS kernel: `kernel`). An op
    not declared complex-capable refuses a complex input (see complex_capable.py); once kernels
    are adapted, the kernel as declared runs unless a value has an adapted dtype."""
    adapted = False
    for v in values:
        if type(v) is np.ndarray:           # tensor arrays are lists
            dtype = v.dtype
            if dtype.kind == "c" and name not in COMPLEX_CAPABLE:
                complex_refusal(name, dtype, user_origin(4))
            if dtype in ADAPTED_DTYPES:
                adapted = True
    return kernel if adapted or not ADAPTED_DTYPES else UNADAPTED.get(name, kernel)


def raise_eager_error(name: str, e: Exception, values: Sequence[Any]) -> NoReturn:
    """Re-raise a kernel's error (numpy's own text, say) naming the op and the user's line, as
    errors of a static Program do; the error keeps its type."""
    if getattr(e, "dy2st_origin", None) is not None:
        raise e
    origin = user_origin(3)
    text = str(e)
    if "could not be broadcast" in text and len(values) == 2:
        text = broadcast_mismatch(name, np.shape(values[0]), np.shape(values[1])) or text
    message = text if text.startswith(f"{name}:") else f"{name}: {text}"
    e.dy2st_plain = message     # the text without the location, for an `In user code:` block
    if origin is not None:
        message += f'\n  File "{origin.file}", line {origin.line}, in {origin.function}'
        if origin.source:
            message += f"\n    {origin.source.strip()}"
    reraise_as(e, message, origin)


def to_local(block: Block, x: Any) -> Variable:
    if isinstance(x, Tensor):
        x = block.program.capture_tensor(x)
    if not isinstance(x, Variable):
        raise TypeError(f"expected a tensor, got {type(x).__name__}")
    return block.local(x)


# ops that read a maybe-undefined value without needing it defined (they carry or check it)
_READS_UNDEFINED = frozenset(("cond", "while", "check_defined"))


def append_op(name: str, inputs: Sequence[Any], attrs: Dict[str, Any],
              metas: Optional[List[Meta]] = None):
    block = state.current_block()
    opdef = OPS[name]
    if block.program.maybe_undefined and name not in _READS_UNDEFINED:
        _check_inputs_defined(block, inputs, opdef, attrs)
    # most inputs are Variables of this block already
    local = [x if type(x) is Variable and x.block is block else to_local(block, x)
             for x in inputs]
    if name not in COMPLEX_CAPABLE:
        for x in local:
            if x.dtype.is_complex:
                complex_refusal(name, x.dtype, user_origin(2))
    if metas is None:
        inferred = opdef.infer(*local, **attrs)
        if opdef.n_outputs == 1:
            out = block.append_op_with_outputs(name, local, (inferred,), attrs, user_origin(2))[0]
            return out if state.build_state.grad_enabled else _stop_gradients(block, local, [out])[0]
        metas = inferred
    outs = block.append_op_with_outputs(name, local, metas, attrs, user_origin(2))
    # a tensor `if` or loop under no_grad: the ops of its blocks stop their own gradients, and a
    # value a path passes through unchanged (`y = x`) keeps its gradient, as in eager code
    stops = not state.build_state.grad_enabled and name not in ("cond", "while")
    return tuple(_stop_gradients(block, local, outs) if stops else outs)


def _stop_gradients(block: Block, inputs: Sequence[Any], outs: List[Variable]) -> List[Variable]:
    """Under no_grad / set_grad_enabled(False) a traced op's float results pass through a
    `detach`, so static gradients stop where eager ones do (and jit.save keeps the stop)."""
    if not block.program.grad_stops or \
            not any(type(x) is Variable and x.dtype.is_inexact for x in inputs):
        return outs         # nothing differentiable flows in: no gradient to stop
    origin = user_origin(3)
    return [block.append_op_with_outputs("detach", [o], (Meta(o._shape, o.dtype),), {}, origin)[0]
            if o.kind == "dense" and o.dtype.is_inexact else o for o in outs]


def no_grad_update(new: Variable, old: Variable) -> Variable:
    """The value an in-place change made under no_grad gives its tensor. Eager autograd does not
    record the change, so gradients reach the value from before it unchanged; the
    `no_grad_update` op computes `new` and passes its gradient to `old`."""
    block = state.current_block()
    if state.build_state.grad_enabled or block is None or not block.program.grad_stops or \
            type(new) is not Variable or new.kind != "dense" or not new.dtype.is_inexact:
        return new
    old = to_local(block, old)
    if old.kind != "dense" or new.dtype != old.dtype or new._shape != old._shape:
        return new
    meta = Meta(new._shape, new.dtype)
    return block.append_op_with_outputs("no_grad_update", [to_local(block, new), old],
                                        (meta,), {}, user_origin(2))[0]


def _check_inputs_defined(block: Block, inputs: Sequence[Any], opdef: Any, attrs: dict) -> None:
    """Before an op reads a value that one path of a tensor `if` never assigned, check at run
    time that the path taken did assign it (once per value and block). A widened loop variable
    is checked only where the op's dtypes show that it was widened (runtime/widened.py)."""
    table = block.program.maybe_undefined
    for x in inputs:
        entry = table.get(getattr(x, "name", None)) if isinstance(x, Variable) else None
        if entry is None:
            continue
        if x.name in block.checked_defined:
            continue
        if entry[1] == WIDENED and exact_read(x, narrow_dtypes(x), opdef, inputs, attrs):
            continue
        block.checked_defined.add(x.name)
        # circle: runtime.side_effects imports this module at import time
        from .side_effects import check_entry
        check_entry(entry)
