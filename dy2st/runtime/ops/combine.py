"""Joining and re-laying-out tensors, composed from existing ops: add_n, atleast_Nd, h/v/dstack,
broadcast_tensors, moveaxis, permute, ravel, narrow, kron."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

from . import infer as I
from .dims import dims
from .operands import as_tensor
from .shape import concat, expand, flatten, reshape, transpose, unsqueeze
from .slicing import strided_slice


def add_n(inputs: Any, name: Optional[str] = None) -> Any:
    """The elementwise sum of a tensor or a list of tensors of one shape."""
    if not isinstance(inputs, (list, tuple)):
        return inputs
    if not inputs:
        raise ValueError("add_n: inputs is empty")
    out = inputs[0]
    for t in inputs[1:]:
        out = out + t
    return out


def _atleast(rank: int, where: Sequence[int], xs: Sequence[Any]) -> Any:
    outs = []
    for x in xs:
        x = as_tensor(x)
        n = len(dims(x))
        if n < rank:
            # numpy / Paddle: 0-D -> [1], 1-D [N] -> [1, N] (2-D) or [1, N, 1] (3-D), 2-D -> [M, N, 1]
            axes = list(where[n])
            x = reshape(x, [1]) if n == 0 and rank >= 1 and not axes else x
            for ax in axes:
                x = unsqueeze(x, ax)
        outs.append(x)
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*inputs: Any, name: Optional[str] = None) -> Any:
    """Each input with at least one dim (a 0-D tensor becomes shape [1])."""
    return _atleast(1, {0: [0]}, inputs)


def atleast_2d(*inputs: Any, name: Optional[str] = None) -> Any:
    """Each input with at least two dims ([N] becomes [1, N])."""
    return _atleast(2, {0: [0, 0], 1: [0]}, inputs)


def atleast_3d(*inputs: Any, name: Optional[str] = None) -> Any:
    """Each input with at least three dims ([N] becomes [1, N, 1], [M, N] becomes [M, N, 1])."""
    return _atleast(3, {0: [0, 0, 0], 1: [0, 2], 2: [2]}, inputs)


def hstack(x: Sequence[Any], name: Optional[str] = None) -> Any:
    """Concatenate along dim 1 (dim 0 for 1-D inputs)."""
    xs = [atleast_1d(t) for t in x]
    return concat(xs, axis=0 if len(dims(xs[0])) == 1 else 1)


def vstack(x: Sequence[Any], name: Optional[str] = None) -> Any:
    """Concatenate along dim 0 after making every input at least 2-D."""
    return concat([atleast_2d(t) for t in x], axis=0)


def dstack(x: Sequence[Any], name: Optional[str] = None) -> Any:
    """Concatenate along dim 2 after making every input at least 3-D."""
    return concat([atleast_3d(t) for t in x], axis=2)


def row_stack(x: Sequence[Any], name: Optional[str] = None) -> Any:
    return vstack(x)


def column_stack(x: Sequence[Any], name: Optional[str] = None) -> Any:
    """1-D inputs become columns, then concatenate along dim 1."""
    xs = []
    for t in x:
        t = as_tensor(t)
        xs.append(unsqueeze(t, 1) if len(dims(t)) <= 1 else t)
    return concat(xs, axis=1)


def broadcast_shape(x_shape: Sequence[int], y_shape: Sequence[int]) -> List[int]:
    """The shape two shapes broadcast to (Python lists, as Paddle's broadcast_shape)."""
    return list(I.broadcast_shapes("broadcast_shape", list(x_shape), list(y_shape)))


def broadcast_tensors(input: Sequence[Any], name: Optional[str] = None) -> List[Any]:
    """Every tensor expanded to the shape they broadcast to together."""
    xs = [as_tensor(t) for t in input]
    shape: tuple = ()
    for t in xs:
        shape = I.broadcast_shapes("broadcast_tensors", shape, dims(t))
    target: List[Any] = list(shape)
    for k, d in enumerate(shape):
        if d < 0:
            # an unknown dim: take it at run time from an input that has it unknown there
            for t in xs:
                td = dims(t)
                j = k - (len(shape) - len(td))
                if j >= 0 and td[j] < 0:
                    target[k] = t.shape[j]
                    break
    return [t if dims(t) == shape else expand(t, target) for t in xs]


def moveaxis(x: Any, source: Any, destination: Any, name: Optional[str] = None) -> Any:
    """x with the dims `source` moved to the positions `destination` (the others keep order)."""
    n = len(dims(x))
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {src} and destination {dst} differ in length")
    src = list(I.norm_axes(src, n) or ())
    dst = list(I.norm_axes(dst, n) or ())
    rest = [a for a in range(n) if a not in src]
    perm: List[int] = [-1] * n
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = [p if p >= 0 else next(it) for p in perm]
    return transpose(x, perm)


def permute(x: Any, *perm: Any, name: Optional[str] = None) -> Any:
    """transpose with the permutation given as a list or as separate ints."""
    if len(perm) == 1 and isinstance(perm[0], (list, tuple)):
        perm = tuple(perm[0])
    return transpose(x, list(perm))


def ravel(input: Any, name: Optional[str] = None) -> Any:
    """The tensor flattened to 1-D."""
    return flatten(input)


def narrow(input: Any, dim: int, start: Any, length: Any, name: Optional[str] = None) -> Any:
    """`length` entries of `dim` from `start` (a negative start counts from the end)."""
    n = len(dims(input))
    (dim,) = I.norm_axes(dim, n)
    size = dims(input)[dim]
    if isinstance(start, int) and start < 0:
        if size < 0:
            raise ValueError("narrow: a negative start needs a known dim size")
        start += size
    return strided_slice(input, [dim], [start], [start + length], [1])


def kron(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """The Kronecker product: block (i, j) is x[i, j] * y (any ranks; the lower one is padded)."""
    x, y = as_tensor(x), as_tensor(y)
    n = max(len(dims(x)), len(dims(y)))
    while len(dims(x)) < n:
        x = unsqueeze(x, 0)
    while len(dims(y)) < n:
        y = unsqueeze(y, 0)
    # x as [a0, 1, a1, 1, ...] times y as [1, b0, 1, b1, ...], then merge each pair of dims
    xs = reshape(x, [d for a in dims(x) for d in (a, 1)]) if all(d >= 0 for d in dims(x)) else \
        _interleave(x, 1)
    ys = reshape(y, [d for b in dims(y) for d in (1, b)]) if all(d >= 0 for d in dims(y)) else \
        _interleave(y, 0)
    prod = xs * ys
    xd, yd = x.shape, y.shape
    return reshape(prod, [xd[k] * yd[k] for k in range(n)])


def _interleave(t: Any, pos: int) -> Any:
    for k in range(len(dims(t))):
        t = unsqueeze(t, 2 * k + pos)
    return t
