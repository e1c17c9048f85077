"""Hostile files in a model's place: FIFOs, directories, devices, sockets, symlink loops, over-long
names, NUL bytes and decompression bombs, as the JSON graph or as the parameters file it names.
Every loader (jit.load, paddle.load, static.load_inference_model) refuses each one at once with
a ModelFormatError naming the file; nothing blocks or inflates."""
import io
import json
import os
import socket
import threading
import time
import zipfile

import numpy as np
import pytest

import dy2st as paddle
from dy2st.format import ModelFormatError
from dy2st.format.npy_member import DEFAULT_MAX_COMPRESSION_RATIO
from tests.support import model_doc, model_npz_path, save_branchy_model, write_model_doc

HANG_SECONDS = 10.0         # far above any refusal (milliseconds); a blocked open never returns
BOMB_SECONDS = 1.0          # the bound for refusing a decompression bomb

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def refuses(load, *fragments):
    """`load()` raises ModelFormatError with every fragment, within HANG_SECONDS (run in a
    daemon thread, so a blocked open fails the test instead of hanging the run)."""
    result = {}

    def target():
        try:
            load()
        except BaseException as e:  # noqa: BLE001 - inspected below
            result["error"] = e
        else:
            result["error"] = None

    thread = threading.Thread(target=target, daemon=True)
    start = time.perf_counter()
    thread.start()
    thread.join(HANG_SECONDS)
    assert not thread.is_alive(), f"the loader blocked for {HANG_SECONDS} s"
    error = result["error"]
    assert isinstance(error, ModelFormatError), repr(error)
    for frag in fragments:
        assert frag in str(error), str(error)
    return time.perf_counter() - start, str(error)


@pytest.fixture
def saved(tmp_path):
    prefix = tmp_path / "m"
    save_branchy_model(prefix)
    return str(prefix)


def _replace_npz(prefix, make):
    """Put what `make(path)` creates where the parameters file was."""
    path = model_npz_path(prefix)
    os.unlink(path)
    make(path)
    return path


def _make_socket(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    return s


NPZ_REPLACEMENTS = {
    "fifo": (lambda p: os.mkfifo(p), "FIFO"),
    "directory": (lambda p: os.mkdir(p), "directory"),
    "char device": (lambda p: os.symlink("/dev/zero", p), "character device"),
    "symlink loop": (lambda p: os.symlink(os.path.basename(p), p), "symbolic link loop"),
    "dangling symlink": (lambda p: os.symlink(p + ".gone", p), "is missing"),
}


@pytest.mark.parametrize("kind", sorted(NPZ_REPLACEMENTS))
def test_parameters_file_that_is_not_a_regular_file(saved, kind):
    make, fragment = NPZ_REPLACEMENTS[kind]
    if kind == "fifo" and not hasattr(os, "mkfifo") or kind == "char device" and \
            not os.path.exists("/dev/zero"):
        pytest.skip(f"no {kind} on this platform")
    path = _replace_npz(saved, make)
    refuses(lambda: paddle.jit.load(saved), path, fragment)
    refuses(lambda: paddle.static.load_inference_model(saved, None), path, fragment)


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no unix sockets")
def test_parameters_file_that_is_a_socket(saved):
    path = model_npz_path(saved)
    if len(path) > 100:
        pytest.skip("the temporary path is too long for a unix socket")
    os.unlink(path)
    s = _make_socket(path)
    try:
        refuses(lambda: paddle.jit.load(saved), path, "socket")
    finally:
        s.close()


@needs_fifo
@pytest.mark.parametrize("kind", ["fifo", "directory", "char device", "symlink loop"])
def test_model_json_that_is_not_a_regular_file(saved, kind):
    make, fragment = NPZ_REPLACEMENTS[kind]
    json_path = saved + ".json"
    os.unlink(json_path)
    make(json_path)
    refuses(lambda: paddle.jit.load(saved), json_path, fragment)
    refuses(lambda: paddle.jit.load(json_path), json_path)


@pytest.mark.parametrize("name, fragment", [
    ("a" * 300 + ".npz", "too long"),
    ("a" * 100000 + ".npz", "too long"),
    ("m\u0000.npz", "plain .npz file name"),
    ("../m.npz", "plain .npz file name"),
    ("sub/m.npz", "plain .npz file name"),
], ids=["300 chars", "100000 chars", "NUL", "parent dir", "sub dir"])
def test_parameters_file_names_that_no_file_can_have(saved, name, fragment):
    doc = model_doc(saved)
    doc["parameters_file"]["file"] = name
    write_model_doc(saved, doc)
    _, message = refuses(lambda: paddle.jit.load(saved), saved + ".json", fragment)
    assert len(message) < 1000, "an over-long name is cut in the message"


def test_parameters_file_through_a_long_symlink_chain(saved):
    """A chain of 100 links is more than the OS follows: ELOOP, reported by name."""
    path = model_npz_path(saved)
    os.rename(path, path + ".0")
    for i in range(1, 100):
        os.symlink(f"{path}.{i - 1}", f"{path}.{i}")
    os.symlink(f"{path}.99", path)
    refuses(lambda: paddle.jit.load(saved), path, "symbolic link")


@pytest.mark.parametrize("path, fragment", [
    ("x\u0000y", "NUL byte"),
    ("a" * 100000, "too long"),
], ids=["NUL", "100000 chars"])
def test_model_paths_no_file_can_have(tmp_path, path, fragment):
    refuses(lambda: paddle.jit.load(str(tmp_path / path)), fragment)
    refuses(lambda: paddle.load(str(tmp_path / path)), fragment)


def test_a_symlink_to_a_regular_file_is_followed(tmp_path):
    """Links are fine when they end at a regular file (models are often linked into place)."""
    prefix = str(tmp_path / "m")
    net, x = save_branchy_model(prefix)
    path = model_npz_path(prefix)
    os.rename(path, str(tmp_path / "elsewhere.bin"))
    os.symlink(str(tmp_path / "elsewhere.bin"), path)
    os.rename(prefix + ".json", str(tmp_path / "graph.txt"))
    os.symlink(str(tmp_path / "graph.txt"), prefix + ".json")
    np.testing.assert_allclose(paddle.jit.load(prefix)(x).numpy(), net(paddle.to_tensor(x)).numpy(),
                               rtol=1e-6)


# ----------------------------------------------------------------------------- paddle.load
@pytest.mark.parametrize("kind", ["fifo", "directory", "char device", "symlink loop"])
def test_paddle_load_of_what_is_not_a_regular_file(tmp_path, kind):
    make, fragment = NPZ_REPLACEMENTS[kind]
    if kind == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs")
    path = str(tmp_path / "state.pdparams")
    make(path)
    refuses(lambda: paddle.load(path), path, fragment)


# ----------------------------------------------------------------------------- bombs
def _deflated(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, chunks in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, "w", force_zip64=True) as f:
                for chunk in chunks:
                    f.write(chunk)
    return buf.getvalue()


def _npy_header(shape, dtype="<f4"):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False,
                                               "shape": tuple(shape)})
    return buf.getvalue()


def _zeros(nbytes):
    chunk = b"\0" * (1 << 20)
    for _ in range(nbytes >> 20):
        yield chunk


@pytest.fixture(scope="module")
def state_bomb():
    """A paddle.load state file whose one array inflates from about 256 KiB to 256 MiB of
    zeros (a 1 GiB one only takes longer to build; the refusal reads the zip entry alone)."""
    n = 256 << 20
    structure = json.dumps({"format": "dy2st.state", "format_version": 1,
                            "tree": {"w": {"$ndarray": {"key": "arr_0"}}}}).encode()
    data = _deflated({"dy2st_state.json": [structure],
                      "arr_0.npy": [_npy_header([n // 4])] + list(_zeros(n))})
    assert len(data) * 500 < n
    return data, n


def test_paddle_load_refuses_a_decompression_bomb_quickly(tmp_path, state_bomb):
    data, _ = state_bomb
    path = tmp_path / "bomb.pdparams"
    path.write_bytes(data)
    elapsed, _ = refuses(lambda: paddle.load(str(path)), str(path), "decompression bomb",
                         "max_compression_ratio")
    assert elapsed < BOMB_SECONDS, elapsed


def test_the_compression_bound_is_an_argument(tmp_path):
    """Zeros compress about 1000:1: refused by default, loaded when the bound is lifted or
    raised, and the same array stored uncompressed always loads."""
    arr = np.zeros(1 << 20, np.float32)         # 4 MiB of zeros, a few KiB deflated
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr)
    structure = json.dumps({"format": "dy2st.state", "format_version": 1,
                            "tree": {"w": {"$ndarray": {"key": "arr_0"}}}}).encode()
    path = str(tmp_path / "zeros.pdparams")
    with open(path, "wb") as f:
        f.write(_deflated({"dy2st_state.json": [structure], "arr_0.npy": [buf.getvalue()]}))
    refuses(lambda: paddle.load(path), path, f"more than {DEFAULT_MAX_COMPRESSION_RATIO} times")
    assert paddle.load(path, max_compression_ratio=None)["w"].shape == (1 << 20,)
    assert paddle.load(path, max_compression_ratio=5000, return_numpy=True)["w"].sum() == 0
    paddle.save({"w": paddle.to_tensor(arr)}, path)
    assert paddle.load(path)["w"].shape == [1 << 20]


def test_jit_load_refuses_a_bomb_the_parameter_table_would_allow(tmp_path):
    """A model declaring a 64 MiB parameter whose member is a few KiB of deflate: the table
    alone allows it, the compression bound refuses it before inflating."""
    net = paddle.nn.Linear(4096, 4096)
    prefix = str(tmp_path / "big")
    paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 4096], "float32")])
    path = model_npz_path(prefix)
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        members = {i.filename: [zf.read(i)] for i in infos if i.file_size < 1 << 20}
        big = [i for i in infos if i.file_size >= 1 << 20][0]
    members[big.filename] = [_npy_header([4096, 4096])] + list(_zeros(64 << 20))
    data = _deflated(members)
    with open(path, "wb") as f:
        f.write(data)
    import hashlib
    doc = model_doc(prefix)
    doc["parameters_file"]["sha256"] = hashlib.sha256(data).hexdigest()
    write_model_doc(prefix, doc)
    elapsed, _ = refuses(lambda: paddle.jit.load(prefix), path, "decompression bomb")
    assert elapsed < BOMB_SECONDS, elapsed
    layer = paddle.jit.load(prefix, max_compression_ratio=None)    # trusted: zeros, as written
    assert float(layer(np.ones((1, 4096), np.float32)).abs().sum()) == 0.0


# ----------------------------------------------------------------------------- paddle.load npy
def _state(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


STRUCTURE = json.dumps({"format": "dy2st.state", "format_version": 1,
                        "tree": {"w": {"$ndarray": {"key": "arr_0"}}}})


def test_paddle_load_npy_header_claiming_2_pow_40_floats(tmp_path):
    path = str(tmp_path / "liar.pdparams")
    with open(path, "wb") as f:
        f.write(_state({"dy2st_state.json": STRUCTURE,
                        "arr_0.npy": _npy_header([2 ** 40]) + b"\0" * 16}))
    refuses(lambda: paddle.load(path), path, "1099511627776")


def test_paddle_load_unknown_compression_method(tmp_path):
    import re
    import struct
    raw = bytearray(_state({"dy2st_state.json": STRUCTURE,
                            "arr_0.npy": _npy_header([2]) + b"\0" * 8}))
    for sig, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        for m in re.finditer(re.escape(sig), bytes(raw)):
            raw[m.start() + offset:m.start() + offset + 2] = struct.pack("<H", 14)   # LZMA
    path = str(tmp_path / "lzma.pdparams")
    with open(path, "wb") as f:
        f.write(bytes(raw))
    refuses(lambda: paddle.load(path), path, "compression method 14")


def test_paddle_load_structured_dtype_is_refused(tmp_path):
    path = str(tmp_path / "rec.pdparams")
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(2, dtype=[("a", "<f4")]))
    with open(path, "wb") as f:
        f.write(_state({"dy2st_state.json": STRUCTURE, "arr_0.npy": buf.getvalue()}))
    refuses(lambda: paddle.load(path), path, "not a numeric array")
