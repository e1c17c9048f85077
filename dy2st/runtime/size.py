"""paddle.Size: the list of a tensor's dimensions that `Tensor.shape` returns (a list subclass
that prints as `paddle.Size([2, 3])`, equals lists and tuples, and keeps its type when sliced,
added or repeated), as in Paddle 3.3.1."""
from __future__ import annotations

import operator
from typing import Any, Iterable


class Size(list):
    """The size of every dimension of a tensor: `paddle.Size([2, 3, 4])`."""

    __slots__ = ()

    def __init__(self, dims: Iterable[Any] = ()) -> None:
        values = []
        for i, d in enumerate(dims):
            if isinstance(d, bool):
                values.append(d)        # Paddle keeps a bool as it is
                continue
            try:
                values.append(operator.index(d))
            except TypeError:
                raise TypeError(f"paddle.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(d).__name__}')") from None
        super().__init__(values)

    @classmethod
    def of(cls, dims: Iterable[int]) -> "Size":
        """A Size of dims already known to be ints (a numpy shape): no checks, for Tensor.shape."""
        s = list.__new__(cls)
        list.extend(s, dims)
        return s

    def numel(self) -> int:
        """The number of elements of a tensor of this size (1 for `paddle.Size([])`)."""
        n = 1
        for d in self:
            n *= d
        return n

    def __repr__(self) -> str:
        return f"paddle.Size({list.__repr__(self)})"

    __str__ = __repr__

    def __getitem__(self, index: Any) -> Any:
        out = list.__getitem__(self, index)
        return Size.of(out) if isinstance(index, slice) else out

    def __add__(self, other: Any) -> "Size":
        if not isinstance(other, (list, tuple)):
            return NotImplemented
        return Size.of(list.__add__(self, list(other)))

    def __radd__(self, other: Any) -> "Size":
        if not isinstance(other, (list, tuple)):
            return NotImplemented
        return Size.of(list(other) + list(self))

    def __mul__(self, n: Any) -> "Size":
        return Size.of(list.__mul__(self, n))

    __rmul__ = __mul__

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, tuple):
            return list.__eq__(self, list(other))
        return list.__eq__(self, other)

    def __ne__(self, other: Any) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None      # a list: mutable, unhashable (as Paddle's)
