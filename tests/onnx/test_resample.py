"""Interpolation and grid sampling exported to ONNX (Resize, GridSample, exact matrices) against
eager mode: every mode, align_corners / align_mode, sizes and scale factors (also sizes given by
tensors), channel-last layouts, several spatial sizes; grid_sample's opset requirements."""
import numpy as np
import pytest

import dy2st as paddle
import dy2st.nn.functional as F
from tests.onnx.checks import check
from tests.support import flat_results, onnx_outputs, randn

INTERPOLATIONS = {
    "nearest_size": lambda x: F.interpolate(x, size=[11, 4]),
    "nearest_scale": lambda x: F.interpolate(x, scale_factor=[2.0, 1.5]),
    "nearest_down": lambda x: F.interpolate(x, size=[3, 2]),
    "bilinear": lambda x: F.interpolate(x, size=[10, 5], mode="bilinear"),
    "bilinear_down": lambda x: F.interpolate(x, size=[3, 1], mode="bilinear"),
    "bilinear_align": lambda x: F.interpolate(x, scale_factor=2, mode="bilinear",
                                              align_corners=True),
    "bilinear_mode1": lambda x: F.interpolate(x, size=[12, 7], mode="bilinear", align_mode=1),
    "bilinear_scale": lambda x: F.interpolate(x, scale_factor=[1.5, 0.5], mode="bilinear"),
    "bicubic": lambda x: F.interpolate(x, size=[10, 14], mode="bicubic"),
    "bicubic_align": lambda x: F.interpolate(x, size=[4, 5], mode="bicubic", align_corners=True),
    "bicubic_one": lambda x: F.interpolate(x, size=[1, 5], mode="bicubic"),
    "linear_1d": lambda x: F.interpolate(x[:, :, 0], size=[13], mode="linear", data_format="NCW"),
    "trilinear": lambda x: F.interpolate(paddle.unsqueeze(x, 2), size=[2, 5, 6], mode="trilinear"),
    "nhwc": lambda x: F.interpolate(paddle.transpose(x, [0, 2, 3, 1]), size=[8, 3], mode="bilinear",
                                    data_format="NHWC"),
    "area": lambda x: F.interpolate(x, size=[3, 4], mode="area"),
    "upsample_layer": paddle.nn.Upsample(scale_factor=2, mode="nearest"),
}


@pytest.mark.parametrize("name", sorted(INTERPOLATIONS))
@pytest.mark.parametrize("shape", [(2, 5, 7), (3, 6, 4)])
def test_interpolate(tmp_path, name, shape):
    check(tmp_path, INTERPOLATIONS[name], (randn(1, 1, *shape),), (randn(2, 3, *shape),),
          dynamic_first=True, rtol=1e-5, atol=1e-5)


def test_sizes_given_by_tensors_are_read_when_the_model_runs(tmp_path):
    def f(x, h, w):
        return F.interpolate(x, size=[h, w], mode="bilinear")
    path = str(tmp_path / "m")
    paddle.onnx.export(paddle.jit.to_static(f, full_graph=True), path, input_spec=[
        paddle.static.InputSpec([None, 2, None, None], "float32"),
        paddle.static.InputSpec([], "int32"), paddle.static.InputSpec([], "int32")])
    for x, h, w in ((randn(1, 1, 2, 5, 7), 9, 3), (randn(2, 3, 2, 4, 4), 4, 11)):
        h, w = np.array(h, "int32"), np.array(w, "int32")
        want = flat_results(f(paddle.to_tensor(x), paddle.to_tensor(h), paddle.to_tensor(w)))
        got = onnx_outputs(path + ".onnx", x, h, w)
        assert got[0].shape == want[0].shape
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_a_form_with_no_onnx_op_on_run_time_sizes_is_refused_naming_it(tmp_path):
    with pytest.raises(paddle.onnx.NotExportableError, match="adaptive average pooling"):
        paddle.onnx.export(lambda x: F.adaptive_avg_pool2d(x, [3, 2]), str(tmp_path / "m"),
                           input_spec=[paddle.static.InputSpec([None, 2, None, None], "float32")])
    assert not (tmp_path / "m.onnx").exists()


GRID_SAMPLES = [(mode, pad, align) for mode in ("bilinear", "nearest")
                for pad in ("zeros", "border", "reflection") for align in (True, False)]


@pytest.mark.parametrize("mode,padding_mode,align_corners", GRID_SAMPLES)
def test_grid_sample(tmp_path, mode, padding_mode, align_corners):
    def f(x, grid):
        return F.grid_sample(x, grid, mode=mode, padding_mode=padding_mode,
                             align_corners=align_corners)
    # grid points beyond [-1, 1] exercise the padding modes
    check(tmp_path, f, (randn(1, 1, 3, 5, 6), randn(2, 1, 4, 3, 2, scale=0.8)),
          (randn(3, 2, 3, 5, 6), randn(4, 2, 4, 3, 2, scale=1.5)), dynamic_first=True,
          rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset", [16, 20])
def test_grid_sample_opsets(tmp_path, opset):
    def f(x, grid):
        return F.grid_sample(x, grid)
    check(tmp_path, f, (randn(1, 1, 3, 5, 6), randn(2, 1, 4, 3, 2)), opset_version=opset,
          rtol=1e-5, atol=1e-5)


def test_grid_sample_3d_needs_opset_20(tmp_path):
    def f(x, grid):
        return F.grid_sample(x, grid, mode="bilinear", align_corners=False)
    path = str(tmp_path / "m")
    spec = [paddle.static.InputSpec([1, 2, 3, 4, 5], "float32"),
            paddle.static.InputSpec([1, 2, 2, 3, 3], "float32")]
    with pytest.raises(paddle.onnx.NotExportableError, match="opset_version >= 20"):
        paddle.onnx.export(f, path, input_spec=spec, opset_version=18)
    with pytest.raises(paddle.onnx.NotExportableError, match="grid_sample.*opset_version >= 16"):
        paddle.onnx.export(lambda x, g: F.grid_sample(x, g), path, input_spec=[
            paddle.static.InputSpec([1, 2, 3, 4], "float32"),
            paddle.static.InputSpec([1, 2, 2, 2], "float32")], opset_version=15)
    assert not (tmp_path / "m.onnx").exists()
    check(tmp_path, f, (randn(1, 1, 2, 3, 4, 5), randn(2, 1, 2, 2, 3, 3)), opset_version=20,
          rtol=1e-5, atol=1e-5)


def test_float64_resampling_runs_in_onnxruntime_as_exact_matrices(tmp_path):
    # onnxruntime has no float64 AveragePool or Resize; known sizes give per-axis MatMuls
    def f(x):
        return (F.interpolate(x, size=[7, 5], mode="bicubic"), F.interpolate(x, scale_factor=2),
                F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
                F.adaptive_avg_pool2d(x, [2, 3]))
    check(tmp_path, f, (randn(1, 2, 3, 5, 6, dtype="float64"),),
          (randn(2, 4, 3, 5, 6, dtype="float64"),), dynamic_first=True, rtol=1e-12, atol=1e-12)


def test_bicubic_to_a_run_time_size_is_refused_naming_the_form(tmp_path):
    def f(x, h):
        return F.interpolate(x, size=[h, 3], mode="bicubic")
    with pytest.raises(paddle.onnx.NotExportableError, match="bicubic interpolation without "
                                                             "align_corners to a size known only"):
        paddle.onnx.export(paddle.jit.to_static(f, full_graph=True), str(tmp_path / "m"),
                           input_spec=[paddle.static.InputSpec([1, 1, 4, 4], "float32"),
                                       paddle.static.InputSpec([], "int64")])
    assert not (tmp_path / "m.onnx").exists()
    # align_corners=True has no such case: Resize takes the run-time size
    def g(x, h):
        return F.interpolate(x, size=[h, 3], mode="bicubic", align_corners=True)
    path = str(tmp_path / "g")
    paddle.onnx.export(paddle.jit.to_static(g, full_graph=True), path,
                       input_spec=[paddle.static.InputSpec([1, 1, 4, 4], "float32"),
                                   paddle.static.InputSpec([], "int64")])
    x = randn(1, 1, 1, 4, 4)
    for h in (1, 2, 7):
        want = g(paddle.to_tensor(x), paddle.to_tensor(np.array(h))).numpy()
        np.testing.assert_allclose(onnx_outputs(path + ".onnx", x, np.array(h, "int64"))[0], want,
                                   rtol=1e-5, atol=1e-5)


RUN_TIME_MODES = [("nearest", False, 0), ("bilinear", False, 0), ("bilinear", True, 0),
                  ("bilinear", False, 1), ("bicubic", True, 0)]


@pytest.mark.parametrize("mode,align_corners,align_mode", RUN_TIME_MODES)
def test_index_formulas_over_many_run_time_sizes(tmp_path, mode, align_corners, align_mode):
    # one export, input and output sizes from 1 up (up- and down-sampling, one-pixel outputs)
    def f(x, h):
        return F.interpolate(x, size=[h, 3], mode=mode, align_corners=align_corners,
                             align_mode=align_mode)
    path = str(tmp_path / "m")
    paddle.onnx.export(paddle.jit.to_static(f, full_graph=True), path, input_spec=[
        paddle.static.InputSpec([1, 1, None, 2], "float32"), paddle.static.InputSpec([], "int64")])
    for size in (1, 2, 3, 5, 7, 12):
        for out in (1, 2, 3, 4, 7, 11, 15):
            x, h = randn(size * 100 + out, 1, 1, size, 2), np.array(out, "int64")
            want = f(paddle.to_tensor(x), paddle.to_tensor(h)).numpy()
            got = onnx_outputs(path + ".onnx", x, h)[0]
            assert got.shape == want.shape, (size, out)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{size}->{out}")


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_scale_factors_on_run_time_spatial_sizes(tmp_path, mode):
    def f(x):
        return F.interpolate(x, scale_factor=[1.5, 0.5], mode=mode)
    path = str(tmp_path / "m")
    paddle.onnx.export(f, path, input_spec=[paddle.static.InputSpec([None, 2, None, None], "float32")])
    for size in (1, 2, 3, 5, 8):
        x = randn(size, 2, 2, size, size + 1)
        want = f(paddle.to_tensor(x)).numpy()
        got = onnx_outputs(path + ".onnx", x)[0]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
