"""The gradient case table: each case is data (a function of tensors, the specs of its inputs,
which inputs are differentiated) so that one checker per mode can run every case — eagerly
against finite differences (tests/autograd/test_vjp_rules.py), and through static
`append_backward` against eager gradients."""
from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from dy2st.nn.functional.norm import normalize_batch
from dy2st.runtime.registry import apply


class Float(NamedTuple):
    """A float64 input drawn uniformly from [low, high] (or given as `data`); differentiated
    unless diff=False."""
    shape: Tuple[int, ...]
    low: float = -1.0
    high: float = 1.0
    diff: bool = True
    data: Any = None

    def make(self, rng: np.random.Generator) -> np.ndarray:
        if self.data is not None:
            return np.asarray(self.data, dtype=np.float64)
        return rng.uniform(self.low, self.high, self.shape)


class Const(NamedTuple):
    """An input that is never differentiated (indices, masks, labels): a fixed array."""
    data: Any
    dtype: str = "int64"

    def make(self, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(self.data, dtype=self.dtype)


class Case(NamedTuple):
    name: str
    fn: Callable[..., Any]       # tensors in, a tensor or a tuple/list of tensors out
    inputs: Sequence[Any]        # Float / Const specs, one per argument of fn
    eps: float = 1e-6            # finite-difference step
    rtol: float = 1e-5
    atol: float = 1e-6

    @property
    def diff(self) -> List[int]:
        """Indices of the inputs the gradient is checked for."""
        return [i for i, s in enumerate(self.inputs) if isinstance(s, Float) and s.diff]

    def arrays(self, seed: int = 0) -> List[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [spec.make(rng) for spec in self.inputs]


# ----------------------------------------------------------------------------- running a case
def float_outputs(out: Any) -> List[Any]:
    """The float tensors among a case's outputs (the ones a gradient flows from)."""
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    return [o for o in outs if o.dtype.is_floating]


def eager_tensors(case: Case, arrays: List[np.ndarray]) -> List[Any]:
    diff = set(case.diff)
    return [paddle.to_tensor(a, stop_gradient=i not in diff) for i, a in enumerate(arrays)]


def cotangents(case: Case, arrays: List[np.ndarray], seed: int = 1) -> List[np.ndarray]:
    """One random cotangent per float output, in the output's dtype."""
    paddle.seed(0)
    outs = float_outputs(case.fn(*eager_tensors(case, arrays)))
    assert outs, f"{case.name}: no float output"
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(o.shape).astype(o.numpy().dtype) for o in outs]


def eager_grads(case: Case, arrays: List[np.ndarray], cots: List[np.ndarray]
                ) -> List[Optional[np.ndarray]]:
    """The tape's gradients of sum(out * cot) for the differentiated inputs (random ops draw
    after paddle.seed(0))."""
    ts = eager_tensors(case, arrays)
    paddle.seed(0)
    outs = float_outputs(case.fn(*ts))
    loss = outs[0].sum() * 0.0
    for o, c in zip(outs, cots):
        loss = loss + (o * paddle.to_tensor(c)).sum()
    found = paddle.grad([loss], [ts[i] for i in case.diff], allow_unused=True)
    return [None if g is None else g.numpy() for g in found]


def loss_value(case: Case, arrays: List[np.ndarray], cots: List[np.ndarray]) -> float:
    """sum(out * cot) evaluated eagerly (for finite differences)."""
    paddle.seed(0)
    outs = float_outputs(case.fn(*eager_tensors(case, arrays)))
    return float(sum(np.sum(o.numpy() * c) for o, c in zip(outs, cots)))


# ----------------------------------------------------------------------------- the table
def f(*shape: int, **kw: Any) -> Float:
    return Float(tuple(shape), **kw)


def pos(*shape: int) -> Float:
    """Positive values away from 0 (log, sqrt, division)."""
    return Float(tuple(shape), 0.5, 2.0)


def const(data: Any, dtype: str = "int64") -> Const:
    return Const(data, dtype)


def second_order(fn: Callable[..., Any], n_diff: int) -> Callable[..., Any]:
    """fn's input gradient (of the sum of cubed outputs) as a differentiable function: checking
    it checks the rules of the gradient ops (create_graph=True)."""
    def grads(*xs: Any) -> Any:
        out = fn(*xs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        total = (outs[0] * outs[0] * outs[0]).sum()
        for o in outs[1:]:
            total = total + (o * o * o).sum()
        return tuple(paddle.grad([total], list(xs[:n_diff]), create_graph=True))
    return grads


def _bool(data: Any) -> Const:
    return Const(data, "bool")


def _setitem(x: Any, v: Any) -> Any:
    """x[1:, 0] = v on a copy of x: the in-place write is recorded on the tape."""
    y = x * 1.0
    y[1:, 0] = v
    return y


# A matrix that is far from singular, for inv.
_WELL = np.array([[3.0, 0.4, -0.2], [0.1, 2.5, 0.3], [-0.3, 0.2, 2.0]])

CASES: List[Case] = [
    # ------------------------------------------------------------------ elementwise, broadcasting
    Case("add_broadcast", lambda x, y: x + y, [f(2, 3), f(3)]),
    Case("add_both_broadcast", lambda x, y: x + y, [f(2, 1, 3), f(4, 1)]),
    Case("subtract", lambda x, y: x - y, [f(2, 3), f(1, 3)]),
    Case("multiply", lambda x, y: x * y, [f(2, 3), f(2, 1)]),
    Case("divide", lambda x, y: x / y, [f(2, 3), pos(3)]),
    Case("pow_tensor", lambda x, y: x ** y, [pos(2, 3), f(3)]),
    Case("pow_scalar", lambda x: x ** 3, [f(4)]),
    # a 0-d integer tensor next to a float one: Paddle promotes the pair (it refuses int64 [3])
    Case("multiply_int_operand", lambda x, k: x * k, [f(2, 3), const(-2)]),
    Case("pow_int_exponent", lambda x, k: x ** k, [pos(3), const(3)]),
    Case("maximum", paddle.maximum, [f(2, 3), f(3)]),
    Case("minimum", paddle.minimum, [f(2, 3), f(2, 1)]),
    Case("remainder", lambda x, y: x % y, [f(2, 3, low=-3, high=3), pos(3)]),
    Case("neg", lambda x: -x, [f(2, 3)]),
    Case("exp", paddle.exp, [f(2, 3)]),
    Case("log", paddle.log, [pos(2, 3)]),
    Case("log2", paddle.log2, [pos(3)]),
    Case("log10", paddle.log10, [pos(3)]),
    Case("log1p", paddle.log1p, [pos(3)]),
    Case("sqrt", paddle.sqrt, [pos(3)]),
    Case("rsqrt", paddle.rsqrt, [pos(3)]),
    Case("square", paddle.square, [f(3)]),
    Case("reciprocal", paddle.reciprocal, [pos(3)]),
    Case("abs", paddle.abs, [f(5)]),
    Case("sin", paddle.sin, [f(3)]),
    Case("cos", paddle.cos, [f(3)]),
    Case("tan", paddle.tan, [f(3)]),
    Case("tanh", paddle.tanh, [f(3)]),
    Case("sinh", paddle.sinh, [f(3)]),
    Case("cosh", paddle.cosh, [f(3)]),
    Case("asin", paddle.asin, [f(3, low=-0.9, high=0.9)]),
    Case("acos", paddle.acos, [f(3, low=-0.9, high=0.9)]),
    Case("atan", paddle.atan, [f(3)]),
    Case("sigmoid", paddle.nn.functional.sigmoid, [f(3)]),
    Case("erf", paddle.erf, [f(3)]),
    Case("floor_ceil_round_sign",
         lambda x: paddle.floor(x) + paddle.ceil(x) + paddle.round(x) + paddle.sign(x) + x,
         [f(4, low=-2.4, high=2.4)]),
    Case("scale", lambda x: paddle.scale(x, 2.5, bias=1.0), [f(3)]),
    Case("clip", lambda x: paddle.clip(x, -0.5, 0.5), [f(6)]),
    Case("cast_float32", lambda x: paddle.cast(x, "float32") * 2.0, [f(3)], eps=1e-2,
         rtol=1e-4, atol=1e-4),
    # ------------------------------------------------------------------ reductions
    Case("sum_all", lambda x: paddle.sum(x), [f(2, 3)]),
    Case("sum_axis_keepdim", lambda x: paddle.sum(x, axis=1, keepdim=True), [f(2, 3, 4)]),
    Case("sum_axes", lambda x: paddle.sum(x, axis=[0, 2]), [f(2, 3, 4)]),
    Case("mean_axis", lambda x: paddle.mean(x, axis=-1), [f(2, 3)]),
    Case("mean_all_keepdim", lambda x: paddle.mean(x, keepdim=True), [f(2, 3)]),
    Case("max_axis", lambda x: paddle.max(x, axis=1), [f(3, 4)]),
    Case("min_all", lambda x: paddle.min(x), [f(3, 4)]),
    Case("prod_axis", lambda x: paddle.prod(x, axis=0), [f(3, 2)]),
    Case("reduce_as", lambda x, t: paddle.reduce_as(x, t), [f(2, 3, 4), f(3, 1, diff=False)]),
    Case("logsumexp", lambda x: paddle.logsumexp(x, axis=1, keepdim=True), [f(2, 3)]),
    Case("logsumexp_all", lambda x: paddle.logsumexp(x), [f(2, 3)]),
    Case("std_axis", lambda x: paddle.std(x, axis=0), [f(4, 3)]),
    Case("var_biased_all", lambda x: paddle.var(x, unbiased=False), [f(2, 3)]),
    Case("var_keepdim", lambda x: paddle.var(x, axis=1, keepdim=True), [f(2, 4)]),
    Case("norm_2_axis", lambda x: paddle.linalg.norm(x, p=2, axis=1), [f(3, 4)]),
    Case("norm_fro_all", lambda x: paddle.linalg.norm(x), [f(3, 4)]),
    Case("norm_1", lambda x: paddle.linalg.norm(x, p=1, axis=0), [f(3, 4)]),
    Case("norm_3_keepdim", lambda x: paddle.linalg.norm(x, p=3, axis=-1, keepdim=True),
         [f(3, 4)]),
    Case("norm_inf", lambda x: paddle.linalg.norm(x, p=float("inf"), axis=1), [f(3, 4)]),
    Case("norm_neg_inf_keepdim",
         lambda x: paddle.linalg.norm(x, p=float("-inf"), axis=0, keepdim=True), [f(3, 4)]),
    Case("norm_0", lambda x: paddle.linalg.norm(x, p=0, axis=1) + paddle.sum(x), [f(2, 3)]),
    Case("max_keepdim", lambda x: paddle.max(x, axis=[0, 2], keepdim=True), [f(2, 3, 2)]),
    Case("norm_fro_matrix", lambda x: paddle.linalg.norm(x, p="fro", axis=[0, 1]), [f(3, 4)]),
    Case("cumsum_axis", lambda x: paddle.cumsum(x, axis=1), [f(2, 4)]),
    Case("cumsum_widening_dtype", lambda x: paddle.cumsum(paddle.cast(x, "float32"), axis=0,
                                                           dtype="float64"),
         [f(3)], eps=1e-2, rtol=1e-4, atol=1e-4),
    Case("cumsum_flat", lambda x: paddle.cumsum(x), [f(2, 3)]),
    Case("cumprod", lambda x: paddle.cumprod(x, dim=1), [f(2, 4)]),
    Case("cumprod_with_zero", lambda x: paddle.cumprod(x, dim=0),
         [Float((4,), data=[0.7, 0.0, -1.3, 0.4])]),
    Case("cumprod_flat", lambda x: paddle.cumprod(x), [f(2, 2)]),
    # ------------------------------------------------------------------ shapes
    Case("reshape", lambda x: paddle.reshape(x, [3, -1]) * paddle.arange(4, dtype="float64"),
         [f(2, 6)]),
    Case("flatten_op", lambda x: apply("flatten", [x], {"start_axis": 1, "stop_axis": 2}),
         [f(2, 3, 2)]),
    Case("flatten", lambda x: paddle.flatten(x, 1, 2), [f(2, 3, 2)]),
    Case("squeeze_unsqueeze", lambda x: paddle.unsqueeze(paddle.squeeze(x, 1), [0, 2]),
         [f(2, 1, 3)]),
    Case("transpose", lambda x: paddle.transpose(x, [2, 0, 1]), [f(2, 3, 4)]),
    Case("expand", lambda x: paddle.expand(x, [2, 3, 4]), [f(3, 1)]),
    Case("expand_as", lambda x, y: paddle.expand_as(x, y), [f(1, 4), f(3, 4, diff=False)]),
    Case("assign", lambda x: paddle.assign(x) * 2.0, [f(3)]),
    # a change made under no_grad (here adding a constant): the gradient reaches the old value
    Case("no_grad_update", lambda x, c: apply("no_grad_update", [(x + c).detach(), x]) * 2.0,
         [f(3), f(3, diff=False)]),
    Case("concat", lambda a, b, c: paddle.concat([a, b, c], axis=1),
         [f(2, 1), f(2, 3), f(2, 2)]),
    Case("stack", lambda a, b: paddle.stack([a, b], axis=1), [f(2, 3), f(2, 3)]),
    Case("split_num", lambda x: tuple(paddle.split(x, 2, axis=1)), [f(2, 4)]),
    Case("split_sections", lambda x: tuple(paddle.split(x, [1, -1, 2], axis=0)), [f(5, 2)]),
    Case("split_one_piece_used", lambda x: paddle.split(x, 3, axis=1)[1], [f(2, 3)]),
    Case("unbind", lambda x: tuple(paddle.unbind(x, axis=1)), [f(2, 3)]),
    Case("chunk", lambda x: tuple(paddle.chunk(x, 3, axis=0)), [f(3, 2)]),
    Case("getitem_slices", lambda x: x[1:, ::-2], [f(3, 5)]),
    Case("getitem_int_ellipsis", lambda x: x[..., 1] + x[0], [f(3, 3)]),
    Case("getitem_repeated_index", lambda x, i: x[i], [f(4, 2), const([0, 2, 0, 3])]),
    Case("getitem_bool_mask", lambda x, m: x[m], [f(2, 3), _bool([[1, 0, 1], [0, 1, 1]])]),
    Case("setitem", _setitem, [f(3, 2), f(2)]),
    Case("setitem_functional", lambda x, v: paddle.setitem(x, (slice(None), 1), v),
         [f(2, 3), f(1)]),
    Case("strided_slice", lambda x: paddle.strided_slice(x, [0, 1], [0, 3], [3, 0], [2, -1]),
         [f(4, 5)]),
    Case("flip", lambda x: paddle.flip(x, [0, 1]), [f(2, 3)]),
    Case("roll_axis", lambda x: paddle.roll(x, [1, -2], axis=[0, 1]), [f(2, 3)]),
    Case("roll_flat", lambda x: paddle.roll(x, 2), [f(2, 3)]),
    Case("tile", lambda x: paddle.tile(x, [2, 1, 3]), [f(2, 2)]),
    Case("tril", lambda x: paddle.tril(x, -1), [f(3, 4)]),
    Case("triu", lambda x: paddle.triu(x, 1), [f(2, 3, 3)]),
    Case("diag_of_vector", lambda x: paddle.diag(x, offset=1), [f(3)]),
    Case("diag_of_matrix", lambda x: paddle.diag(x, offset=-1), [f(4, 3)]),
    Case("meshgrid", lambda x, y: tuple(paddle.meshgrid(x, y)), [f(3), f(2)]),
    Case("linspace", lambda a, b: paddle.linspace(a, b, 5, dtype="float64"), [f(), f()]),
    # ------------------------------------------------------------------ linear algebra
    Case("matmul_2d", paddle.matmul, [f(2, 3), f(3, 4)]),
    Case("matmul_transpose_x", lambda x, y: paddle.matmul(x, y, transpose_x=True),
         [f(3, 2), f(3, 4)]),
    Case("matmul_transpose_both", lambda x, y: paddle.matmul(x, y, True, True),
         [f(3, 2), f(4, 3)]),
    Case("matmul_vec_mat", paddle.matmul, [f(3), f(3, 4)]),
    Case("matmul_mat_vec", paddle.matmul, [f(2, 3), f(3)]),
    Case("matmul_vec_vec", paddle.matmul, [f(3), f(3)]),
    Case("matmul_batched_broadcast", paddle.matmul, [f(2, 3, 4), f(4, 2)]),
    Case("matmul_batch_dims_broadcast", lambda x, y: paddle.matmul(x, y, transpose_y=True),
         [f(2, 1, 3, 4), f(3, 2, 4)]),
    Case("dot_1d", paddle.dot, [f(4), f(4)]),
    Case("dot_2d", paddle.dot, [f(2, 3), f(2, 3)]),
    Case("outer", paddle.outer, [f(3), f(2, 2)]),
    Case("inv", paddle.linalg.inv, [Float((3, 3), data=_WELL)]),
    Case("inv_batched", paddle.linalg.inv,
         [Float((2, 3, 3), data=np.stack([_WELL, _WELL.T + np.eye(3)]))]),
    Case("einsum_matmul", lambda a, b: paddle.einsum("ij,jk->ik", a, b), [f(2, 3), f(3, 2)]),
    Case("einsum_batched", lambda a, b: paddle.einsum("bij,bjk->bik", a, b),
         [f(2, 2, 3), f(2, 3, 2)]),
    Case("einsum_implicit_dot", lambda a, b: paddle.einsum("i,i", a, b), [f(3), f(3)]),
    Case("einsum_dropped_label", lambda a, b: paddle.einsum("ijk,kl->il", a, b),
         [f(2, 3, 2), f(2, 3)]),
    Case("einsum_ellipsis", lambda a, b: paddle.einsum("...ij,jk->...ik", a, b),
         [f(2, 2, 3), f(3, 2)]),
    Case("einsum_sum", lambda a: paddle.einsum("ij->", a), [f(2, 3)]),
    Case("einsum_ellipsis_both", lambda a, b: paddle.einsum("...j,...j->...", a, b),
         [f(2, 3), f(3)]),
    Case("einsum_three", lambda a, b, c: paddle.einsum("ij,jk,k->i", a, b, c),
         [f(2, 3), f(3, 2), f(2)]),
    # ------------------------------------------------------------------ nn
    Case("relu", F.relu, [f(6)]),
    Case("softmax_last", lambda x: F.softmax(x), [f(2, 3)]),
    Case("softmax_axis0", lambda x: F.softmax(x, axis=0), [f(2, 3)]),
    Case("log_softmax", lambda x: F.log_softmax(x, axis=1), [f(2, 3, 2)]),
    Case("linear", F.linear, [f(2, 2, 3), f(3, 4), f(4)]),
    Case("linear_no_bias", F.linear, [f(2, 3), f(3, 2)]),
    Case("relu6", F.relu6, [f(6, low=-2, high=8)]),
    Case("leaky_relu", lambda x: F.leaky_relu(x, 0.2), [f(6)]),
    Case("hardtanh", lambda x: F.hardtanh(x, -0.5, 0.5), [f(6)]),
    Case("hardsigmoid", F.hardsigmoid, [f(6, low=-5, high=5)]),
    Case("hardswish", F.hardswish, [Float((6,), data=[-4.0, -2.5, -1.0, 0.5, 2.9, 3.5])]),
    Case("elu", lambda x: F.elu(x, 0.7), [f(6)]),
    Case("gelu", F.gelu, [f(6, low=-3, high=3)]),
    Case("gelu_tanh", lambda x: F.gelu(x, approximate=True), [f(6, low=-3, high=3)]),
    Case("gelu_float32_input", lambda x: F.gelu(x.astype("float32")).astype("float64"),
         [f(6, low=-3, high=3)], eps=1e-3, rtol=1e-3, atol=1e-4),
    Case("silu", F.silu, [f(6, low=-3, high=3)]),
    Case("softplus", lambda x: F.softplus(x, beta=2.0, threshold=3.0), [f(6, low=-3, high=3)]),
    Case("mish", F.mish, [f(6, low=-3, high=3)]),
    Case("smooth_l1_loss", lambda x, y: F.smooth_l1_loss(x, y, reduction="none", delta=0.5),
         [f(2, 3), f(2, 3)]),
    Case("cross_entropy_hard", lambda x, y: F.cross_entropy(x, y), [f(4, 3), const([0, 2, 1, 2])]),
    Case("binary_cross_entropy", lambda x, y: F.binary_cross_entropy(x, y, reduction="none"),
         [Float((2, 3), 0.1, 0.9), Float((2, 3), 0.0, 1.0)]),
    Case("bce_with_logits_pos_weight", lambda x, y, w: F.binary_cross_entropy_with_logits(
        x, y, reduction="none", pos_weight=w), [f(2, 3, low=-3, high=3), f(2, 3, low=0, high=1), pos(3)]),
    Case("cross_entropy_hard_n1_sum", lambda x, y: F.cross_entropy(x, y, reduction="sum"),
         [f(3, 4), const([[1], [3], [0]])]),
    Case("cross_entropy_ignore_weight",
         lambda x, y, w: F.cross_entropy(x, y, weight=w, ignore_index=1),
         [f(4, 3), const([0, 1, 2, 2]), pos(3)]),
    Case("cross_entropy_weight_none",
         lambda x, y, w: F.cross_entropy(x, y, weight=w, reduction="none"),
         [f(3, 3), const([0, 1, 2]), pos(3)]),
    Case("cross_entropy_soft", lambda x, y: F.cross_entropy(x, y, soft_label=True),
         [f(3, 4), Float((3, 4), 0.0, 1.0)]),
    Case("cross_entropy_soft_weight",
         lambda x, y, w: F.cross_entropy(x, y, weight=w, soft_label=True, reduction="sum"),
         [f(3, 4), Float((3, 4), 0.0, 1.0), pos(4)]),
    Case("cross_entropy_soft_smoothing",
         lambda x, y: F.cross_entropy(x, y, soft_label=True, label_smoothing=0.2,
                                      reduction="none"),
         [f(2, 3), Float((2, 3), 0.0, 1.0)]),
    Case("cross_entropy_smoothing_weight_ignore",
         lambda x, y, w: F.cross_entropy(x, y, weight=w, label_smoothing=0.1, ignore_index=0),
         [f(4, 3), const([0, 2, 1, 1]), pos(3)]),
    Case("cross_entropy_smoothing", lambda x, y: F.cross_entropy(x, y, label_smoothing=0.1),
         [f(4, 3), const([0, 2, 1, 1])]),
    Case("cross_entropy_axis1", lambda x, y: F.cross_entropy(x, y, axis=1),
         [f(2, 3, 2), const([[0, 2], [1, 1]])]),
    Case("cross_entropy_probs", lambda x, y: F.cross_entropy(x, y, use_softmax=False),
         [Float((3, 3), 0.2, 1.0), const([0, 1, 2])]),
    Case("nll_loss", lambda x, y: F.nll_loss(x, y), [f(3, 4), const([0, 3, 1])]),
    Case("layer_norm_affine", lambda x, w, b: F.layer_norm(x, [3], w, b), [f(2, 3), f(3), f(3)]),
    Case("layer_norm_2d", lambda x: F.layer_norm(x, [2, 3]), [f(2, 2, 3)]),
    Case("layer_norm_2d_weight", lambda x, w: F.layer_norm(x, [3, 2], w), [f(2, 3, 2), f(3, 2)]),
    Case("batch_norm_train",
         lambda x, w, b: F.batch_norm(x, paddle.zeros([3], "float64"), paddle.ones([3], "float64"),
                                      w, b, training=True),
         [f(4, 3, 2), f(3), f(3)]),
    Case("batch_norm_eval_stats",
         lambda x, m, v, w: F.batch_norm(x, m, v, w, training=False),
         [f(2, 3), f(3), pos(3), f(3)]),
    Case("batch_norm_nhwc_train",
         lambda x: F.batch_norm(x, paddle.zeros([2], "float64"), paddle.ones([2], "float64"),
                                training=True, data_format="NHWC"),
         [f(2, 2, 2, 2)]),
    Case("sync_batch_norm_train",       # one process: the statistics of its own batch
         lambda x, w, b: normalize_batch(x, paddle.zeros([3], "float64"),
                                         paddle.ones([3], "float64"), w, b, True, 0.9, 1e-5, 1,
                                         synced=True),
         [f(4, 3, 2), f(3), f(3)]),
    Case("normalize_2", lambda x: F.normalize(x, axis=1), [f(2, 3)]),
    Case("normalize_1", lambda x: F.normalize(x, p=1, axis=0), [f(3, 2)]),
    Case("normalize_inf", lambda x: F.normalize(x, p=float("inf"), axis=1), [f(2, 3)]),
    Case("normalize_3", lambda x: F.normalize(x, p=3, axis=1), [f(2, 3)]),
    Case("conv2d", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
         [f(2, 2, 5, 5), f(3, 2, 3, 3), f(3)]),
    Case("conv2d_dilation_groups", lambda x, w: F.conv2d(x, w, dilation=2, groups=2),
         [f(1, 4, 5, 5), f(4, 2, 2, 2)]),
    Case("conv2d_nhwc_same", lambda x, w: F.conv2d(x, w, padding="SAME", data_format="NHWC"),
         [f(1, 4, 4, 2), f(2, 2, 3, 3)]),
    Case("conv2d_nhwc_bias_stride", lambda x, w, b: F.conv2d(x, w, b, stride=[2, 1],
                                                               data_format="NHWC"),
         [f(1, 5, 4, 2), f(3, 2, 2, 2), f(3)]),
    Case("embedding", lambda i, w: F.embedding(i, w), [const([2, 2, 0]), f(3, 2)]),
    Case("embedding_padding_idx", lambda i, w: F.embedding(i, w, padding_idx=1),
         [const([[0, 1], [3, 0]]), f(4, 3)]),
    Case("dropout", lambda x: F.dropout(x, 0.5), [f(4, 3)]),
    Case("dropout_zeros_in_x", lambda x: F.dropout(x, 0.3, axis=1),
         [Float((2, 3), data=[[0.0, 1.0, -2.0], [0.0, 0.0, 3.0]])]),
    Case("dropout_downscale", lambda x: F.dropout(x, 0.4, mode="downscale_in_infer"), [f(5)]),
    Case("pad_constant", lambda x: F.pad(x, [1, 2, 0, 1], value=1.5), [f(1, 2, 2, 3)]),
    Case("pad_reflect", lambda x: F.pad(x, [2, 1, 1, 1], mode="reflect"), [f(1, 1, 3, 4)]),
    Case("pad_replicate", lambda x: F.pad(x, [1, 2], mode="replicate", data_format="NCL"),
         [f(1, 2, 3)]),
    Case("pad_circular", lambda x: F.pad(x, [1, 1, 2, 0], mode="circular"), [f(1, 1, 3, 3)]),
    # ------------------------------------------------------------------ indexing ops
    Case("gather_repeated", lambda x, i: paddle.gather(x, i, axis=1), [f(2, 3), const([2, 0, 2])]),
    Case("gather_scalar_index", lambda x, i: paddle.gather(x, i), [f(3, 2), const(1)]),
    Case("index_select", lambda x, i: paddle.index_select(x, i, axis=0),
         [f(3, 2), const([1, 1, 0])]),
    Case("gather_nd", paddle.gather_nd, [f(3, 4, 2), const([[0, 1], [2, 3], [0, 1]])]),
    Case("scatter_overwrite", lambda x, i, u: paddle.scatter(x, i, u),
         [f(4, 2), const([1, 3]), f(2, 2)]),
    Case("scatter_overwrite_repeated", lambda x, i, u: paddle.scatter(x, i, u),
         [f(4, 2), const([1, 1, 2]), f(3, 2)]),
    Case("scatter_accumulate", lambda x, i, u: paddle.scatter(x, i, u, overwrite=False),
         [f(4, 2), const([1, 1, 2]), f(3, 2)]),
    Case("take_along_axis", lambda x, i: paddle.take_along_axis(x, i, 1),
         [f(2, 3), const([[0, 0], [2, 1]])]),
    Case("take_along_axis_broadcast", lambda x, i: paddle.take_along_axis(x, i, 0),
         [f(3, 2), const([[2], [0]])]),
    Case("put_along_axis_assign", lambda x, i, v: paddle.put_along_axis(x, i, v, 1),
         [f(2, 3), const([[0], [2]]), f(2, 1)]),
    Case("put_along_axis_add", lambda x, i, v: paddle.put_along_axis(x, i, v, 1, reduce="add"),
         [f(2, 3), const([[0, 0], [2, 1]]), f(2, 2)]),
    Case("put_along_axis_mul", lambda x, i, v: paddle.put_along_axis(x, i, v, 1, reduce="mul"),
         [f(2, 3), const([[0, 0], [2, 1]]), f(2, 2)]),
    Case("put_along_axis_add_no_self",
         lambda x, i, v: paddle.put_along_axis(x, i, v, 0, reduce="add", include_self=False),
         [f(3, 2), const([[1, 0], [1, 2]]), f(2, 2)]),
    Case("put_along_axis_mul_no_self",
         lambda x, i, v: paddle.put_along_axis(x, i, v, 1, reduce="mul", include_self=False),
         [f(2, 3), const([[1], [2]]), f(2, 1)]),
    Case("put_along_axis_mean_self",
         lambda x, i, v: paddle.put_along_axis(x, i, v, 1, reduce="mean"),
         [f(2, 3), const([[0, 0], [2, 1]]), f(2, 2)]),
    Case("put_along_axis_mean",
         lambda x, i, v: paddle.put_along_axis(x, i, v, 1, reduce="mean", include_self=False),
         [f(2, 3), const([[0, 0], [2, 1]]), f(2, 2)]),
    Case("where_broadcast", lambda c, x, y: paddle.where(c, x, y),
         [_bool([True, False, True]), f(2, 3), f(2, 1)]),
    Case("masked_select", paddle.masked_select, [f(2, 3), _bool([[1, 0, 1], [0, 1, 1]])]),
    Case("masked_select_broadcast", paddle.masked_select, [f(1, 3), _bool([[1, 0, 1], [0, 1, 1]])]),
    Case("sort", lambda x: paddle.sort(x, axis=1), [f(2, 4)]),
    Case("sort_descending", lambda x: paddle.sort(x, axis=0, descending=True), [f(3, 2)]),
    Case("topk", lambda x: paddle.topk(x, 2)[0], [f(2, 4)]),
    Case("topk_smallest_axis0", lambda x: paddle.topk(x, 2, axis=0, largest=False)[0], [f(3, 2)]),
]


# Second derivatives (create_graph=True): each also checks the rules of the gradient kernels.
SECOND_ORDER: List[Case] = [
    Case("grad2_mul_tanh", second_order(lambda x, y: paddle.tanh(x * y), 2), [f(2, 3), f(3)]),
    Case("grad2_softmax", second_order(lambda x: F.softmax(x), 1), [f(2, 3)]),
    Case("grad2_matmul", second_order(paddle.matmul, 2), [f(2, 3), f(3, 2)]),
    Case("grad2_getitem", second_order(lambda x, i: x[i], 1), [f(4), const([0, 2, 0])]),
    Case("grad2_split", second_order(lambda x: paddle.split(x, 2)[0], 1), [f(4)]),
    Case("grad2_unbind", second_order(lambda x: paddle.unbind(x)[1], 1), [f(2, 2)]),
    Case("grad2_strided_slice", second_order(lambda x: x[1::2], 1), [f(5)]),
    Case("grad2_strided_slice_op",
         second_order(lambda x: paddle.strided_slice(x, [0], [0], [5], [2]), 1), [f(5)]),
    Case("grad2_pad", second_order(lambda x: F.pad(x, [1, 1], mode="reflect",
                                                    data_format="NCL"), 1), [f(1, 1, 3)]),
    Case("grad2_tile", second_order(lambda x: paddle.tile(x, [2]), 1), [f(3)]),
    Case("grad2_diag", second_order(lambda x: paddle.diag(x, 1), 1), [f(3, 3)]),
    Case("grad2_gather", second_order(lambda x, i: paddle.gather(x, i), 1),
         [f(3), const([0, 0, 2])]),
    Case("grad2_gather_nd", second_order(paddle.gather_nd, 1), [f(2, 2), const([[0, 1], [0, 1]])]),
    Case("grad2_embedding", second_order(lambda w, i: F.embedding(i, w, padding_idx=0), 1),
         [f(3, 2), const([0, 1, 1])]),
    Case("grad2_masked_select", second_order(paddle.masked_select, 1),
         [f(2, 2), _bool([[1, 0], [1, 1]])]),
    Case("grad2_conv2d", second_order(lambda x, w: F.conv2d(x, w, padding=1), 2),
         [f(1, 1, 3, 3), f(1, 1, 2, 2)]),
    Case("grad2_layer_norm", second_order(lambda x: F.layer_norm(x, [3]), 1), [f(2, 3)]),
    Case("grad2_cross_entropy", second_order(lambda x, y: F.cross_entropy(x, y), 1),
         [f(2, 3), const([0, 2])]),
    Case("grad2_cube", lambda x: tuple(paddle.grad([(x * x * x).sum()], [x], create_graph=True)),
         [f(3)]),
]

# Rules that refuse to differentiate (a clear GradientError), with a call that reaches them.
REFUSING = {
    "cumprod_grad": Case("grad2_cumprod", second_order(lambda x: paddle.cumprod(x, dim=0), 1),
                         [f(3)]),
}


# ----------------------------------------------------------------------------- CNN family
# Convolutions (1-D to 3-D, transposed), pooling, interpolation, grid_sample and the activations
# added with them: every attribute form that takes a different path through the kernels.
def _pool_unpool(x: Any) -> Any:
    out, mask = F.max_pool2d(x, 2, return_mask=True)
    return F.max_unpool2d(out, mask, 2)


def _reflect_conv(x: Any) -> Any:
    """A Conv2D layer with reflect padding (pad + conv), its parameters drawn under a seed."""
    paddle.seed(7)
    before = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    try:
        conv = paddle.nn.Conv2D(2, 3, 3, padding=1, padding_mode="reflect")
    finally:
        paddle.set_default_dtype(before)
    return conv(x)


def _grid(*shape: int, reach: float = 1.0) -> Float:
    """Normalised grid coordinates in [-reach, reach] (beyond 1: outside the input)."""
    return Float(tuple(shape), -reach, reach)


CASES += [
    # ------------------------------------------------------------------ convolutions
    Case("conv1d_stride_pad_groups", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1, groups=2),
         [f(2, 4, 7), f(6, 2, 3), f(6)]),
    Case("conv1d_nlc_dilation_valid",
         lambda x, w: F.conv1d(x, w, dilation=2, padding="VALID", data_format="NLC"),
         [f(1, 7, 2), f(3, 2, 2)]),
    Case("conv1d_pad_pairs", lambda x, w: F.conv1d(x, w, padding=[2, 0]), [f(1, 2, 5), f(2, 2, 3)]),
    Case("conv2d_full_pad_pairs",
         lambda x, w: F.conv2d(x, w, stride=[1, 2], padding=[[0, 0], [0, 0], [1, 0], [0, 2]]),
         [f(1, 2, 4, 4), f(2, 2, 2, 3)]),
    Case("conv3d_stride_pad_bias", lambda x, w, b: F.conv3d(x, w, b, stride=[1, 2, 1],
                                                           padding=[1, 0, 1]),
         [f(1, 2, 3, 4, 3), f(2, 2, 2, 2, 2), f(2)]),
    Case("conv3d_ndhwc_groups_dilation",
         lambda x, w: F.conv3d(x, w, groups=2, dilation=[2, 1, 1], data_format="NDHWC"),
         [f(1, 3, 3, 2, 4), f(2, 2, 2, 2, 1)]),
    Case("conv3d_same", lambda x, w: F.conv3d(x, w, stride=2, padding="SAME"),
         [f(1, 1, 3, 4, 3), f(2, 1, 2, 2, 2)]),
    Case("conv1d_transpose_output_padding",
         lambda x, w, b: F.conv1d_transpose(x, w, b, stride=2, padding=1, output_padding=1),
         [f(2, 3, 4), f(3, 2, 3), f(2)]),
    Case("conv2d_transpose_groups_dilation",
         lambda x, w: F.conv2d_transpose(x, w, stride=[2, 1], padding=[1, 0], groups=2, dilation=2),
         [f(1, 4, 3, 3), f(4, 1, 2, 2)]),
    Case("conv2d_transpose_nhwc_output_size",
         lambda x, w, b: F.conv2d_transpose(x, w, b, stride=2, output_size=[6, 5],
                                            data_format="NHWC"),
         [f(1, 3, 2, 2), f(2, 3, 2, 2), f(3)]),
    Case("conv3d_transpose_stride_pad", lambda x, w: F.conv3d_transpose(x, w, stride=2, padding=1),
         [f(1, 2, 2, 3, 2), f(2, 1, 3, 2, 2)]),
    Case("conv3d_transpose_ndhwc_groups",
         lambda x, w: F.conv3d_transpose(x, w, stride=[1, 2, 1], groups=2, data_format="NDHWC"),
         [f(1, 2, 2, 2, 4), f(4, 1, 2, 1, 2)]),
    Case("conv1d_transpose_dilation_output_size",
         lambda x, w: F.conv1d_transpose(x, w, stride=3, dilation=2, output_size=[11],
                                         data_format="NLC"),
         [f(1, 3, 2), f(2, 1, 3)]),
    Case("conv2d_layer_reflect_padding", lambda x: _reflect_conv(x), [f(1, 2, 4, 3)]),
    # ------------------------------------------------------------------ pooling
    Case("max_pool1d_pad", lambda x: F.max_pool1d(x, 3, 2, 1), [f(2, 3, 7)]),
    Case("max_pool1d_ceil", lambda x: F.max_pool1d(x, 2, ceil_mode=True), [f(1, 2, 5)]),
    Case("max_pool2d_ceil_mask", lambda x: F.max_pool2d(x, 3, 2, 1, return_mask=True,
                                                       ceil_mode=True), [f(2, 2, 5, 5)]),
    Case("max_pool2d_nhwc", lambda x: F.max_pool2d(x, 2, data_format="NHWC"), [f(1, 4, 4, 3)]),
    Case("max_pool3d_stride_pad", lambda x: F.max_pool3d(x, 2, stride=[1, 2, 2], padding=[0, 1, 0]),
         [f(1, 2, 3, 4, 4)]),
    Case("max_pool3d_ndhwc_ceil", lambda x: F.max_pool3d(x, 2, ceil_mode=True, data_format="NDHWC"),
         [f(1, 3, 3, 2, 2)]),
    Case("avg_pool1d_inclusive", lambda x: F.avg_pool1d(x, 3, 2, 1, exclusive=False), [f(2, 3, 7)]),
    Case("avg_pool1d_ceil", lambda x: F.avg_pool1d(x, 2, 2, ceil_mode=True), [f(1, 2, 5)]),
    Case("avg_pool2d_ceil_exclusive", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
         [f(2, 2, 5, 5)]),
    Case("avg_pool2d_divisor_nhwc",
         lambda x: F.avg_pool2d(x, 2, divisor_override=3, data_format="NHWC"), [f(1, 4, 4, 2)]),
    Case("avg_pool3d_same_inclusive",
         lambda x: F.avg_pool3d(x, 2, 2, padding="SAME", exclusive=False), [f(1, 2, 3, 3, 2)]),
    Case("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), [f(2, 2, 7)]),
    Case("adaptive_avg_pool2d_keep_dim", lambda x: F.adaptive_avg_pool2d(x, [2, None]),
         [f(1, 2, 5, 3)]),
    Case("adaptive_avg_pool2d_nhwc", lambda x: F.adaptive_avg_pool2d(x, 2, data_format="NHWC"),
         [f(1, 5, 3, 2)]),
    Case("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, [2, 1, 3]), [f(1, 2, 3, 3, 4)]),
    Case("adaptive_max_pool1d_mask", lambda x: F.adaptive_max_pool1d(x, 3, return_mask=True),
         [f(2, 2, 7)]),
    Case("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, [2, 3]), [f(1, 2, 5, 7)]),
    Case("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, 2), [f(1, 1, 3, 4, 3)]),
    Case("max_unpool2d_of_pool", _pool_unpool, [f(1, 2, 4, 4)]),
    Case("max_unpool1d_values", lambda v, i: F.max_unpool1d(v, i, 2),
         [f(2, 1, 3), const([[[1, 2, 5]], [[0, 3, 4]]])]),
    Case("max_unpool3d_values", lambda v, i: F.max_unpool3d(v, i, 2),
         [f(1, 1, 1, 1, 2), const([[[[[3, 14]]]]])]),
    Case("lp_pool1d_stride", lambda x: F.lp_pool1d(x, 3.0, 3, stride=2), [Float((1, 2, 7), 0.5, 2.0)]),
    Case("lp_pool2d", lambda x: F.lp_pool2d(x, 2.0, 2), [Float((1, 2, 4, 4), 0.5, 2.0)]),
    # ------------------------------------------------------------------ interpolation
    Case("interpolate_nearest_scale", lambda x: F.interpolate(x, scale_factor=2, mode="nearest"),
         [f(1, 2, 3, 3)]),
    Case("interpolate_nearest_size_nhwc",
         lambda x: F.interpolate(x, size=[5, 2], mode="nearest", data_format="NHWC"),
         [f(1, 3, 4, 2)]),
    Case("interpolate_linear_align_corners",
         lambda x: F.interpolate(x, size=[7], mode="linear", align_corners=True,
                                 data_format="NCW"), [f(2, 2, 4)]),
    Case("interpolate_linear_align_mode1",
         lambda x: F.interpolate(x, scale_factor=1.5, mode="linear", align_mode=1,
                                 data_format="NCW"), [f(1, 2, 4)]),
    Case("interpolate_bilinear_half_pixel",
         lambda x: F.interpolate(x, size=[5, 3], mode="bilinear"), [f(2, 1, 3, 4)]),
    Case("interpolate_bilinear_downscale_align",
         lambda x: F.interpolate(x, scale_factor=0.6, mode="bilinear", align_corners=True),
         [f(1, 2, 5, 5)]),
    Case("interpolate_trilinear", lambda x: F.interpolate(x, size=[3, 4, 2], mode="trilinear"),
         [f(1, 1, 2, 3, 3)]),
    Case("interpolate_trilinear_ndhwc_align",
         lambda x: F.interpolate(x, scale_factor=[1.5, 1, 2], mode="trilinear",
                                 align_corners=True, data_format="NDHWC"), [f(1, 2, 2, 2, 2)]),
    Case("interpolate_bicubic", lambda x: F.interpolate(x, size=[5, 6], mode="bicubic"),
         [f(1, 2, 3, 4)]),
    Case("interpolate_bicubic_align", lambda x: F.interpolate(x, scale_factor=1.7, mode="bicubic",
                                                              align_corners=True), [f(1, 1, 4, 3)]),
    Case("interpolate_area", lambda x: F.interpolate(x, size=[2, 3], mode="area"), [f(1, 2, 5, 7)]),
    Case("upsample_bilinear", lambda x: F.upsample(x, scale_factor=2, mode="bilinear"),
         [f(1, 1, 2, 3)]),
    # ------------------------------------------------------------------ grid_sample
    Case("grid_sample_bilinear_zeros",
         lambda x, g: F.grid_sample(x, g, align_corners=False), [f(2, 2, 3, 4), _grid(2, 3, 2, 2, reach=1.2)]),
    Case("grid_sample_bilinear_border",
         lambda x, g: F.grid_sample(x, g, padding_mode="border"), [f(1, 2, 3, 4), _grid(1, 2, 3, 2, reach=1.3)]),
    Case("grid_sample_reflection",
         lambda x, g: F.grid_sample(x, g, padding_mode="reflection"), [f(1, 2, 4, 3), _grid(1, 3, 2, 2, reach=1.6)]),
    Case("grid_sample_reflection_half_pixel",
         lambda x, g: F.grid_sample(x, g, padding_mode="reflection", align_corners=False),
         [f(1, 1, 3, 4), _grid(1, 2, 3, 2, reach=1.6)]),
    Case("grid_sample_nearest",
         lambda x, g: F.grid_sample(x, g, mode="nearest"), [f(2, 2, 3, 3), _grid(2, 2, 2, 2)]),
    Case("grid_sample_5d_trilinear", lambda x, g: F.grid_sample(x, g, align_corners=False),
         [f(1, 2, 2, 3, 3), _grid(1, 2, 2, 2, 3, reach=1.1)]),
    Case("grid_sample_5d_border_nearest",
         lambda x, g: F.grid_sample(x, g, mode="nearest", padding_mode="border"),
         [f(1, 1, 3, 2, 3), _grid(1, 2, 1, 2, 3, reach=1.3)]),
    Case("grid_sample_5d_reflection", lambda x, g: F.grid_sample(x, g, padding_mode="reflection"),
         [f(1, 1, 2, 3, 2), _grid(1, 1, 2, 2, 3, reach=1.5)]),
    # ------------------------------------------------------------------ activations
    Case("softsign", F.softsign, [f(2, 3)]),
    Case("log_sigmoid", F.log_sigmoid, [f(2, 3, low=-6, high=6)]),
    Case("hardshrink", F.hardshrink, [f(8)]),
    Case("hardshrink_threshold", lambda x: F.hardshrink(x, threshold=0.2), [f(2, 4)]),
    Case("softshrink", F.softshrink, [f(8)]),
    Case("softshrink_threshold", lambda x: F.softshrink(x, threshold=0.1), [f(2, 4)]),
    Case("tanhshrink", F.tanhshrink, [f(2, 3, low=-3, high=3)]),
    Case("thresholded_relu", F.thresholded_relu, [f(8, low=-2, high=3)]),
    Case("thresholded_relu_value", lambda x: F.thresholded_relu(x, threshold=0.2, value=0.5),
         [f(2, 4)]),
    Case("selu", F.selu, [f(2, 4, low=-3, high=3)]),
    Case("selu_scale_alpha", lambda x: F.selu(x, scale=1.5, alpha=0.5), [f(8, low=-3, high=3)]),
    Case("celu", F.celu, [f(2, 4, low=-3, high=3)]),
    Case("celu_alpha", lambda x: F.celu(x, alpha=0.4), [f(2, 2, 2, low=-2, high=2)]),
    Case("glu_last", F.glu, [f(2, 4)]),
    Case("glu_axis1", lambda x: F.glu(x, axis=1), [f(2, 6, 2)]),
    Case("prelu_channels", lambda x, w: F.prelu(x, w), [f(2, 3, 2), f(3)]),
    Case("prelu_nhwc", lambda x, w: F.prelu(x, w, data_format="NHWC"), [f(1, 2, 2, 3), f(3)]),
    Case("rrelu_eval", lambda x: F.rrelu(x, training=False), [f(2, 4)]),
    Case("maxout", lambda x: F.maxout(x, 2), [f(1, 4, 2, 2)]),
]

SECOND_ORDER += [
    Case("grad2_conv1d", second_order(lambda x, w: F.conv1d(x, w, stride=2, padding=1), 2),
         [f(1, 2, 5), f(2, 2, 2)]),
    Case("grad2_conv2d_transpose",
         second_order(lambda x, w: F.conv2d_transpose(x, w, stride=2, groups=2), 2),
         [f(1, 2, 2, 2), f(2, 1, 2, 2)]),
    Case("grad2_max_pool", second_order(lambda x: F.max_pool2d(x, 2, padding=1), 1),
         [f(1, 2, 3, 3)]),
    Case("grad2_max_unpool", second_order(_pool_unpool, 1), [f(1, 1, 4, 4)]),
    Case("grad2_interpolate", second_order(lambda x: F.interpolate(x, size=[3, 5], mode="bilinear"), 1),
         [f(1, 1, 2, 3)]),
    Case("grad2_avg_pool", second_order(lambda x: F.avg_pool1d(x, 2, 1, 1), 1), [f(1, 2, 4)]),
]

SECOND_ORDER += [
    Case("grad2_grid_sample_zeros", second_order(
        lambda x, g: F.grid_sample(x, g, align_corners=False), 2),
        [f(1, 2, 3, 3), _grid(1, 2, 2, 2, reach=1.2)]),
    Case("grad2_grid_sample_border", second_order(
        lambda x, g: F.grid_sample(x, g, padding_mode="border"), 2),
        [f(2, 1, 3, 4), _grid(2, 2, 1, 2, reach=1.3)]),
    Case("grad2_grid_sample_reflection", second_order(
        lambda x, g: F.grid_sample(x, g, padding_mode="reflection"), 2),
        [f(1, 1, 3, 3), _grid(1, 2, 2, 2, reach=1.6)]),
    Case("grad2_grid_sample_nearest", second_order(
        lambda x, g: F.grid_sample(x, g, mode="nearest"), 2),
        [f(1, 1, 3, 3), _grid(1, 2, 2, 2)]),
    Case("grad2_grid_sample_5d", second_order(
        lambda x, g: F.grid_sample(x, g, align_corners=False), 2),
        [f(1, 1, 2, 3, 2), _grid(1, 1, 2, 2, 3, reach=1.1)]),
]

REFUSING.update({
    "grid_sample_grad_grad": Case(
        "grad3_grid_sample", second_order(second_order(lambda x, g: F.grid_sample(x, g), 2), 2),
        [f(1, 1, 3, 3), _grid(1, 2, 2, 2)]),
})
# Matrix decompositions (dy2st/runtime/ops/decompositions.py): inputs with distinct eigen and
# singular values; eigenvectors and singular vectors are checked through sign-invariant products.
_SPD = _WELL @ _WELL.T
_TALL = np.array([[1.0, 0.5, -0.3], [0.2, 2.0, 0.4], [-0.6, 0.1, 1.5], [0.3, -0.2, 0.7]])
CASES.extend([
    Case("det", paddle.linalg.det, [f(3, 3, data=_WELL)]),
    Case("det_batch", paddle.linalg.det, [f(2, 3, 3, data=np.stack([_WELL, _SPD]))]),
    Case("slogdet", lambda x: paddle.linalg.slogdet(x)[1], [f(3, 3, data=-_WELL)]),
    Case("cholesky", paddle.linalg.cholesky, [f(3, 3, data=_SPD)]),
    Case("cholesky_upper", lambda x: paddle.linalg.cholesky(x, upper=True), [f(3, 3, data=_SPD)]),
    Case("eigh_values", lambda x: paddle.linalg.eigh(x)[0], [f(3, 3, data=_SPD)]),
    Case("eigh_vectors", lambda x: paddle.linalg.eigh(x)[1] * paddle.linalg.eigh(x)[1],
         [f(3, 3, data=_SPD)]),
    Case("svd_values", lambda x: paddle.linalg.svd(x)[1], [f(4, 3, data=_TALL)]),
    Case("svd_vectors", lambda x: (lambda u, s, vh: paddle.matmul(u, vh))(*paddle.linalg.svd(x)),
         [f(3, 4, data=_TALL.T)]),
    Case("qr", lambda x: (lambda q, r: paddle.matmul(q, r) + q.sum() * r.sum())(
        *paddle.linalg.qr(x)), [f(4, 3, data=_TALL)]),
])
# Special functions (dy2st/runtime/ops/special.py): second orders check the rules of the
# derivative ops (digamma -> polygamma(1) -> polygamma(2), i0 -> i1 -> i0).
_AWAY_FROM_POLES = np.array([[0.3, 1.7, 4.2], [-0.6, -2.4, 12.5]])
CASES.extend([
    Case("lgamma", paddle.lgamma, [f(2, 3, data=_AWAY_FROM_POLES)]),
    Case("digamma", paddle.digamma, [f(2, 3, data=_AWAY_FROM_POLES)]),
    Case("polygamma_2", lambda x: paddle.polygamma(x, 2), [f(2, 3, data=np.abs(_AWAY_FROM_POLES))]),
    Case("multigammaln", lambda x: paddle.multigammaln(x, 3), [f(2, 3, low=2.0, high=6.0)]),
    Case("erfinv", paddle.erfinv, [f(2, 3, low=-0.9, high=0.9)]),
    Case("i0", paddle.i0, [f(2, 3, data=[[0.0, 1.5, -3.0], [6.0, -7.0, 0.4]])]),
    Case("i1", paddle.i1, [f(2, 3, data=[[0.0, 1.5, -3.0], [6.0, -7.0, 0.4]])]),
    Case("i0e", paddle.i0e, [f(2, 3, data=[[0.1, 1.5, -3.0], [22.0, -25.0, 0.4]])]),
    Case("i1e", paddle.i1e, [f(2, 3, data=[[0.1, 1.5, -3.0], [22.0, -25.0, 0.4]])]),
    Case("gammainc", paddle.gammainc, [Float((2, 3), 0.5, 4.0, diff=False), pos(2, 3)]),
    Case("gammaincc", paddle.gammaincc, [Float((2, 3), 0.5, 4.0, diff=False), pos(3)]),
])
SECOND_ORDER.extend([
    Case("grad2_gelu", second_order(F.gelu, 1), [f(2, 3, low=-3.0, high=3.0)]),
    Case("grad2_gelu_tanh", second_order(lambda x: F.gelu(x, approximate=True), 1),
         [f(2, 3, low=-3.0, high=3.0)]),
    Case("grad2_digamma", second_order(paddle.digamma, 1), [f(2, 3, low=0.5, high=3.0)]),
    Case("grad2_i1", second_order(paddle.i1, 1), [f(2, 3, low=0.2, high=3.0)]),
])
# LU, matrix exponential and Householder products (dy2st/runtime/ops/lu.py, matrix_exp.py,
# householder.py): the LU input's pivot order is stable under the finite-difference steps; the
# leading 1 is the batch dim the static check leaves unknown (matrix dims must be known).
_PIVOTING = np.array([[0.5, 2.0, -1.0], [3.0, 0.3, 0.8], [-1.2, 0.7, 2.2]])
_REFLECTORS = np.array([[0.4, 0.2], [0.3, -0.5], [-0.7, 0.6], [0.1, 0.9]])
CASES.extend([
    Case("lu", lambda x: paddle.linalg.lu(x)[0], [f(1, 3, 3, data=_PIVOTING[None])]),
    Case("lu_batch", lambda x: paddle.linalg.lu(x, get_infos=True)[0],
         [f(2, 3, 3, data=np.stack([_PIVOTING, _WELL]))]),
    Case("lu_unpack", lambda x: (lambda p, l, u: paddle.matmul(l, u) + l.sum())(
        *paddle.linalg.lu_unpack(*paddle.linalg.lu(x))), [f(1, 3, 3, data=_PIVOTING[None])]),
    Case("matrix_exp", paddle.linalg.matrix_exp, [f(3, 3)]),
    Case("matrix_exp_scaled", paddle.linalg.matrix_exp, [f(2, 3, 3, data=np.stack(
        [2.5 * _PIVOTING, -_WELL]))]),
    Case("householder_product", paddle.linalg.householder_product,
         [f(1, 4, 2, data=_REFLECTORS[None]), f(1, 2, low=0.5, high=1.5)]),
    Case("ormqr", lambda x, t, y: paddle.linalg.ormqr(x, t, y, left=False, transpose=True),
         [f(1, 4, 2, data=_REFLECTORS[None]), f(1, 2, low=0.5, high=1.5), f(1, 3, 4)]),
])
SECOND_ORDER.extend([
    Case("grad2_matrix_exp", second_order(paddle.linalg.matrix_exp, 1), [f(2, 2)]),
])

# Fractional pooling, strided views, histograms and the tree / transducer / adaptive losses.
_DISTINCT = np.random.default_rng(11).permutation(98).reshape(2, 1, 7, 7) / 10.0
CASES.extend([
    Case("fractional_max_pool2d", lambda x: F.fractional_max_pool2d(x, [3, 4], random_u=0.4),
         [f(2, 1, 7, 7, data=_DISTINCT)]),
    Case("fractional_max_pool3d_kernel",
         lambda x: F.fractional_max_pool3d(x, 2, kernel_size=2, random_u=0.6),
         [f(1, 2, 3, 4, 4, data=np.arange(96).reshape(1, 2, 3, 4, 4)[..., ::-1] / 7.0)]),
    Case("as_strided_overlapping", lambda x: paddle.as_strided(x, [3, 3], [2, 1], 1),
         [f(12)]),
    Case("histogramdd_weights", lambda x, w: paddle.histogramdd(x, bins=[2, 3], weights=w)[0],
         [Float((5, 2), diff=False), f(5)]),
])
_RNNT_ARGS = (np.array([[1, 2], [3, 0]]), np.array([3, 2]), np.array([2, 1]))
CASES.extend([
    Case("hsigmoid_loss_default_tree", lambda x, w, b: F.hsigmoid_loss(
        x, paddle.to_tensor([0, 3, 4]), 5, w, b), [f(3, 2), f(4, 2), f(4, 1)]),
    Case("hsigmoid_loss_custom_tree", lambda x, w: F.hsigmoid_loss(
        x, paddle.to_tensor([0, 1]), 3, w, path_table=paddle.to_tensor([[0, 2], [1, -1]]),
        path_code=paddle.to_tensor([[1, 0], [0, 0]])), [f(2, 3), f(3, 3)]),
    Case("adaptive_log_softmax_with_loss", lambda x, h, a, b: F.adaptive_log_softmax_with_loss(
        x, paddle.to_tensor([0, 3, 4]), h, [[a, b]], [2, 5]), [f(3, 2), f(2, 3), f(2, 1), f(1, 3)]),
    Case("rnnt_loss", lambda x: F.rnnt_loss(x, *[paddle.to_tensor(a) for a in _RNNT_ARGS],
                                            fastemit_lambda=0.0, reduction="none"),
         [Float((2, 3, 3, 4), -2.0, 0.0)]),
])
REFUSING["rnnt_loss_grad"] = Case("grad2_rnnt_loss", second_order(
    lambda x: F.rnnt_loss(x, *[paddle.to_tensor(a) for a in _RNNT_ARGS], reduction="sum"), 1),
    [Float((2, 3, 3, 4), -2.0, 0.0)])
# Complex ops: real inputs are the real and imaginary parts, so finite differences on each check
# Paddle's conjugate convention (and the real rules' conjugation for complex values).
_Z = paddle.complex
CASES.extend([
    Case("complex_real", lambda a, b: paddle.real(_Z(a, b) * _Z(b, a)), [f(2, 3), f(2, 3)]),
    Case("complex_broadcast_imag", lambda a, b: paddle.imag(_Z(a, b) * _Z(a, b)), [f(2, 3), f(3)]),
    Case("complex_conj", lambda a, b: paddle.imag(paddle.conj(_Z(a, b)) * _Z(a, b * 2.0) * _Z(b, a)),
         [f(4), f(4)]),
    Case("complex_angle", lambda a, b: paddle.angle(_Z(a, b)), [pos(4), f(4)]),
    Case("complex_as_real", lambda x: paddle.as_real(paddle.as_complex(x) * paddle.as_complex(x)),
         [f(3, 2)]),
    Case("complex_abs_exp_divide", lambda a, b: paddle.abs(paddle.exp(_Z(a, b)) / _Z(b + 2.0, a)),
         [f(3), pos(3)]),
    Case("complex_matmul_mean", lambda a, b, c: paddle.real(paddle.mean(paddle.matmul(
        _Z(a, b), _Z(c, c * c)), axis=0)), [f(2, 3), f(2, 3), f(3, 2)]),
    Case("complex_cast_from_real", lambda a, b: paddle.imag((a * 1j + b) * (a + 2j)),
         [f(3), f(3)]),
    # the functions made complex-capable after Paddle 3.3.1's list (docs/complex.md)
    Case("complex_inverse_hyperbolic", lambda a, b: paddle.real(
        paddle.acosh(_Z(a, b)) * paddle.asinh(_Z(b, a))) + paddle.imag(
        paddle.atanh(_Z(a * 0.3, b * 0.3)) + paddle.expm1(_Z(b, a))), [f(3), f(3)]),
    Case("complex_sinc_stanh_deg", lambda a, b: paddle.imag(
        paddle.sinc(_Z(a * 0.5, b * 0.5)) * paddle.stanh(_Z(b, a)) + paddle.deg2rad(_Z(a, b))),
         [f(3), f(3)]),
    Case("complex_activations", lambda a, b: paddle.real(
        F.silu(_Z(a, b)) * (1 + 2j) + F.log_sigmoid(_Z(b, a)) + F.softplus(_Z(a, b), 2.0, 0.5)),
         [f(4), f(4)]),
    Case("complex_det", lambda a, b: paddle.real(paddle.linalg.det(_Z(a, b)) * (1 - 2j)),
         [f(3, 3), f(3, 3)]),
    Case("complex_softsign", lambda a, b: paddle.abs(F.softsign(_Z(a, b)) * _Z(b, a) + 1.0),
         [f(4), f(4)]),
    Case("complex_linear_vecdot_margin", lambda a, b, c: paddle.real(
        F.linear(_Z(a, b), _Z(c, c * 2.0)).sum(0) + paddle.linalg.vecdot(_Z(a, b), _Z(b, a))
        + F.soft_margin_loss(_Z(a, b), _Z(b, a), "none").sum(1)), [f(2, 3), f(2, 3), f(3, 2)]),
])
SECOND_ORDER.append(Case("grad2_complex_abs", second_order(
    lambda a, b: paddle.abs(_Z(a, b) * _Z(b, a) + 1.0), 2), [f(3), pos(3)]))
# FFT ops: each transform's rule is its adjoint; second order checks the adjoint ops' rules.
CASES.extend([
    Case("fft_rfft_irfft", lambda x, w: paddle.fft.irfft(paddle.fft.rfft(x, n=5) * _Z(w, x[:3]),
                                                         n=5), [f(5), f(3)]),
    Case("fft_fft2_abs", lambda a, b: paddle.abs(paddle.fft.fft2(_Z(a, b), norm="ortho")),
         [f(2, 3), f(2, 3)]),
    Case("fft_hfft_ihfft", lambda x: paddle.fft.hfft(paddle.fft.ihfft(x * x), n=4), [f(4)]),
])
SECOND_ORDER.append(Case("grad2_fft_real", second_order(
    lambda x: paddle.fft.irfft(paddle.fft.rfft(x * x) * (1 + 2j), n=4), 1), [f(4)]))
# eig: losses that do not depend on the eigenvectors' free phase (|v|, eigenvalues)
CASES.append(Case("eig_general", lambda x: (paddle.abs(paddle.linalg.eig(x)[1]) ** 2).sum(axis=0)
                  + paddle.real(paddle.linalg.eigvals(x) ** 2),
                  [f(3, 3, data=[[2.0, 1.0, 0.3], [0.5, -1.0, 2.0], [0.1, 0.4, 3.0]])]))
# The vision ops (paddle.vision.ops): RoI pooling and deformable convolution in x (and the
# offsets, mask, weight); box_coder and yolo_loss are built from differentiable ops.
_BOXES = const([[0.5, 0.5, 4.2, 3.6], [1.3, 0.2, 5.5, 4.9], [-1.0, 1.0, 2.5, 3.0]], "float64")
_BOXES_NUM = const([2, 1], "int32")
_YOLO_GT = np.array([[[0.3, 0.4, 0.5, 0.3], [0.7, 0.6, 0.2, 0.4]], [[0.5, 0.5, 0.3, 0.6],
                                                                   [0.0, 0.0, 0.0, 0.0]]])


def _vision_ops() -> Any:
    import dy2st.vision.ops as vops  # noqa: PLC0415 - the lazy vision namespace, for these cases
    return vops


CASES.extend([
    Case("roi_align_adaptive", lambda x, b, n: _vision_ops().roi_align(x, b, n, (2, 3), 0.8),
         [f(2, 2, 5, 6), _BOXES, _BOXES_NUM]),
    Case("roi_align_unaligned_ratio",
         lambda x, b, n: _vision_ops().roi_align(x, b, n, 2, 1.0, sampling_ratio=2,
                                                 aligned=False), [f(2, 1, 6, 6), _BOXES, _BOXES_NUM]),
    Case("roi_pool", lambda x, b, n: _vision_ops().roi_pool(x, b, n, (2, 2), 1.0),
         [f(2, 2, 6, 6, data=np.random.default_rng(3).permutation(144).reshape(2, 2, 6, 6) / 9.0),
          _BOXES, _BOXES_NUM]),
    Case("psroi_pool", lambda x, b, n: _vision_ops().psroi_pool(x, b, n, 2, 0.9),
         [f(2, 8, 5, 6), _BOXES, _BOXES_NUM]),
    Case("deform_conv2d_v1", lambda x, o, w, b: _vision_ops().deform_conv2d(x, o, w, b, padding=1),
         [f(1, 2, 4, 4), f(1, 18, 4, 4, low=-1.4, high=1.4), f(3, 2, 3, 3), f(3)]),
    Case("deform_conv2d_v2_groups",
         lambda x, o, w, m: _vision_ops().deform_conv2d(x, o, w, stride=2, dilation=(1, 2),
                                                        deformable_groups=2, groups=2, mask=m),
         [f(1, 4, 5, 6), f(1, 16, 2, 2, low=-2.0, high=2.0), f(2, 2, 2, 2), f(1, 8, 2, 2)]),
    Case("box_coder_encode",
         lambda p, v, t: _vision_ops().box_coder(p, v, t, "encode_center_size", False),
         [f(3, 4, data=[[0, 0, 2, 3], [1, 1, 4, 2], [0.5, 0, 3, 3]]), pos(3, 4),
          f(2, 4, data=[[0.2, 0.1, 2.5, 2.0], [1, 0.5, 3, 4]])]),
    Case("box_coder_decode_axis1",
         lambda p, t: _vision_ops().box_coder(p, [0.1, 0.1, 0.2, 0.2], t,
                                              "decode_center_size", axis=1),
         [f(2, 4, data=[[0, 0, 2, 3], [1, 1, 4, 2]]), f(2, 3, 4)]),
    Case("yolo_loss", lambda x, s: _vision_ops().yolo_loss(
        x, paddle.to_tensor(_YOLO_GT), paddle.to_tensor([[1, 0], [1, 0]]),
        [10, 13, 16, 30, 33, 23], [1, 2], 2, 0.6, 8, gt_score=s, scale_x_y=1.05),
        [f(2, 14, 3, 3, low=-2.0, high=2.0), Float((2, 2), 0.5, 1.0, diff=False)]),
])
SECOND_ORDER.extend([
    Case("grad2_roi_align", second_order(
        lambda x: _vision_ops().roi_align(x, paddle.to_tensor(_BOXES.data, "float64"),
                                          paddle.to_tensor([2, 1]), 2), 1), [f(2, 1, 5, 5)]),
    Case("grad2_psroi_pool", second_order(
        lambda x: _vision_ops().psroi_pool(x, paddle.to_tensor(_BOXES.data, "float64"),
                                           paddle.to_tensor([2, 1]), 1), 1), [f(2, 2, 5, 5)]),
])
REFUSING["roi_pool_grad"] = Case("grad2_roi_pool", second_order(
    lambda x: _vision_ops().roi_pool(x, paddle.to_tensor(_BOXES.data, "float64"),
                                     paddle.to_tensor([2, 1]), 2), 1), [f(2, 1, 5, 5)])
REFUSING["deform_sample_grad"] = Case("grad2_deform_conv2d", second_order(
    lambda x, o, w: _vision_ops().deform_conv2d(x, o, w), 1),
    [f(1, 1, 3, 3), f(1, 8, 2, 2), f(1, 1, 2, 2)])
