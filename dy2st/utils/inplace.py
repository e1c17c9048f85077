"""paddle.<name>_(x, ...): the top-level spellings of the in-place tensor methods, and the tensor
methods Paddle has for predicates and linear algebra that live outside the op modules."""
from __future__ import annotations

from typing import Any, Callable, Dict

from .. import linalg
from ..runtime.tensor import TensorLike
from ..runtime.tensor_methods import INPLACE
from . import framework


def _calling(name: str) -> Callable[..., Any]:
    def fn(x: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("name", None)
        return getattr(x, name)(*args, **kwargs)
    fn.__name__ = name
    fn.__doc__ = f"x.{name}(...): changes x in place and returns it."
    return fn


def inplace_functions() -> Dict[str, Callable[..., Any]]:
    """One function per in-place tensor method."""
    names = set(INPLACE) | {"add_", "subtract_", "multiply_", "scale_", "clip_", "unsqueeze_",
                            "squeeze_", "reshape_"}
    return {n: _calling(n) for n in sorted(names) if hasattr(TensorLike, n)}


def install_methods() -> None:
    """Tensor methods for the predicates and linear-algebra functions (Paddle binds them)."""
    extra = {"is_empty": framework.is_empty, "is_floating_point": framework.is_floating_point,
             "is_integer": framework.is_integer, "inverse": linalg.inv}
    for name in ("cholesky_solve", "cond", "corrcoef", "cov", "lstsq", "matrix_power",
                 "multi_dot", "pinv", "solve", "triangular_solve", "eigvals", "eig"):
        if hasattr(linalg, name):
            extra[name] = getattr(linalg, name)
    for name, fn in extra.items():
        if not hasattr(TensorLike, name):
            setattr(TensorLike, name, fn)
