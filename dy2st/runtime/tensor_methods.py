"""Installs Python operators and Paddle's tensor methods on TensorLike (eager and static alike)."""
from __future__ import annotations

from typing import Any

from . import array_methods, ops, tensor_methods_extra, tensor_methods_more
from .array_methods import join, rjoin
from .inplace import assign_in_place, stop_in_place
from .ops import indexing
from .persistable import write_persistable
from .program import Variable
from .python_value import python_list, python_value
from .registry import apply, no_grad_update
from .tensor import Tensor, TensorLike


def _reflect(fn):
    return lambda self, other: fn(other, self)


def _astype(self, dtype):
    return ops.cast(self, dtype)


def _getitem(self, index):
    if isinstance(self, Variable) and self.kind == "array":
        if isinstance(index, slice):
            return ops.array.array_slice(self, index)
        return ops.array_read(self, index)
    return indexing.getitem(self, index)


def _add(self, other):
    if isinstance(self, Variable) and self.kind == "array":
        return join(self, other)
    return ops.add(self, other)


def _radd(self, other):
    if isinstance(self, Variable) and self.kind == "array":
        return rjoin(self, other)
    return ops.add(other, self)


def _setitem(self, index, value):
    indexing.setitem_inplace(self, index, value)


def _append(self, x):
    if self.kind != "array":
        raise AttributeError("append() is only defined for tensor arrays")
    ops.array.array_append(self, x)


def _pop(self, index=-1):
    if self.kind != "array":
        raise AttributeError("pop() is only defined for tensor arrays")
    return ops.array.array_pop(self, index)


def _item(self, *index):
    """Static form of Tensor.item(): the one element as a Python number known when run."""
    if index:
        return python_value(self[index])
    return python_value(ops.reshape(self, []) if self.ndim else self)


def _tolist(self):
    """Static form of Tensor.tolist(): nested lists of Python numbers known when run (the shape
    must be known)."""
    return python_list(self)


def _numpy_static(self):
    # Converted code often writes `if x.mean().numpy() > 0`: inside a program the value only
    # exists when it runs, so numpy() stands for the tensor itself (as Paddle's to_static does),
    # cut from autograd as an ndarray is
    if self.kind == "dense" and self.dtype.is_floating:
        return apply("detach", [self])
    return self


def _matmul_method(self, y, transpose_x=False, transpose_y=False, name=None):
    return ops.matmul(self, y, transpose_x, transpose_y)


def _T(self):
    return ops.transpose(self, list(range(self.ndim))[::-1])


def _clone(self):
    return ops.assign(self)


def _detach(self):
    if isinstance(self, Variable):
        return apply("detach", [self])      # static gradients stop at the op, as eager ones do
    return Tensor(self._value, stop_gradient=True)


def _reshape(self, *shape, name=None):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)) or (len(shape) == 1 and hasattr(shape[0], "_shape")):
        shape = shape[0]
    return ops.reshape(self, shape)


def _transpose(self, *perm, name=None):
    if len(perm) == 1 and isinstance(perm[0], (list, tuple)):
        perm = perm[0]
    return ops.transpose(self, perm)


def inplace_method(fn):
    def method(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        if isinstance(self, Tensor) and isinstance(out, Tensor):
            self._value = out._value
            self._version = getattr(self, "_version", 0) + 1
            return self
        if isinstance(self, Tensor):
            # a parameter or buffer changed in place while a program is traced: the program
            # writes it back (under no_grad its gradient still reaches the parameter itself)
            write_persistable(self, no_grad_update(out, self))
            return self
        return assign_in_place(self, out)
    return method


OPERATORS = {
    "__add__": _add, "__radd__": _radd,
    "__sub__": ops.subtract, "__rsub__": _reflect(ops.subtract),
    "__mul__": ops.multiply, "__rmul__": _reflect(ops.multiply),
    "__truediv__": ops.divide, "__rtruediv__": _reflect(ops.divide),
    "__floordiv__": ops.floor_divide, "__rfloordiv__": _reflect(ops.floor_divide),
    "__mod__": ops.remainder, "__rmod__": _reflect(ops.remainder),
    "__pow__": ops.pow, "__rpow__": _reflect(ops.pow),
    "__matmul__": ops.matmul, "__rmatmul__": _reflect(ops.matmul),
    "__and__": ops.bitwise_and, "__rand__": _reflect(ops.bitwise_and),
    "__or__": ops.bitwise_or, "__ror__": _reflect(ops.bitwise_or),
    "__xor__": ops.bitwise_xor, "__rxor__": _reflect(ops.bitwise_xor),
    "__eq__": ops.equal, "__ne__": ops.not_equal,
    "__lt__": ops.less_than, "__le__": ops.less_equal,
    "__gt__": ops.greater_than, "__ge__": ops.greater_equal,
    "__neg__": ops.neg, "__pos__": lambda self: self, "__abs__": ops.abs,
    "__invert__": ops.bitwise_not,
    "__getitem__": _getitem, "__setitem__": _setitem,
}

METHOD_ALIASES = {
    "astype": _astype, "cast": _astype, "matmul": _matmul_method, "mm": ops.mm,
    "clone": _clone, "detach": _detach, "reshape": _reshape, "transpose": _transpose,
    "append": _append,
    "add_": inplace_method(ops.add), "subtract_": inplace_method(ops.subtract),
    "multiply_": inplace_method(ops.multiply), "scale_": inplace_method(ops.scale),
    "unsqueeze_": inplace_method(ops.unsqueeze), "squeeze_": inplace_method(ops.squeeze),
    "reshape_": inplace_method(_reshape), "clip_": inplace_method(ops.clip),
}


def _fill(x, value):
    # a where() rather than full_like(): an in-place fill of a tensor on the tape must cut its
    # gradient (zero), not leave the tensor attached to the op that made its old value
    return ops.where(ops.full_like(x, True, "bool"), ops.full_like(x, value), x)


def _zero(x):
    return _fill(x, 0)


def _replaced_by(values):
    # the in-place random fills: the new values, taken through a where() like _fill
    def method(x, *args, **kwargs):
        return ops.where(ops.full_like(x, True, "bool"), values(x, *args, **kwargs), x)
    return method


# Paddle's in-place `name_` forms of these ops: the out-of-place op, its result adopted by self
# (autograd/api.py records them on the tape like their out-of-place op).
_INPLACE_BASES = (
    "divide", "pow", "remainder", "mod", "floor_divide", "exp", "sqrt", "rsqrt", "reciprocal",
    "floor", "ceil", "round", "abs", "tanh", "sigmoid", "neg", "log", "log1p", "log2", "log10",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "erf", "sign", "square",
    "clamp", "flatten", "tril", "triu", "masked_fill", "masked_scatter", "index_add", "index_put",
    "put_along_axis", "scatter", "lerp", "cumsum", "cumprod", "maximum", "minimum",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "equal", "not_equal", "less_than", "less_equal",
    "greater_than", "greater_equal", "t", "hypot", "atan2", "where", "acosh", "asinh", "atanh",
    "expm1", "trunc", "frac", "logit", "sinc", "nan_to_num", "copysign", "ldexp", "mul", "sub",
    "div", "floor_mod", "cast", "index_fill", "renorm", "digamma", "lgamma", "erfinv", "i0",
    "gcd", "lcm", "polygamma", "multigammaln", "gammaln", "gammainc", "gammaincc",
    "bitwise_left_shift", "bitwise_right_shift", "baddbmm", "addmm", "log_normal_fill")
INPLACE = {f"{n}_": getattr(ops, n) for n in _INPLACE_BASES if hasattr(ops, n)}
INPLACE["transpose_"] = _transpose
INPLACE["fill_"] = _fill
INPLACE["zero_"] = _zero
INPLACE["uniform_"] = _replaced_by(ops.random_extra._uniform_fill)
INPLACE["normal_"] = _replaced_by(ops.random_extra._normal_fill)
INPLACE["exponential_"] = _replaced_by(ops.random_extra._exponential_fill)
INPLACE.update({f"{n}_": getattr(ops, n) for n in ("less", "bitwise_invert", "scatter_add")})
INPLACE["bernoulli_"] = _replaced_by(ops.random_fills._bernoulli_fill)
INPLACE["cauchy_"] = _replaced_by(ops.random_fills._cauchy_fill)
INPLACE["geometric_"] = _replaced_by(ops.random_fills._geometric_fill)
INPLACE["log_normal_"] = _replaced_by(ops.random_fills._log_normal_fill)
INPLACE["random_"] = _replaced_by(ops.random_fills._random_fill)
INPLACE["copy_"] = _replaced_by(lambda x, src, blocking=True: ops.cast(
    ops.expand(ops.operands.as_tensor(src), x.shape), x.dtype))
INPLACE["fill_diagonal_"] = tensor_methods_more.filled_diagonal
for _name, _fn in INPLACE.items():
    METHOD_ALIASES.setdefault(_name, inplace_method(_fn))

# No __iadd__ & co: `x += y` rebinds x (as for immutable values), which keeps the symbolic
# Variables used by converted control flow free of hidden in-place updates.

# Functions whose first argument is a tensor become methods of the same name.
NOT_METHODS = {"to_tensor", "full", "zeros", "ones", "empty", "arange", "eye", "create_array",
               "array_write", "is_tensor", "rank", "concat", "stack", "linspace", "meshgrid",
               "rand", "randn", "randint", "uniform", "normal", "shape"}
NOT_METHODS |= {"column_stack", "dstack", "hstack", "row_stack", "vstack", "standard_normal",
                "randperm", "tril_indices", "triu_indices", "log_normal"}
NOT_METHODS |= {"cat", "concatenate", "range", "logspace", "cartesian_prod", "binomial",
                "complex"}


def install(extra: Any = None) -> None:
    for name, fn in OPERATORS.items():
        setattr(TensorLike, name, fn)
    TensorLike.__hash__ = lambda self: id(self)
    TensorLike.T = property(_T)
    for name in dir(ops):
        fn = getattr(ops, name)
        if name.startswith("_") or name in NOT_METHODS or not callable(fn) or isinstance(fn, type):
            continue
        if getattr(fn, "__module__", "").startswith("dy2st.runtime.ops"):
            if not hasattr(TensorLike, name):
                setattr(TensorLike, name, fn)
    for name, fn in METHOD_ALIASES.items():
        setattr(TensorLike, name, fn)
    for name, fn in {"pop": _pop, "item": _item, "tolist": _tolist, "numpy": _numpy_static,
                     "detach_": stop_in_place}.items():
        setattr(Variable, name, fn)
    array_methods.install()
    # Tensor / Variable define their own __hash__/__bool__ etc. in class bodies; keep them.
    Tensor.__hash__ = Tensor.__dict__["__hash__"]
    Variable.__hash__ = Variable.__dict__["__hash__"]
    tensor_methods_extra.install()
