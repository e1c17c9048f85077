"""Framework-level helpers of the top-level paddle namespace that are not ops: dtype limits
(iinfo, finfo), print options, the RNG state, the CPU place and device queries, mode and type
predicates, create_parameter and the paddle.batch reader decorator."""
from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Sequence

import numpy as np

from ..runtime import state
from ..runtime.device import Place, get_device, set_device  # noqa: F401 - paddle.* names
from ..runtime.dtype import dtype_name
from ..runtime.generator import get_rng_state, set_rng_state  # noqa: F401 - paddle.* names
from ..runtime.ops import equal, numel
from ..runtime.program import Variable
from ..runtime.tensor import TensorLike


class iinfo:
    """Limits of an int dtype: min, max, bits, dtype."""

    def __init__(self, dtype: Any) -> None:
        info = np.iinfo(dtype_name(dtype))
        self.min, self.max, self.bits, self.dtype = int(info.min), int(info.max), info.bits, \
            dtype_name(dtype)


class finfo:
    """Limits of a float dtype: min, max, eps, tiny / smallest_normal, resolution, bits, dtype."""

    def __init__(self, dtype: Any) -> None:
        info = np.finfo(dtype_name(dtype))
        self.min, self.max, self.eps = float(info.min), float(info.max), float(info.eps)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution, self.bits = float(info.resolution), info.bits
        self.dtype = dtype_name(dtype)


def set_printoptions(precision: Optional[int] = None, threshold: Optional[int] = None,
                     edgeitems: Optional[int] = None, sci_mode: Optional[bool] = None,
                     linewidth: Optional[int] = None) -> None:
    """How tensors print (numpy's print options, which dy2st's tensor repr uses)."""
    opts = {k: v for k, v in (("precision", precision), ("threshold", threshold),
                              ("edgeitems", edgeitems), ("linewidth", linewidth)) if v is not None}
    if sci_mode is not None:
        opts["suppress"] = not sci_mode
    np.set_printoptions(**opts)


class CPUPlace(Place):
    """The CPU, where dy2st computes."""

    def __init__(self) -> None:
        super().__init__("cpu", 0)


class CUDAPlace(Place):
    """A GPU: the class exists (for `isinstance(place, paddle.CUDAPlace)` checks), making one
    fails as in a CPU-only Paddle build, since dy2st computes on the CPU only."""

    def __init__(self, id: int = 0) -> None:
        raise ValueError(f"CUDAPlace({id}): dy2st runs on the CPU only (as a CPU-only Paddle "
                         "build); use paddle.CPUPlace()")


class CUDAPinnedPlace(Place):
    """Pinned host memory of a CUDA build: refused as in a CPU-only Paddle build."""

    def __init__(self) -> None:
        raise RuntimeError("Cannot use CUDAPinnedPlace: dy2st runs on the CPU only (as a "
                           "CPU-only Paddle build); use paddle.CPUPlace()")


def in_dynamic_mode() -> bool:
    """True in eager mode and in the default (full_graph=False) mode of to_static, as in
    Paddle; False while a static program is built or a full_graph=True function is traced."""
    return not state.in_static_mode() or state.build_state.dynamic_view > 0


def is_empty(x: Any, name: Optional[str] = None) -> Any:
    """Whether x has no elements (a bool tensor)."""
    return equal(numel(x), 0)


def is_floating_point(x: Any) -> bool:
    return bool(x.dtype.is_floating)


def is_integer(x: Any) -> bool:
    return bool(x.dtype.is_integer)


def is_same_shape(x: Any, y: Any) -> bool:
    return list(x.shape) == list(y.shape)


def tolist(x: Any) -> Any:
    """The tensor's values as nested Python lists."""
    return x.tolist()


def create_parameter(shape: Sequence[int], dtype: Any, name: Optional[str] = None,
                     attr: Any = None, is_bias: bool = False,
                     default_initializer: Any = None) -> Any:
    """A new trainable Parameter (initialised as Layer.create_parameter does)."""
    # lazy: keeps nn.layer out of `import dy2st` (loaded on first use)
    # lazy: keeps nn out of `import dy2st` (loaded on first use)
    from ..nn import ParamAttr
    from ..nn.layer import Layer  # lazy: as above
    if name is not None and attr is None:
        attr = ParamAttr(name=name)
    return Layer().create_parameter(shape, attr=attr, dtype=dtype, is_bias=is_bias,
                                    default_initializer=default_initializer)


def tensor_create_parameter(self: Any, dtype: Any = None, name: Optional[str] = None,
                            attr: Any = None, is_bias: bool = False,
                            default_initializer: Any = None) -> Any:
    """paddle.create_parameter with this (1-D int) tensor as the shape, as Paddle binds it."""
    if isinstance(self, Variable):
        raise TypeError("Tensor.create_parameter reads the shape from an eager tensor's values; "
                        "inside a static program give paddle.create_parameter a list")
    shape = [int(d) for d in np.asarray(self._value).reshape(-1)]
    return create_parameter(shape, dtype if dtype is not None else "float32", name=name,
                            attr=attr, is_bias=is_bias, default_initializer=default_initializer)


def install_methods() -> None:
    """Tensor.create_parameter (the runtime below cannot build a Layer's Parameter), and
    Tensor.stft / istft (paddle.signal sits above the runtime)."""
    if "create_parameter" not in vars(TensorLike):
        TensorLike.create_parameter = tensor_create_parameter
    for name, fn in (("stft", _tensor_stft), ("istft", _tensor_istft)):
        if name not in vars(TensorLike):
            setattr(TensorLike, name, fn)


def _tensor_stft(self: Any, *args: Any, **kwargs: Any) -> Any:
    """paddle.signal.stft(self, ...)."""
    # paddle.signal (and paddle.fft) load on first use, not with `import dy2st`
    from ..signal import stft
    return stft(self, *args, **kwargs)


def _tensor_istft(self: Any, *args: Any, **kwargs: Any) -> Any:
    """paddle.signal.istft(self, ...)."""
    # paddle.signal (and paddle.fft) load on first use, not with `import dy2st`
    from ..signal import istft
    return istft(self, *args, **kwargs)


def batch(reader: Callable[[], Iterator[Any]], batch_size: int, drop_last: bool = False
          ) -> Callable[[], Iterator[List[Any]]]:
    """A reader of lists of batch_size samples from `reader` (the paddle.batch decorator)."""
    if not isinstance(batch_size, int) or batch_size <= 0:
        raise ValueError(f"batch: batch_size must be a positive int, got {batch_size!r}")

    def batched() -> Iterator[List[Any]]:
        chunk: List[Any] = []
        for sample in reader():
            chunk.append(sample)
            if len(chunk) == batch_size:
                yield chunk
                chunk = []
        if chunk and not drop_last:
            yield chunk
    return batched
