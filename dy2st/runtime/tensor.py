"""The eager Tensor: a numpy array with Paddle's surface (methods are installed by tensor_methods)."""
from __future__ import annotations

from typing import Any

import numpy as np

from .dtype import DType, dtype_name, dtype_of_array
from .size import Size


class TensorLike:
    """Common base of eager Tensors and static Variables; operators and methods live here."""

    __slots__ = ()
    # numpy defers to the tensor's reflected operator: `np_array + t` and `np.float64(2) * t`
    # give a tensor, as in Paddle, not a numpy array made through __array__
    __array_priority__ = 100


class Tensor(TensorLike):
    """An eager tensor holding a numpy array."""

    # _node/_out_index: the autograd node that computed this tensor (None for a leaf);
    # _grad, _version, _hooks are set only on tensors that take part in autograd
    # (dy2st.autograd), so that creating a tensor costs no more than before.
    __slots__ = ("_value", "stop_gradient", "name", "persistable", "trainable", "_node",
                 "_out_index", "_grad", "_version", "_hooks", "__weakref__")

    def __init__(self, value: np.ndarray, name: str = "", stop_gradient: bool = True,
                 persistable: bool = False) -> None:
        self._value = value
        self.stop_gradient = stop_gradient
        self.name = name
        self.persistable = persistable
        self.trainable = False
        self._node = None

    # -- attributes ---------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size.of(self._value.shape)

    @property
    def dtype(self) -> DType:
        return dtype_of_array(self._value)

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return int(self._value.size)

    @property
    def place(self) -> str:
        return "Place(cpu)"

    @property
    def is_static(self) -> bool:
        return False

    def numpy(self) -> np.ndarray:
        # a copy, as Paddle's: writing into it must not change the tensor (nor the values
        # autograd kept of it)
        return self._value.copy()

    def item(self, *index: int) -> Any:
        return self._value.item(*index)

    def tolist(self) -> Any:
        return self._value.tolist()

    def numel(self) -> "Tensor":
        # a 0-d int64 tensor, as Paddle's (and as a traced x.numel() is); `x.size` is the int
        return Tensor(np.array(self._value.size, dtype=np.int64))

    def dim(self) -> int:
        return self._value.ndim

    def set_value(self, value: Any) -> None:
        if isinstance(value, TensorLike) and not isinstance(value, Tensor):
            # a value the program computes (`self.mean.set_value(self.mean * m + ...)` in a
            # traced forward): the program writes it into this tensor, as a buffer update,
            # with no gradient through it (eagerly set_value records nothing)
            dims = tuple(value._shape)
            if len(dims) != self._value.ndim or any(
                    d >= 0 and d != n for d, n in zip(dims, self._value.shape)):
                raise ValueError(f"set_value: shape {list(dims)} does not match {self.shape}")
            self.copy_(value.detach())
            return
        arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
        if list(arr.shape) != list(self._value.shape):
            raise ValueError(f"set_value: shape {list(arr.shape)} does not match {self.shape}")
        self._value = arr.astype(self._value.dtype, copy=True)

    # -- Python protocol ------------------------------------------------------------------
    def __bool__(self) -> bool:
        return bool(self._value)

    def _scalar(self, what: str):
        if self._value.size != 1:
            raise TypeError(f"{what}() needs a tensor of one element, got shape {self.shape}")
        return self._value.item()      # numpy 2 refuses int() of a shape-[1] array

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __float__(self) -> float:
        return float(self._scalar("float"))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def __index__(self) -> int:
        if self._value.dtype.kind not in "iub" or self._value.size != 1:
            raise TypeError("only integer tensors of one element can be used as an index")
        return int(self._value.item())

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        if not self.stop_gradient:
            # rows of a tensor that needs a gradient are its slices on the tape (as Paddle's
            # x[i] are): one unbind op, so a loop over them is differentiable
            from .ops import unbind
            yield from unbind(self, 0)
            return
        for row in self._value:
            yield Tensor(np.asarray(row))

    def __array__(self, dtype=None, copy=None):
        return self._value if dtype is None else self._value.astype(dtype)

    def __repr__(self) -> str:
        body = np.array2string(self._value, separator=", ", prefix=" " * 7)
        return (f"Tensor(shape={list(self._value.shape)}, dtype={dtype_name(self.dtype)}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n       {body})")

    __str__ = __repr__

    def __hash__(self) -> int:
        return id(self)

    def __deepcopy__(self, memo):
        t = Tensor.__new__(type(self))
        Tensor.__init__(t, self._value.copy(), self.name, self.stop_gradient, self.persistable)
        t.trainable = self.trainable
        memo[id(self)] = t
        return t


class Parameter(Tensor):
    """A trainable, persistable tensor owned by a Layer."""

    __slots__ = ()

    def __init__(self, value: np.ndarray, name: str, trainable: bool = True) -> None:
        super().__init__(value, name=name, stop_gradient=not trainable, persistable=True)
        self.trainable = trainable

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def initialize(self) -> None:
        """Paddle's initialisation of a parameter made under LazyGuard: dy2st parameters are
        initialised when created (see nn/lazy_init.py), so there is nothing left to do."""
