"""paddle.device: set_device / get_device with Paddle's strings, the hook a backend registers
more device kinds with, device_guard, and the CUDA queries of a CPU-only build."""
import pytest

import dy2st as paddle
from dy2st.runtime import device as runtime_device


@pytest.fixture
def fake_gpu():
    """A backend that provides two 'gpu' devices, removed again afterwards."""
    heard = []
    before = runtime_device._KINDS.get("gpu")       # the xla backend may provide 'gpu' too
    runtime_device.register_device_kind("gpu", lambda: 2)
    runtime_device.on_set_device(lambda kind, index: heard.append((kind, index)))
    yield heard
    runtime_device.set_device("cpu")
    if before is None:
        del runtime_device._KINDS["gpu"]
    else:
        runtime_device._KINDS["gpu"] = before
    runtime_device._LISTENERS.pop()


def test_get_device_is_cpu_and_set_device_returns_the_place():
    assert paddle.device.get_device() == "cpu"
    assert paddle.get_device() == "cpu"
    place = paddle.device.set_device("cpu")
    assert place == paddle.CPUPlace() and repr(place) == "Place(cpu)"
    assert paddle.set_device("CPU") == paddle.CPUPlace()


@pytest.mark.parametrize("device", ["gpu", "gpu:0", "cuda:1", "xpu", "xpu:2", "ipu"])
def test_accelerators_are_refused_as_not_compiled_in(device):
    with pytest.raises(ValueError, match="not compiled with"):
        paddle.device.set_device(device)
    assert paddle.device.get_device() == "cpu"


@pytest.mark.parametrize("device", ["gpu-0", "", "cpu:x", 3])
def test_malformed_devices_are_refused(device):
    with pytest.raises(ValueError, match="like 'cpu'"):
        paddle.device.set_device(device)


def test_unknown_kind_is_named():
    with pytest.raises(ValueError, match="unknown device type 'tpu'"):
        paddle.device.set_device("tpu:0")


def test_a_registered_kind_becomes_current_and_listeners_hear_it(fake_gpu):
    assert paddle.device.set_device("gpu:1") == runtime_device.Place("gpu", 1)
    assert paddle.device.get_device() == "gpu:1"
    assert paddle.device.set_device("gpu") == runtime_device.Place("gpu", 0)
    assert fake_gpu == [("gpu", 1), ("gpu", 0)]
    assert paddle.device.get_all_device_type() == ["cpu", "gpu"]
    assert paddle.device.get_available_device() == ["cpu", "gpu:0", "gpu:1"]
    assert paddle.device.device_count() == 2
    with pytest.raises(ValueError, match="gpu:2 does not exist"):
        paddle.device.set_device("gpu:2")
    assert paddle.device.get_device() == "gpu:0"


def test_device_guard_restores_the_previous_device(fake_gpu):
    with paddle.device.device_guard("gpu:1"):
        assert paddle.device.get_device() == "gpu:1"
    assert paddle.device.get_device() == "cpu"
    with pytest.raises(RuntimeError):
        with paddle.device.device_guard("gpu:1"):
            raise RuntimeError("inside")
    assert paddle.device.get_device() == "cpu"


def test_cpu_build_queries():
    d = paddle.device
    assert d.get_all_device_type() == ["cpu"] and d.get_available_device() == ["cpu"]
    assert d.get_all_custom_device_type() == [] and d.get_available_custom_device() == []
    assert d.get_cudnn_version() is None and d.device_count() == 0
    assert not (d.is_compiled_with_cuda() or d.is_compiled_with_rocm() or d.is_compiled_with_xpu()
                or d.is_compiled_with_ipu() or d.is_compiled_with_cinn()
                or d.is_compiled_with_distribute() or d.is_compiled_with_custom_device("npu"))
    assert d.cuda.device_count() == 0 and d.cuda.is_available() is False
    d.synchronize()
    d.cuda.synchronize()
    d.empty_cache()
    d.cuda.empty_cache()


def test_resnet_vd_style_device_branch():
    # PaddleClas: `if paddle.device.get_device().startswith("gpu"): ...data_format NHWC`
    data_format = "NHWC" if paddle.device.get_device().startswith("gpu") else "NCHW"
    assert data_format == "NCHW"


def test_cuda_places_exist_for_isinstance_but_cannot_be_made():
    # Paddle's code checks isinstance(place, paddle.CUDAPlace); making one fails as in a
    # CPU-only Paddle build
    assert not isinstance(paddle.CPUPlace(), paddle.CUDAPlace)
    with pytest.raises(ValueError, match=r"CUDAPlace\(0\): dy2st runs on the CPU only"):
        paddle.CUDAPlace(0)
    with pytest.raises(RuntimeError, match="CUDAPinnedPlace"):
        paddle.CUDAPinnedPlace()
