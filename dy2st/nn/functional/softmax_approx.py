"""Losses that approximate a large softmax, composed from differentiable ops (their gradients
come from the ops' rules): hierarchical sigmoid over a binary tree (hsigmoid_loss) and the
adaptive log-softmax of Grave et al. (adaptive_log_softmax_with_loss)."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np

from ...runtime import ops
from ...runtime.dtype import dtype_name
from ...runtime.ops.operands import as_tensor, cast
from ...runtime.registry import classified_as
from .activation import log_softmax
from .common import linear
from .dims import known_dims

__all__ = ["hsigmoid_loss", "adaptive_log_softmax_with_loss"]


def _default_tree_paths(label: Any, num_classes: int) -> Tuple[Any, Any, Any]:
    """Paddle's default tree: class c is leaf c + num_classes of a heap-ordered complete binary
    tree; step j of its path is node ((c + num_classes) >> (j + 1)) - 1 with code bit j. Paths
    are padded to the longest possible length, bit_length(num_classes - 1)."""
    length = int(num_classes - 1).bit_length()
    code = ops.unsqueeze(label + num_classes, 1)                                 # [N, 1]
    above = as_tensor(np.array([2 ** (j + 1) for j in range(length)], np.int64))
    here = as_tensor(np.array([2 ** j for j in range(length)], np.int64))
    parent = ops.floor_divide(code, above)                                        # [N, L]
    valid = parent > 0
    bits = ops.floor_divide(code, here) % 2
    return parent - 1, bits, valid


@classified_as("hsigmoid_loss")
def hsigmoid_loss(input: Any, label: Any, num_classes: int, weight: Any, bias: Any = None,
                  path_table: Any = None, path_code: Any = None, is_sparse: bool = False,
                  name: Optional[str] = None) -> Any:
    """Hierarchical sigmoid loss [N, 1]: along each sample's path from the root, a sigmoid
    classifier per non-leaf node (row of weight [num_nodes, D], bias [num_nodes, 1]) predicts the
    path's code bit. The default tree is Paddle's complete binary tree over num_classes leaves;
    a custom tree gives path_table (node rows, padded with negative values) and path_code.
    As Paddle's kernel does, each padded step of a path adds log(2) (its pre-activation is 0),
    and pre-activations are clipped to [-40, 40]. is_sparse only changes how Paddle stores the
    gradient; dense gradients are computed either way."""
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid_loss: path_table and path_code must be given together (a "
                         "custom tree) or both be None (the default tree)")
    if path_table is None and int(num_classes) < 2:
        raise ValueError(f"hsigmoid_loss: expected num_classes >= 2, got {num_classes}")
    x, w = as_tensor(input), as_tensor(weight)
    if not x.dtype.is_floating or len(known_dims(x)) != 2:
        raise ValueError(f"hsigmoid_loss: input must be a 2-D float tensor [N, D], got "
                         f"{dtype_name(x.dtype)}{known_dims(x)}")
    if len(known_dims(w)) != 2:
        raise ValueError(f"hsigmoid_loss: weight must be 2-D [num_nodes, D], got shape "
                         f"{known_dims(w)}")
    d_in, d_w = known_dims(x)[1], known_dims(w)[1]
    if d_in >= 0 and d_w >= 0 and d_in != d_w:
        raise ValueError(f"hsigmoid_loss: input has {d_in} features but weight rows have {d_w}")
    lab = ops.reshape(cast(as_tensor(label), "int64"), [-1])
    if path_table is None:
        node, bits, valid = _default_tree_paths(lab, int(num_classes))
    else:
        table = cast(as_tensor(path_table), "int64")
        bits = cast(as_tensor(path_code), "int64")
        if len(known_dims(table)) != 2 or known_dims(table) != known_dims(bits):
            raise ValueError(f"hsigmoid_loss: path_table and path_code must both be [N, L], got "
                             f"{known_dims(table)} and {known_dims(bits)}")
        # a path ends at its first negative entry
        valid = ops.cumsum(cast(table < 0, "int64"), axis=1) == 0
        node = table
    node = ops.where(valid, node, ops.zeros_like(node))
    n_steps = known_dims(node)[1]
    rows = ops.reshape(ops.gather(w, ops.reshape(node, [-1])), [-1, n_steps, known_dims(w)[1]])
    pre = ops.sum(rows * ops.unsqueeze(x, 1), axis=2)                             # [N, L]
    if bias is not None:
        pre = pre + ops.reshape(ops.gather(ops.reshape(as_tensor(bias), [-1]),
                                           ops.reshape(node, [-1])), [-1, n_steps])
    pre = ops.clip(pre, -40.0, 40.0)
    pre = ops.where(valid, pre, ops.zeros_like(pre))
    target = cast(ops.logical_and(valid, bits != 0), x.dtype)
    per_step = ops.log1p(ops.exp(pre)) - target * pre
    return ops.sum(per_step, axis=1, keepdim=True)


def _cluster_log_probs(x: Any, tail: Sequence[Any]) -> Any:
    projection, out = tail
    return log_softmax(linear(linear(x, projection), out), axis=1)


def adaptive_log_softmax_with_loss(input: Any, label: Any, head_weight: Any, tail_weights: Any,
                                   cutoffs: Sequence[int], head_bias: Any = None,
                                   name: Optional[str] = None) -> Tuple[Any, Any]:
    """(output, loss) of the adaptive log-softmax: output[i] is the log-probability of label[i]
    (head log-probability for the first cutoffs[0] classes; the cluster's head entry plus the
    log-probability inside the cluster otherwise) and loss is mean(-output). cutoffs ends with
    the number of classes; tail_weights[i] = [projection [D, h_i], output [h_i, size_i]]; weights
    use Paddle's [in, out] layout. Every cluster is evaluated for every row (selected with masks),
    which gives the same values and gradients as evaluating only the rows that use it."""
    x, lab = as_tensor(input), cast(as_tensor(label), "int64")
    if len(known_dims(x)) not in (1, 2) or not x.dtype.is_floating:
        raise ValueError(f"adaptive_log_softmax_with_loss: input must be a 1-D or 2-D float "
                         f"tensor, got {dtype_name(x.dtype)}{known_dims(x)}")
    batched = len(known_dims(x)) == 2
    if len(known_dims(lab)) != (1 if batched else 0):
        raise ValueError(f"adaptive_log_softmax_with_loss: label must be {'1-D' if batched else '0-D'}"
                         f" for a {'2-D' if batched else '1-D'} input, got shape {known_dims(lab)}")
    if not batched:
        x, lab = ops.unsqueeze(x, 0), ops.unsqueeze(lab, 0)
    n_rows, n_labels = known_dims(x)[0], known_dims(lab)[0]
    if n_rows >= 0 and n_labels >= 0 and n_rows != n_labels:
        raise ValueError(f"adaptive_log_softmax_with_loss: input and label must have the same "
                         f"batch size, got {n_rows} and {n_labels}")
    cutoffs = [int(c) for c in cutoffs]
    if not cutoffs or any(b <= a for a, b in zip([0] + cutoffs, cutoffs)):
        raise ValueError(f"adaptive_log_softmax_with_loss: cutoffs must be positive and strictly "
                         f"increasing, got {cutoffs}")
    n_clusters = len(cutoffs) - 1
    if len(tail_weights) != n_clusters:
        raise ValueError(f"adaptive_log_softmax_with_loss: tail_weights must hold {n_clusters} "
                         f"[projection, output] pairs for cutoffs {cutoffs}, got "
                         f"{len(tail_weights)}")
    values = getattr(lab, "_value", None)
    if values is not None and values.size and (values.min() < 0 or values.max() >= cutoffs[-1]):
        raise ValueError(f"adaptive_log_softmax_with_loss: label values should be in [0, "
                         f"{cutoffs[-1] - 1}], but values in range [{values.min()}, "
                         f"{values.max()}] were found")
    shortlist = cutoffs[0]
    output = ops.zeros_like(cast(lab, x.dtype))
    head_index = lab
    for i in range(1, n_clusters + 1):
        lo, hi = cutoffs[i - 1], cutoffs[i]
        inside = ops.logical_and(lab >= lo, lab < hi)
        relative = ops.where(inside, lab - lo, ops.zeros_like(lab))
        local = ops.take_along_axis(_cluster_log_probs(x, tail_weights[i - 1]),
                                    ops.unsqueeze(relative, 1), axis=1)[:, 0]
        output = ops.where(inside, local, output)
        head_index = ops.where(inside, ops.full_like(lab, shortlist + i - 1), head_index)
    head = log_softmax(linear(x, head_weight, head_bias), axis=1)
    output = output + ops.take_along_axis(head, ops.unsqueeze(head_index, 1), axis=1)[:, 0]
    loss = ops.mean(ops.neg(output))
    return (output if batched else output[0]), loss


def adaptive_full_log_prob(x: Any, head_weight: Any, tail_weights: Any, cutoffs: Sequence[int],
                           head_bias: Any = None) -> Any:
    """The log-probabilities of all classes [N, cutoffs[-1]] (the Layer's log_prob)."""
    head = log_softmax(linear(x, head_weight, head_bias), axis=1)
    shortlist = int(cutoffs[0])
    parts = [head[:, :shortlist]]
    for i, tail in enumerate(tail_weights):
        parts.append(_cluster_log_probs(x, tail) + head[:, shortlist + i:shortlist + i + 1])
    return ops.concat(parts, axis=1)
