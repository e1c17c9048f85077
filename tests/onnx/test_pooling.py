"""Pooling exported to ONNX against eager mode: max pooling (padding, ceil_mode, channel-last,
the mask, adaptive), average pooling (exclusive or not, ceil_mode, divisor_override, adaptive),
max_unpool, with a None batch dim."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from tests.onnx.checks import check
from tests.support import flat_results, onnx_outputs, randn

MAX_POOLS = {
    "1d": lambda x: F.max_pool1d(x[:, :, 0], 3, stride=2, padding=1),
    "1d_ceil": lambda x: F.max_pool1d(x[:, :, 1], 2, ceil_mode=True),
    "2d_mask": lambda x: F.max_pool2d(x, 3, stride=2, padding=1, return_mask=True),
    "2d_ceil_mask": lambda x: F.max_pool2d(x, [2, 3], stride=[2, 2], padding=[0, 1],
                                           ceil_mode=True, return_mask=True),
    "2d_same": lambda x: F.max_pool2d(x, 3, stride=2, padding="SAME"),
    "2d_nhwc_mask": lambda x: F.max_pool2d(paddle.transpose(x, [0, 2, 3, 1]), 2,
                                           padding=[[0, 0], [1, 0], [0, 1], [0, 0]],
                                           data_format="NHWC", return_mask=True),
    "3d_mask": lambda x: F.max_pool3d(paddle.unsqueeze(x, 2), [1, 2, 2], stride=[1, 2, 1],
                                      padding=[0, 0, 1], ceil_mode=True, return_mask=True),
    "3d_ndhwc": lambda x: F.max_pool3d(paddle.unsqueeze(x, -1), 2, data_format="NDHWC"),
    "adaptive_mask": lambda x: F.adaptive_max_pool2d(x[:, :, :6, :6], [3, 2], return_mask=True),
    "adaptive_global": lambda x: F.adaptive_max_pool2d(x, 1, return_mask=True),
    "adaptive_1d": lambda x: F.adaptive_max_pool1d(x[:, :, 0, :6], 2),
}

AVG_POOLS = {
    "1d": lambda x: F.avg_pool1d(x[:, :, 0], 3, stride=2, padding=1),
    "1d_inclusive": lambda x: F.avg_pool1d(x[:, :, 0], 3, stride=2, padding=1, exclusive=False),
    "2d": lambda x: F.avg_pool2d(x, [2, 3], stride=[2, 1], padding=[1, 0]),
    "2d_ceil": lambda x: (F.avg_pool2d(x, 2, ceil_mode=True),
                          F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, exclusive=False)),
    "2d_divisor": lambda x: F.avg_pool2d(x, 2, stride=1, divisor_override=3),
    "2d_nhwc": lambda x: F.avg_pool2d(paddle.transpose(x, [0, 2, 3, 1]), 3, stride=2, padding=1,
                                      data_format="NHWC"),
    "3d": lambda x: F.avg_pool3d(paddle.unsqueeze(x, 2), [1, 2, 2], stride=2),
    "adaptive": lambda x: (F.adaptive_avg_pool2d(x, 1),
                           F.adaptive_avg_pool2d(x[:, :, :6, :4], [3, 2]),
                           F.adaptive_avg_pool2d(x, [3, 4]), F.adaptive_avg_pool1d(x[:, :, 0], 3)),
    "adaptive_nhwc": lambda x: F.adaptive_avg_pool2d(paddle.transpose(x, [0, 2, 3, 1]), [2, 3],
                                                     data_format="NHWC"),
    "adaptive_3d": lambda x: F.adaptive_avg_pool3d(paddle.unsqueeze(x, 2), [1, 3, 2]),
}


@pytest.mark.parametrize("name", sorted(MAX_POOLS))
def test_max_pool(tmp_path, name):
    # ties (the mask picks the first maximum), negative values, two batch sizes
    ties = np.round(randn(3, 3, 2, 7, 9, scale=2.0))
    check(tmp_path, MAX_POOLS[name], (randn(1, 1, 2, 7, 9),), (ties,),
          (randn(2, 4, 2, 7, 9, shift=-5.0),), dynamic_first=True)


@pytest.mark.parametrize("name", sorted(AVG_POOLS))
def test_avg_pool(tmp_path, name):
    check(tmp_path, AVG_POOLS[name], (randn(1, 1, 2, 7, 9),), (randn(2, 3, 2, 7, 9, scale=4.0),),
          dynamic_first=True, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3, 5, 7), (1, 2, 6, 6)])
def test_pooling_other_spatial_sizes(tmp_path, shape):
    def f(x):
        return (F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, return_mask=True),
                F.avg_pool2d(x, 3, stride=2, padding=1), F.adaptive_avg_pool2d(x, [2, 3]))
    check(tmp_path, f, (randn(1, *shape),), (randn(2, *shape),), dynamic_first=True, atol=1e-6)


def test_max_unpool_puts_values_back_at_the_mask(tmp_path):
    def f(x):
        out, mask = F.max_pool2d(x, 2, return_mask=True)
        return F.max_unpool2d(out, mask, 2), F.max_unpool2d(out, mask, 2, output_size=[7, 9])
    check(tmp_path, f, (randn(1, 1, 2, 6, 8),), (randn(2, 3, 2, 6, 8),), dynamic_first=True)


def test_adaptive_max_pool_with_unequal_windows_is_refused_naming_the_form(tmp_path):
    with pytest.raises(paddle.onnx.NotExportableError, match="unequal windows"):
        paddle.onnx.export(lambda x: F.adaptive_max_pool2d(x, [3, 2]), str(tmp_path / "m"),
                           input_spec=[paddle.static.InputSpec([None, 2, 7, 9], "float32")])
    assert not (tmp_path / "m.onnx").exists()


POOL_FORMS = [(k, s, p, ceil) for k in (2, 3) for s in (1, 2, 3) for p in range(k)
              for ceil in (False, True)]


def last_window_is_padding(size, k, s, p, ceil):
    out = (size + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    return (out - 1) * s - p >= size


@pytest.mark.parametrize("k,s,p,ceil", POOL_FORMS)
def test_pooling_windows_on_spatial_dims_known_only_at_run_time(tmp_path, k, s, p, ceil):
    def avg(x):
        return (F.avg_pool2d(x, k, stride=s, padding=p, ceil_mode=ceil),
                F.avg_pool2d(x, k, stride=s, padding=p, ceil_mode=ceil, exclusive=False))

    def max_(x):
        return F.max_pool2d(x, k, stride=s, padding=p, ceil_mode=ceil, return_mask=True)
    spec = [paddle.static.InputSpec([None, 2, None, None], "float32")]
    paddle.onnx.export(avg, str(tmp_path / "avg"), input_spec=spec)
    paddle.onnx.export(max_, str(tmp_path / "max"), input_spec=spec)
    compared = 0
    for h, w in ((5, 6), (7, 4), (4, 9), (6, 6)):
        x = randn(h * w, 2, 2, h, w)
        fns = {"avg": avg, "max": max_}
        if any(last_window_is_padding(n, k, s, p, ceil) for n in (h, w)):
            del fns["max"]      # eager max pooling has no input position (or fails) there
        for name, fn in fns.items():
            got = onnx_outputs(str(tmp_path / name) + ".onnx", x)
            want = flat_results(fn(paddle.to_tensor(x)))
            for g, wv in zip(got, want):
                assert g.shape == wv.shape
                np.testing.assert_allclose(g, wv, rtol=1e-5, atol=1e-6)
                compared += 1
    assert compared >= 8


def test_local_response_norm_pools_across_channels(tmp_path):
    def f(x):
        return (F.local_response_norm(x, 3), F.local_response_norm(x, 4, data_format="NHWC"),
                F.local_response_norm(x[:, :, 0], 2, alpha=0.5),
                F.local_response_norm(x[:, :, 0], 5, data_format="NLC"))
    check(tmp_path, f, (randn(1, 1, 5, 7, 9),), (randn(2, 3, 5, 7, 9, scale=3.0),),
          dynamic_first=True, rtol=1e-5, atol=1e-6)
