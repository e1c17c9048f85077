"""paddle.amp.auto_cast: inside the block, each op's float inputs are cast to the precision
Paddle's lists give it (see dy2st.amp.lists), eagerly and while to_static traces, so converted
and exported programs hold the same casts; gradients flow back through them in float32."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Sequence

from ..runtime import ops
from ..runtime.dtype import BF16_INSTALL, DTYPES, dtype_name, dtype_text
from ..runtime.registry import hooks
from ..runtime.tensor import TensorLike
from . import lists

LEVELS = ("O0", "OD", "O1", "O2")
# ops auto_cast leaves alone: explicit casts, control flow and bookkeeping
UNTOUCHED = frozenset({"cast", "assign", "cond", "while", "print", "assert", "raise",
                        "check_defined", "detach", "shape", "numel"})
UNTOUCHED_PREFIXES = ("array_", "tape_", "grad_")


@dataclass(frozen=True)
class AmpState:
    level: str
    dtype: str
    white: FrozenSet[str]
    black: FrozenSet[str]
    use_promote: bool


_stack: List[Optional[AmpState]] = []
# the dtype of the last auto_cast entered, kept after it exits (Paddle's amp_global_state().
# amp_dtype, which GradScaler.scale reads, typically after the block that computed the loss)
_last_dtype: List[Optional[str]] = [None]
_op_stats: List[Dict[str, Dict[str, int]]] = []     # collect_operator_stats: op -> dtype -> calls


def current() -> Optional[AmpState]:
    """The auto_cast in force (None outside one, or inside enable=False)."""
    return _stack[-1] if _stack else None


def last_dtype() -> Optional[str]:
    """The `dtype` of the most recent auto_cast block entered (enabled or not), None before any."""
    return _last_dtype[0]


def is_float16_supported(device: Any = None) -> bool:
    """float16 runs on the CPU (numpy's half floats)."""
    return True


def is_bfloat16_supported(device: Any = None) -> bool:
    """Whether bfloat16 tensors exist: with the optional ml_dtypes package (dy2st[bf16]), whose
    bfloat16 numpy dtype dy2st's kernels compute on in float32, rounding each result."""
    return "bfloat16" in DTYPES


def target_dtype(state: AmpState, name: str, dtypes: List[str]) -> Optional[str]:
    """The dtype op `name` runs in under `state`, its float inputs having `dtypes` (None: keep
    them); static programs (paddle.static.amp) share the rule."""
    if name in state.white:
        return state.dtype
    if name in state.black:
        return "float32"
    if state.level == "OD":
        return "float32"
    if state.level == "O2" and not state.use_promote:
        return state.dtype
    # gray: float32 if any input is float32, else the inputs' own low precision
    return "float32" if "float32" in dtypes else None


def cast_inputs(name: str, inputs: Sequence[Any]) -> Sequence[Any]:
    """The registry's autocast hook: `inputs` with their float32 / float16 / bfloat16 tensors
    cast to op `name`'s precision under the current auto_cast (inside a composite op,
    registry.classified_as, the composite's precision)."""
    state = current()
    if state is None or name in UNTOUCHED or name.startswith(UNTOUCHED_PREFIXES):
        return inputs
    name = hooks.classify_as or name        # an op of a composite: by the composite's name
    castable = ("float32", "float16", "bfloat16")
    dtypes = [dtype_name(x.dtype) if isinstance(x, TensorLike) else "" for x in inputs]
    found = [d for d in dtypes if d in castable]
    if not found:
        return inputs
    target = target_dtype(state, name, found)
    if _op_stats:
        counts = _op_stats[-1].setdefault(name, {})
        out_dtype = target or found[0]
        counts[out_dtype] = counts.get(out_dtype, 0) + 1
    if target is None or all(d == target for d in found):
        return inputs
    hook, hooks.autocast = hooks.autocast, None      # the casts themselves are not cast
    try:
        return [ops.cast(x, target) if d in castable and d != target else x
                for x, d in zip(inputs, dtypes)]
    finally:
        hooks.autocast = hook


def _install() -> None:
    state = current()
    hooks.autocast = cast_inputs if state is not None or _op_stats else None
    hooks.autocast_key = None if state is None else (
        state.level, state.dtype, state.white, state.black, state.use_promote)


def check_dtype(dtype: Any) -> str:
    name = dtype_text(dtype)
    if name not in ("float16", "bfloat16"):
        raise ValueError(f"auto_cast: dtype must be 'float16' or 'bfloat16', got {dtype_text(dtype)!r}")
    if name == "bfloat16" and not is_bfloat16_supported():
        raise ValueError("auto_cast(dtype='bfloat16') needs the ml_dtypes package, which is not "
                         f"installed: {BF16_INSTALL}; or use dtype='float16' "
                         "(paddle.amp.is_bfloat16_supported() says which)")
    return name


@contextlib.contextmanager
def auto_cast(enable: bool = True, custom_white_list: Optional[Sequence[str]] = None,
              custom_black_list: Optional[Sequence[str]] = None, level: str = "O1",
              dtype: str = "float16", use_promote: bool = True) -> Iterator[None]:
    """Run the block in mixed precision (Paddle's paddle.amp.auto_cast).

    level O1: white-list ops (matmul, conv2d, einsum, linear) in `dtype`, black-list ops
    (exp, log, softmax, mean, sum, layer_norm, cross_entropy, ...) in float32, the rest in the
    precision of their inputs (float32 when they mix). O2: every op but the extra black list
    (interpolation, embedding, scatter) in `dtype` (gray ops still promote to float32 with a
    float32 input while use_promote). OD: only white-list ops in `dtype`. O0: no casting.
    custom_white_list / custom_black_list move ops (Paddle or dy2st op names) between lists."""
    if level not in LEVELS:
        raise ValueError(f"auto_cast: level must be one of {', '.join(LEVELS)}, got {level!r}")
    name = check_dtype(dtype)
    white_extra = lists.dy2st_names(set(custom_white_list or ()))
    black_extra = lists.dy2st_names(set(custom_black_list or ()))
    both = white_extra & black_extra
    if both:
        raise ValueError(f"auto_cast: op(s) {sorted(both)} are in both custom_white_list and "
                         f"custom_black_list")
    state = None
    if enable and level != "O0":
        white = (lists.white_list(name, level) | white_extra) - black_extra
        black = (lists.black_list(name, level) | black_extra) - white_extra
        state = AmpState(level, name, white, black, bool(use_promote))
    _last_dtype[0] = name
    _stack.append(state)
    _install()
    try:
        yield
    finally:
        _stack.pop()
        _install()


amp_guard = auto_cast


def low_precision_op_list() -> Dict[str, Dict[str, int]]:
    """Per op run under collect_operator_stats, how many calls ran in each dtype."""
    return {k: dict(v) for k, v in (_op_stats[-1] if _op_stats else {}).items()}


@contextlib.contextmanager
def collect_operator_stats() -> Iterator[Dict[str, Dict[str, int]]]:
    """Count, per op and dtype, the ops run under auto_cast in the block (the dict yielded is
    filled as they run): a check of which ops ran in low precision."""
    stats: Dict[str, Dict[str, int]] = {}
    _op_stats.append(stats)
    _install()
    try:
        yield stats
    finally:
        _op_stats.pop()
        _install()


def is_autocast_enabled(device_type: Any = None) -> bool:
    """Whether an auto_cast block is in force. Unlike Paddle on a CPU (where auto_cast has no
    effect and this stays False), dy2st's auto_cast casts on the CPU, so this says True there."""
    return current() is not None


def get_autocast_dtype(device_type: Any = None) -> str:
    """The low-precision dtype of the auto_cast in force, "float16" outside one (Paddle's default)."""
    state = current()
    return state.dtype if state is not None else "float16"


def get_autocast_cpu_dtype(device_type: Any = None) -> str:
    """get_autocast_dtype: dy2st has one (CPU) autocast state."""
    return get_autocast_dtype(device_type)


def get_autocast_gpu_dtype(device_type: Any = None) -> str:
    """get_autocast_dtype: dy2st has one autocast state, shared by every device name."""
    return get_autocast_dtype(device_type)


def autocast(device_type: Optional[str] = None, dtype: str = "float16", enabled: bool = True,
             cache_enabled: bool = True) -> Any:
    """paddle.autocast, the torch-style spelling: auto_cast(enable=enabled, dtype=dtype) at
    level O1. `device_type` and `cache_enabled` are accepted for compatibility (one CPU state)."""
    return auto_cast(enable=enabled, dtype=dtype)
