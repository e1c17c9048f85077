"""Which of paddle's top-level functions live in which paddle.tensor submodule (math,
manipulation, creation, ...), as in Paddle's python/paddle/tensor/*.py; the submodules of
dy2st.tensor re-export the same objects dy2st's top level has."""
from __future__ import annotations

import importlib
from typing import Any, Dict

CATALOG: Dict[str, str] = {
    "attribute": "rank shape real imag is_complex is_integer is_floating_point",
    "creation": """to_tensor diag diagflat diag_embed eye linspace logspace ones ones_like zeros
        zeros_like arange full full_like triu triu_ tril tril_ meshgrid empty empty_like complex
        polar assign clone create_parameter create_tensor create_global_var fill_constant
        tril_indices triu_indices cauchy_ geometric_ range""",
    "linalg": """matmul dot cov corrcoef norm vector_norm matrix_norm cond transpose transpose_
        lstsq dist t t_ cross cholesky bmm histogram histogramdd histogram_bin_edges bincount mv
        eig matrix_power qr eigvals multi_dot svd svd_lowrank eigvalsh eigh pinv solve
        cholesky_solve lu lu_unpack lu_solve triangular_solve matrix_rank householder_product
        pca_lowrank cholesky_inverse ormqr matrix_exp vecdot cdist det slogdet""",
    "logic": """equal equal_ greater_equal greater_equal_ greater_than greater_than_ is_empty
        less_equal less_equal_ less_than less_than_ less less_ logical_and logical_and_
        logical_not logical_not_ logical_or logical_or_ logical_xor logical_xor_ bitwise_and
        bitwise_and_ bitwise_or bitwise_or_ bitwise_xor bitwise_xor_ bitwise_not bitwise_not_
        bitwise_invert bitwise_invert_ not_equal not_equal_ allclose isclose equal_all is_tensor""",
    "manipulation": """cast cast_ concat expand broadcast_to broadcast_tensors expand_as tile
        flatten flatten_ gather gather_nd reshape reshape_ reverse scatter scatter_ scatter_nd_add
        scatter_nd shard_index slice split squeeze squeeze_ stack strided_slice unique
        unique_consecutive unsqueeze unsqueeze_ unstack flip rot90 unbind roll chunk tensordot
        as_complex take_along_axis put_along_axis put_along_axis_ as_real moveaxis
        repeat_interleave index_add index_add_ index_put index_put_ unflatten as_strided view
        view_as unfold masked_fill masked_fill_ masked_scatter masked_scatter_ index_fill
        index_fill_ diagonal_scatter select_scatter slice_scatter crop fill_ zero_
        fill_diagonal_ fill_diagonal_tensor fill_diagonal_tensor_ tolist tensor_split hsplit
        vsplit dsplit column_stack row_stack hstack vstack dstack atleast_1d atleast_2d
        atleast_3d block_diag narrow swapaxes swapdims permute""",
    "math": """abs abs_ acos acos_ asin asin_ atan atan_ ceil ceil_ cos cos_ tan tan_ cosh cosh_
        cumsum cumsum_ cummax cummin cumprod cumprod_ logcumsumexp logit logit_ exp exp_ expm1
        expm1_ floor floor_ increment log log_ log2 log2_ log10 log10_ log1p log1p_ multiplex pow
        pow_ float_power reciprocal reciprocal_ round round_ rsqrt rsqrt_ scale scale_ sign sgn
        sin sin_ sinh sinh_ sqrt sqrt_ square square_ stanh sum nansum nanmean count_nonzero
        tanh tanh_ add_n max amax maximum min amin minimum mm divide divide_ floor_divide
        floor_divide_ remainder remainder_ mod mod_ floor_mod floor_mod_ multiply multiply_ add
        add_ subtract subtract_ atan2 logsumexp logaddexp inverse erf addmm addmm_ baddbmm
        baddbmm_ clip clip_ clamp trace kron isfinite isinf isnan isneginf isposinf isreal prod
        all any broadcast_shape conj trunc trunc_ frac frac_ digamma digamma_ neg neg_ negative
        positive lgamma lgamma_ diagonal acosh acosh_ asinh asinh_ atanh atanh_ lerp lerp_ erfinv
        erfinv_ rad2deg deg2rad gcd gcd_ lcm lcm_ diff angle fmax fmin inner outer heaviside
        frexp ldexp ldexp_ trapezoid cumulative_trapezoid vander nextafter i0 i0_ i0e i1 i1e
        polygamma polygamma_ hypot hypot_ signbit isin sinc sinc_ bitwise_left_shift
        bitwise_left_shift_ bitwise_right_shift bitwise_right_shift_ copysign copysign_
        cartesian_prod gammaln gammaln_ gammainc gammainc_ gammaincc gammaincc_ multigammaln
        multigammaln_ renorm renorm_ take logaddexp sigmoid""",
    "random": """bernoulli bernoulli_ binomial poisson multinomial standard_normal normal normal_
        uniform uniform_ randn rand randint randint_like randperm exponential_ log_normal
        log_normal_ standard_gamma rand_like randn_like""",
    "search": """argmax argmin argsort searchsorted bucketize topk where where_ index_select
        nonzero sort msort index_sample masked_select kthvalue mode argwhere""",
    "stat": "mean std var numel median nanmedian quantile nanquantile",
}

# Names paddle.tensor itself has (its __init__ imports them) though no submodule above lists them
TENSOR_ONLY = """broadcast_shapes clamp_ combinations div div_ einsum eq ge greater gt le lt
    matrix_transpose mul mul_ nan_to_num nan_to_num_ ne random_ ravel reduce_as scatter_add
    scatter_add_ scatter_reduce set_printoptions sigmoid_ softmax sub sub_ take_along_dim
    true_divide view_as_complex view_as_real svdvals""".split()
SUBMODULE_OF: Dict[str, str] = {n: m for m, names in CATALOG.items() for n in names.split()}


def exported(submodule: str) -> Dict[str, Any]:
    """name -> dy2st's object, for the names of `submodule` dy2st has."""
    # the root package: paddle.tensor.* hold the very objects paddle.* does (loaded by now,
    # since the tensor submodules are only reached through it)
    root = importlib.import_module("dy2st")
    # some names Paddle keeps out of its top level (paddle.linalg.cond, paddle.tensor.fill_constant)
    homes = [root, root.linalg, root.tensor]
    out = {}
    for name in CATALOG[submodule].split():
        for home in homes:
            if hasattr(home, name):
                out[name] = getattr(home, name)
                break
    return out


def tensor_attribute(name: str) -> Any:
    """paddle.tensor.<name>: a function of one of the submodules, or one paddle.tensor holds
    directly; the same object as paddle.<name> (AttributeError for other names)."""
    module = SUBMODULE_OF.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__package__}.{module}"), name, None)
        if value is not None:
            return value
    elif name in TENSOR_ONLY:
        root = importlib.import_module("dy2st")
        for home in (root, root.linalg):
            if hasattr(home, name):
                return getattr(home, name)
    raise AttributeError(f"module 'dy2st.tensor' has no attribute {name!r}")
