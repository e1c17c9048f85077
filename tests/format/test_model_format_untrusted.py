"""A model file is untrusted input: lying .npy headers, unknown compression, decompression
bombs, invalid attrs, reassigned or shadowed names and non-finite JSON numbers are refused at
load time with a ModelFormatError naming the file, before any large allocation."""
import io
import os
import re
import struct
import tracemalloc
import zipfile

import numpy as np
import numpy.lib.format as npy_format
import pytest

import dy2st as paddle
from dy2st.format import ModelFormatError
from tests.support import (
    model_doc,
    model_npz_path,
    save_branchy_model,
    write_model_doc,
    write_model_npz,
)


@pytest.fixture
def saved(tmp_path):
    prefix = tmp_path / "m"
    net, x = save_branchy_model(prefix)
    return str(prefix), net, x


def refused(prefix, path, *fragments):
    """Loading fails with a ModelFormatError naming `path` and every fragment."""
    with pytest.raises(ModelFormatError) as info:
        paddle.jit.load(prefix)
    text = str(info.value)
    assert path in text, text
    for frag in fragments:
        assert frag in text, text
    return text


def npy(shape, dtype="<f4", data=b""):
    buf = io.BytesIO()
    npy_format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False,
                                            "shape": tuple(shape)})
    return buf.getvalue() + data


def members(prefix):
    """{key: .npy bytes} of the model's parameters file, and {parameter name: key}."""
    with zipfile.ZipFile(model_npz_path(prefix)) as zf:
        data = {i.filename[:-4]: zf.read(i) for i in zf.infolist()}
    return data, {p["name"]: p["key"] for p in model_doc(prefix)["parameters"]}


def zipped(data, compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as zf:
        for key, raw in data.items():
            zf.writestr(key + ".npy", raw)
    return buf.getvalue()


def bias_key(prefix):
    """The npz key of the float32[3] parameter (the Linear's bias)."""
    (key,) = [p["key"] for p in model_doc(prefix)["parameters"] if p["shape"] == [3]]
    return key


# ----------------------------------------------------------------------------- the npz
def test_sound_model_loads_and_matches_eager(saved):
    prefix, net, x = saved
    net.eval()
    np.testing.assert_allclose(paddle.jit.load(prefix)(x).numpy(), net(paddle.to_tensor(x)).numpy(),
                               rtol=1e-6)


def test_member_header_claiming_2_pow_40_elements(saved):
    prefix, _, _ = saved
    data, _ = members(prefix)
    key = bias_key(prefix)
    data[key] = npy([2 ** 40], data=b"\0" * 12)
    write_model_npz(prefix, zipped(data))
    refused(prefix, model_npz_path(prefix), "1099511627776", "[3]")


def test_member_header_with_other_dtype_or_object_dtype(saved):
    prefix, _, _ = saved
    data, _ = members(prefix)
    key = bias_key(prefix)
    data[key] = npy([3], "<f8", b"\0" * 24)
    write_model_npz(prefix, zipped(data))
    refused(prefix, model_npz_path(prefix), "float64")
    data[key] = npy([3], "|O", b"\0" * 24)
    write_model_npz(prefix, zipped(data))
    refused(prefix, model_npz_path(prefix), "allow_pickle=False")


def test_member_with_an_unknown_compression_method(saved):
    prefix, _, _ = saved
    raw = bytearray(zipped(members(prefix)[0]))
    # the method is a 2-byte field at offset 8 of a local header and 10 of a central entry
    for sig, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        for m in re.finditer(re.escape(sig), bytes(raw)):
            raw[m.start() + offset:m.start() + offset + 2] = struct.pack("<H", 99)
    write_model_npz(prefix, bytes(raw))
    refused(prefix, model_npz_path(prefix), "compression method 99")


def _bomb(header_shape, inflated, tail=b""):
    """A deflated member: an .npy header, then `inflated` zero bytes (streamed, never held)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        info = zipfile.ZipInfo("bomb.npy")
        info.compress_type = zipfile.ZIP_DEFLATED
        with zf.open(info, "w") as f:
            f.write(npy(header_shape) + tail)
            chunk = b"\0" * (1 << 20)
            for _ in range(inflated >> 20):
                f.write(chunk)
    return buf.getvalue()


@pytest.mark.parametrize("header_shape, inflated, fragment", [
    ([3], 16 << 20, "inflates to"),                 # small enough to pass the file size check
    ([4 << 20], 16 << 20, "inflates to"),
    ([3], 256 << 20, "larger than the parameters"),
])
def test_decompression_bomb_is_refused_before_inflating(saved, header_shape, inflated, fragment):
    """Megabytes of zeros in a member of a few KiB, declared float32[3] by the parameter table."""
    prefix, _, _ = saved
    data, _ = members(prefix)
    key = bias_key(prefix)
    bomb = _bomb(header_shape, inflated)
    with zipfile.ZipFile(io.BytesIO(bomb)) as zf:
        data[key] = None
        raw_bomb = zf.infolist()[0]
    assert len(bomb) * 500 < inflated < raw_bomb.file_size
    # the bomb member, renamed to the parameter's key, next to the sound members
    good = zipped({k: v for k, v in data.items() if v is not None})
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(buf, "w") as dst, \
            zipfile.ZipFile(io.BytesIO(bomb)) as b:
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        info = b.infolist()[0]
        renamed = zipfile.ZipInfo(key + ".npy")
        renamed.compress_type = zipfile.ZIP_DEFLATED
        with b.open(info) as f, dst.open(renamed, "w") as out:
            while True:
                block = f.read(1 << 20)
                if not block:
                    break
                out.write(block)
    write_model_npz(prefix, buf.getvalue())
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        refused(prefix, model_npz_path(prefix), fragment)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak


def test_parameters_file_larger_than_the_table_allows(saved):
    prefix, _, _ = saved
    data, _ = members(prefix)
    data["pad"] = npy([1 << 20], data=b"\0" * (4 << 20))
    write_model_npz(prefix, zipped(data))
    refused(prefix, model_npz_path(prefix), "larger than the parameters")


# ----------------------------------------------------------------------------- the graph
def _ops(doc, block, type_):
    return [op for op in doc["program"]["blocks"][block]["ops"] if op["type"] == type_]


def _edit(prefix, fn):
    doc = model_doc(prefix)
    fn(doc)
    write_model_doc(prefix, doc)


@pytest.mark.parametrize("block, type_, attrs, fragment", [
    (2, "full", {"shape": [2 ** 40]}, "full"),
    (2, "full", {"shape": [4]}, "t_8"),
    (2, "full", {"shape": "3"}, "full"),
    (2, "full", {"dtype": "complex128"}, "full"),
    (0, "getitem", {"items": [{"k": "bogus"}]}, "getitem"),
    (0, "getitem", {"items": "x"}, "getitem"),
    (0, "getitem", {"items": [{"k": "int"}]}, "getitem"),
    (0, "mean", {"axis": 2 ** 40}, "mean"),
    (0, "mean", {"axis": [0, 0, 0, 0]}, "mean"),
    (0, "mean", {"keepdim": True}, "t_11"),
])
def test_attrs_are_checked_against_the_op_at_load_time(saved, block, type_, attrs, fragment):
    prefix, _, _ = saved
    _edit(prefix, lambda doc: _ops(doc, block, type_)[0]["attrs"].update(attrs))
    refused(prefix, prefix + ".json", fragment)


def test_huge_declared_shapes_are_refused(saved):
    prefix, _, _ = saved

    def grow(doc):
        full = _ops(doc, 2, "full")[0]
        full["attrs"]["shape"] = [2 ** 20, 2 ** 20]
        for v in doc["program"]["blocks"][2]["vars"]:
            if v["name"] == "t_8":
                v["shape"] = [2 ** 20, 2 ** 20]
    _edit(prefix, grow)
    refused(prefix, prefix + ".json", "more than 4294967296 elements")

    def grow_dim(doc):
        for v in doc["program"]["blocks"][2]["vars"]:
            if v["name"] == "t_8":
                v["shape"] = [2 ** 40]
    _edit(prefix, grow_dim)
    refused(prefix, prefix + ".json", "1099511627776")


def test_op_output_redefining_a_feed(saved):
    prefix, _, _ = saved
    _edit(prefix, lambda doc: _ops(doc, 0, "mean")[0].update(outputs=["x"]))
    refused(prefix, prefix + ".json", "'x' is already defined")


def test_op_output_assigned_twice(saved):
    prefix, _, _ = saved
    _edit(prefix, lambda doc: _ops(doc, 0, "getitem")[0].update(outputs=["t_11"]))
    refused(prefix, prefix + ".json", "'t_11' is already defined")


def test_sub_block_name_shadowing_an_outer_one(saved):
    prefix, _, _ = saved
    with open(prefix + ".json", encoding="utf-8") as f:
        text = f.read()
    assert '"t_4"' in text and '"t_3"' in text
    with open(prefix + ".json", "w", encoding="utf-8") as f:
        f.write(text.replace('"t_4"', '"t_3"'))      # block 1's constant takes block 0's name
    refused(prefix, prefix + ".json", "'t_3' is also declared in block 0")


@pytest.mark.parametrize("literal", ["1e999", "-1e999", "NaN", "Infinity", "1" + "0" * 80])
def test_non_finite_or_oversized_json_numbers(saved, literal):
    prefix, _, _ = saved
    with open(prefix + ".json", encoding="utf-8") as f:
        text = f.read()
    text, n = re.subn(r'"value": 2\.0', f'"value": {literal}', text)
    assert n >= 1
    with open(prefix + ".json", "w", encoding="utf-8") as f:
        f.write(text)
    refused(prefix, prefix + ".json", "not valid JSON")


# ----------------------------------------------------------------------------- file modes
@pytest.mark.skipif(os.name != "posix", reason="file modes and umask are POSIX")
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_saved_files_respect_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        save_branchy_model(tmp_path / "m")
    finally:
        os.umask(old)
    for name in os.listdir(tmp_path):
        assert os.stat(tmp_path / name).st_mode & 0o777 == mode, name
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
