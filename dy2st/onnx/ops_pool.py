"""Max pooling: max_pool_nd becomes MaxPool on an input padded with -inf (Paddle's padding and
ceil_mode windows exactly), its mask MaxPool's Indices turned back into flat indices of the
unpadded spatial dims; adaptive max pooling is MaxPool where the windows are equal, ArgMax/ReduceMax
for one output per dim. max_pool_grad (which max_unpool uses) and mask_gather scatter and gather
by those flat indices."""
from __future__ import annotations

from typing import Dict, List, Sequence

from ..runtime.dtype import dtype_name
from .builder import OpContext
from .ops_conv import channel_perms
from .ops_reduce import reduce
from .table import lowers


def _spatial_dim(cx: OpContext, shape: str, axis: int) -> str:
    return cx.node("Gather", [shape, cx.ints([axis])], axis=0)


def _fixed_windows(cx: OpContext, specs: Sequence[Dict], sizes: Sequence[int]) -> List[Dict]:
    """Adaptive specs as fixed pooling windows (equal windows: sizes multiples of the outputs)."""
    fixed = []
    for spec, size in zip(specs, sizes):
        if spec["kind"] == "pool":
            fixed.append(spec)
            continue
        if size < 0 or size % spec["out"]:
            raise cx.fail(f"adaptive max pooling to output size {[s['out'] for s in specs]} of "
                          f"spatial dims {list(sizes)} has unequal windows (or dims known only "
                          "when the program runs), which MaxPool cannot express")
        k = size // spec["out"]
        fixed.append({"kind": "pool", "k": k, "s": k, "lo": 0, "hi": 0, "ceil": False})
    return fixed


def _global_max(cx: OpContext, x: str, nd: int) -> List[str]:
    """Adaptive max pooling to one value per channel: the max and its flat spatial index."""
    flat = cx.node("Flatten", [x], axis=2)                   # [N * C, area]
    keep = cx.node("Concat", [cx.node("Slice", [cx.node("Shape", [x]), cx.ints([0]),
                                                cx.ints([2])]), cx.ints([1] * nd)], axis=0)
    out = cx.node("Reshape", [reduce(cx, "ReduceMax", flat, [1], True), keep])
    mask = cx.node("Reshape", [cx.node("ArgMax", [flat], axis=1, keepdims=1), keep])
    return [out, mask]


def _unpadded_mask(cx: OpContext, indices: str, x: str, xp: str, los: Sequence[int]) -> str:
    """MaxPool's Indices (flat over the whole padded tensor) as flat indices of x's spatial dims."""
    nd = len(los)
    shape, pshape = cx.node("Shape", [x]), cx.node("Shape", [xp])
    area = reduce(cx, "ReduceProd", cx.node("Slice", [pshape, cx.ints([2]), cx.ints([2 + nd])]),
                  [0], True)
    rest = cx.node("Mod", [indices, area])
    if xp == x:
        return rest
    coords = []
    for d in reversed(range(nd)):
        size = _spatial_dim(cx, pshape, 2 + d)
        coords.append(cx.node("Sub", [cx.node("Mod", [rest, size]), cx.ints([los[d]])]))
        rest = cx.node("Div", [rest, size])
    flat = None
    for d, coord in zip(range(nd), reversed(coords)):
        flat = coord if flat is None else cx.node(
            "Add", [cx.node("Mul", [flat, _spatial_dim(cx, shape, 2 + d)]), coord])
    return flat


@lowers("max_pool_nd")
def max_pool(cx: OpContext) -> List[str]:
    dtype = cx.dtype(0)
    if dtype not in ("float16", "float32", "float64"):
        raise cx.fail(f"max pooling of {dtype_name(dtype)} tensors cannot be exported (ONNX's MaxPool takes "
                      "floating-point tensors)")
    rank = len(cx.in_var(0)._shape)
    nd = rank - 2
    to_first, to_last = channel_perms(rank)
    x = cx.input(0)
    if cx.attrs["channel_last"]:
        x = cx.node("Transpose", [x], perm=to_first)
    specs = cx.attrs["specs"]
    sizes = [cx.in_var(0)._shape[a] for a in (to_first[2:] if cx.attrs["channel_last"]
                                               else range(2, rank))]
    if all(s["kind"] == "adaptive" and s["out"] == 1 for s in specs):
        outs = _global_max(cx, x, nd)
    else:
        specs = _fixed_windows(cx, specs, sizes)
        los = [int(s["lo"]) for s in specs]
        # ceil_mode's partial last window = s - 1 more padding under floor rounding
        his = [int(s["hi"]) + (int(s["s"]) - 1 if s["ceil"] else 0) for s in specs]
        xp = x
        if any(los) or any(his):
            xp = cx.node("Pad", [x, cx.ints([0, 0] + los + [0, 0] + his),
                                 cx.const(float("-inf"), dtype)])
        out, indices = cx.node("MaxPool", [xp], n_out=2, kernel_shape=[int(s["k"]) for s in specs],
                               strides=[int(s["s"]) for s in specs])
        outs = [out, _unpadded_mask(cx, indices, x, xp, los)]
    if cx.attrs["channel_last"]:
        outs = [cx.node("Transpose", [o], perm=to_last) for o in outs]
    return outs


def _flat_spatial(cx: OpContext, name: str, channel_last: bool, rank: int) -> str:
    """[N, C, *S] (channel-first) as [N, C, prod(S)]."""
    if channel_last:
        name = cx.node("Transpose", [name], perm=channel_perms(rank)[0])
    return cx.node("Reshape", [name, cx.ints([0, 0, -1])])


@lowers("mask_gather")
def mask_gather(cx: OpContext) -> List[str]:
    rank = len(cx.in_var(1)._shape)
    cl = cx.attrs["channel_last"]
    mask = cx.input_as(1, "int64")
    picked = cx.node("GatherElements", [_flat_spatial(cx, cx.input(0), cl, rank),
                                        _flat_spatial(cx, mask, cl, rank)], axis=2)
    first = cx.node("Transpose", [mask], perm=channel_perms(rank)[0]) if cl else mask
    out = cx.node("Reshape", [picked, cx.node("Shape", [first])])
    return [cx.node("Transpose", [out], perm=channel_perms(rank)[1]) if cl else out]


@lowers("max_pool_grad", min_opset=16)
def max_pool_grad(cx: OpContext) -> List[str]:
    # g added at the flat spatial positions of mask, in a zero tensor shaped like x (max_unpool)
    rank = len(cx.in_var(2)._shape)
    cl = cx.attrs["channel_last"]
    like = cx.node("Transpose", [cx.input(2)], perm=channel_perms(rank)[0]) if cl else cx.input(2)
    zeros = cx.node("Expand", [cx.const(0, cx.out_dtype), cx.node("Shape", [like])])
    zeros = _flat_spatial(cx, zeros, False, rank)
    out = cx.node("ScatterElements", [zeros, _flat_spatial(cx, cx.input_as(1, "int64"), cl, rank),
                                      _flat_spatial(cx, cx.input_as(0, cx.out_dtype), cl, rank)],
                  axis=2, reduction="add")
    out = cx.node("Reshape", [out, cx.node("Shape", [like])])
    return [cx.node("Transpose", [out], perm=channel_perms(rank)[1]) if cl else out]
