"""paddle.save / paddle.load: round trips of state dicts (Layers, optimizers, nested Python
data) and refusal of pickles, foreign, corrupt and truncated files."""
import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import dy2st as paddle
from dy2st.jit import ModelFormatError


def _round_trip(obj, tmp_path, **load_kw):
    path = os.path.join(str(tmp_path), "sub", "state.pdparams")
    paddle.save(obj, path)
    return paddle.load(path, **load_kw)


def test_layer_state_dict_round_trip(tmp_path):
    paddle.seed(1)
    model = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.BatchNorm1D(3))
    state = model.state_dict()
    back = _round_trip(state, tmp_path)
    assert list(back) == list(state)
    for k in state:
        assert isinstance(back[k], paddle.Tensor) and back[k].name == state[k].name
        assert back[k].dtype == state[k].dtype and back[k].stop_gradient
        np.testing.assert_array_equal(back[k].numpy(), state[k].numpy())
    paddle.seed(2)
    other = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.BatchNorm1D(3))
    other.set_state_dict(back)
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((5, 4)).astype("float32"))
    model.eval(), other.eval()
    np.testing.assert_array_equal(model(x).numpy(), other(x).numpy())


def test_nested_python_data_round_trip(tmp_path):
    obj = {"epoch": 3, "lr": 0.5, "flags": [True, None, "text"], "nan": float("nan"),
           "inf": (float("inf"), -float("inf")), "ints": {1: "one", (2, 3): "pair"},
           "$odd": 1, "array": np.arange(6, dtype="int64").reshape(2, 3),
           "f16": np.ones(2, "float16"), "scalar": np.float32(1.5),
           "tensors": [paddle.to_tensor([1.0, 2.0]), paddle.to_tensor(np.array(True))]}
    back = _round_trip(obj, tmp_path)
    assert back["epoch"] == 3 and back["lr"] == 0.5 and back["flags"] == [True, None, "text"]
    assert np.isnan(back["nan"]) and back["inf"] == (float("inf"), -float("inf"))
    assert back["ints"] == {1: "one", (2, 3): "pair"} and back["$odd"] == 1
    assert back["array"].dtype == np.int64 and back["array"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert back["f16"].dtype == np.float16 and back["scalar"] == 1.5
    assert back["tensors"][0].numpy().tolist() == [1.0, 2.0]
    assert back["tensors"][1].numpy().dtype == np.bool_


def test_return_numpy_and_file_objects():
    buf = io.BytesIO()
    paddle.save({"w": paddle.to_tensor([[1.0, 2.0]])}, buf)
    back = paddle.load(io.BytesIO(buf.getvalue()), return_numpy=True)
    assert isinstance(back["w"], np.ndarray) and back["w"].tolist() == [[1.0, 2.0]]


def test_file_is_data_only_and_readable_by_numpy(tmp_path):
    path = str(tmp_path / "x.pdparams")
    paddle.save({"w": paddle.to_tensor([1.0, 2.0])}, path)
    with zipfile.ZipFile(path) as zf:
        assert sorted(zf.namelist()) == ["arr_0.npy", "dy2st_state.json"]
    with np.load(path, allow_pickle=False) as npz:
        assert npz["arr_0"].tolist() == [1.0, 2.0]


@pytest.mark.parametrize("obj, what", [
    (paddle.nn.Linear(2, 2), "state_dict"),
    ({"f": len}, "builtin_function_or_method"),
    ({"o": np.array([object()], dtype=object)}, "dtype object"),
    ({"s": {1, 2}}, "set"),
])
def test_unsavable_objects_are_refused(obj, what, tmp_path):
    with pytest.raises(TypeError, match=what):
        paddle.save(obj, str(tmp_path / "bad"))
    assert not os.path.exists(str(tmp_path / "bad"))


def test_save_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="directory"):
        paddle.save({}, str(tmp_path))
    with pytest.raises(ValueError, match="protocol"):
        paddle.save({}, str(tmp_path / "a"), protocol=9)


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def _numpy_npz():
    buf = io.BytesIO()
    np.savez(buf, w=np.ones(3))
    return buf.getvalue()


def _saved(tmp_path, obj=None):
    path = str(tmp_path / "good.pdparams")
    paddle.save(obj if obj is not None else {"w": paddle.to_tensor(np.arange(200.0))}, path)
    return path, open(path, "rb").read()


def _write(tmp_path, name, data):
    path = str(tmp_path / name)
    with open(path, "wb") as f:
        f.write(data)
    return path


@pytest.mark.parametrize("make, message", [
    (lambda raw: pickle.dumps(_Evil()), "pickle"),
    (lambda raw: b"hello world", "not a zip archive"),
    (lambda raw: raw[: len(raw) // 2], "corrupt or truncated"),
    (lambda raw: raw.replace(b"dy2st.state", b"dy2st.other"), "Bad CRC"),
    (lambda raw: _numpy_npz(), "without dy2st_state.json"),
])
def test_bad_files_are_refused(tmp_path, make, message):
    _, raw = _saved(tmp_path)
    path = _write(tmp_path, "bad.pdparams", make(raw))
    with pytest.raises(ModelFormatError, match=message) as info:
        paddle.load(path)
    assert "bad.pdparams" in str(info.value)


def test_flipped_array_byte_is_caught_by_the_checksum(tmp_path):
    _, raw = _saved(tmp_path)
    data = bytearray(raw)
    at = raw.index(b"arr_0.npy") + 300          # inside the array's bytes
    data[at] ^= 0xFF
    path = _write(tmp_path, "flip.pdparams", bytes(data))
    with pytest.raises(ModelFormatError, match="corrupt"):
        paddle.load(path)


def _zip(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _npy(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=True)
    return buf.getvalue()


HEAD = '{"format": "dy2st.state", "format_version": 1, '


@pytest.mark.parametrize("members, message", [
    ({"other.json": "{}"}, "without dy2st_state.json"),
    ({"dy2st_state.json": HEAD + '"tree": {"$tensor": {"key": "arr_0"}}}'},
     "does not hold"),
    ({"dy2st_state.json": HEAD + '"tree": 1}', "arr_0.npy": _npy(np.ones(2))}, "does not use"),
    ({"dy2st_state.json": HEAD + '"tree": 1}', "evil.py": "import os"}, "unexpected member"),
    ({"dy2st_state.json": HEAD + '"tree": {"$ndarray": {"key": "arr_0"}}}',
      "arr_0.npy": _npy(np.array([object()], dtype=object))}, "allow_pickle=False"),
    ({"dy2st_state.json": '{"format": "dy2st.state", "format_version": 99, "tree": 1}'},
     "version 99"),
    ({"dy2st_state.json": HEAD + '"tree": {"$code": "x"}}'}, "unknown marker"),
    ({"dy2st_state.json": '{"format": "dy2st.model", "format_version": 1, "tree": 1}'},
     "not a dy2st state file"),
    ({"dy2st_state.json": HEAD + '"tree": NaN}'}, "not valid JSON"),
    ({"dy2st_state.json": b"\x80\x04not json"}, "pickle"),
])
def test_inconsistent_archives_are_refused(tmp_path, members, message):
    path = _write(tmp_path, "odd.pdparams", _zip(members))
    with pytest.raises(ModelFormatError, match=message):
        paddle.load(path)


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="does not exist"):
        paddle.load("/nonexistent/dir/model.pdparams")
