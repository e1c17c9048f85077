"""Load-time fuzzing: truncated files, flipped bits and edited fields (huge, negative and
wrong-typed values) either load or raise a ModelFormatError naming the file, never another
exception, a hang or a large allocation. Seeded, so every run tries the same cases."""
import copy
import hashlib
import json
import os
import time
import tracemalloc

import numpy as np
import pytest

import dy2st as paddle
from dy2st.format import ModelFormatError
from dy2st.jit.translated_layer import InputMismatchError
from tests.support import json_paths, save_branchy_model

SEED = 2024
PER_LOAD_SECONDS = 5.0              # a hang bound, far above a normal load (milliseconds)
PER_LOAD_BYTES = 64 << 20           # a huge-allocation bound, far above this model's size
# What a checked model may raise when run on an input (an index out of range for this batch,
# a failed assert); the errors of a half-checked model (a missing attr key, a wrong type, an
# unbound name, an overflow, a huge allocation) are not among them.
RUN_ERRORS = (IndexError, ValueError, AssertionError, ZeroDivisionError, FloatingPointError)
BAD_RUN_ERRORS = (KeyError, TypeError, AttributeError, NameError, OverflowError, MemoryError,
                  RecursionError, SystemError)
X = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4)

WEIRD = [2 ** 40, 2 ** 63, 2 ** 64, -1, -2 ** 40, 10 ** 30, 0, 1.5, -0.0, True, False, None, "",
         "x", "arr_0", "float64", "t_0", [], {}, [2 ** 40], [-1, -1], [None], {"$tuple": [1]},
         {"$float": "inf"}, {"$ndarray": {"dtype": "float32", "shape": [2 ** 40], "data": []}},
         {"k": "int", "v": 2 ** 40}, {"kind": "leaf"}]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    save_branchy_model(d / "m")
    with open(d / "m.json", "rb") as f:
        text = f.read()
    npz_name = json.loads(text)["parameters_file"]["file"]
    with open(d / npz_name, "rb") as f:
        npz = f.read()
    return text, npz_name, npz


class Case:
    """One mutated model written to its own directory, loaded under the bounds."""

    def __init__(self, tmp_path, pristine):
        self.dir = tmp_path
        self.text, self.npz_name, self.npz = pristine
        self.n = 0
        self.outcomes = {"loaded": 0, "refused": 0}

    def load(self, text: bytes, npz: bytes, what: str) -> None:
        self.n += 1
        d = self.dir / str(self.n)
        d.mkdir()
        prefix = str(d / "m")
        with open(prefix + ".json", "wb") as f:
            f.write(text)
        with open(os.path.join(d, self.npz_name), "wb") as f:
            f.write(npz)
        tracemalloc.start()
        start = time.perf_counter()
        try:
            base = tracemalloc.get_traced_memory()[0]
            try:
                layer = paddle.jit.load(prefix)
            except ModelFormatError as e:
                assert prefix in str(e), f"{what}: the message does not name the file: {e}"
                self.outcomes["refused"] += 1
            else:
                self._run(layer, what)
                self.outcomes["loaded"] += 1
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        elapsed = time.perf_counter() - start
        assert elapsed < PER_LOAD_SECONDS, f"{what}: loading took {elapsed:.1f} s"
        assert peak < PER_LOAD_BYTES, f"{what}: loading allocated {peak} bytes"


    @staticmethod
    def _run(layer, what: str) -> None:
        """A model that loaded runs on X, or fails as a sound model can on some input."""
        try:
            out = layer(X)
        except InputMismatchError:
            return                      # an edited input spec that X does not fit
        except BAD_RUN_ERRORS as e:
            raise AssertionError(f"{what}: loaded, then failed when run: {type(e).__name__}: "
                                 f"{e}") from e
        except RUN_ERRORS:
            return
        assert isinstance(out, paddle.Tensor), what


def _reseal(text: bytes, npz: bytes) -> bytes:
    """The JSON with the checksum of this npz, so that the npz's own checks are reached."""
    doc = json.loads(text)
    doc["parameters_file"]["sha256"] = hashlib.sha256(npz).hexdigest()
    return json.dumps(doc).encode()


def _flip(data: bytes, rng, bits: int) -> bytes:
    out = bytearray(data)
    for _ in range(bits):
        i = int(rng.integers(len(out)))
        out[i] ^= 1 << int(rng.integers(8))
    return bytes(out)


def test_truncations(tmp_path, pristine):
    case = Case(tmp_path, pristine)
    rng = np.random.default_rng(SEED)
    text, _, npz = pristine
    for cut in sorted(set(rng.integers(0, len(text), 40).tolist())) + [0, len(text) - 2]:
        case.load(text[:cut], npz, f"json cut at {cut}")
    for cut in sorted(set(rng.integers(0, len(npz), 30).tolist())) + [0, len(npz) - 1]:
        case.load(text, npz[:cut], f"npz cut at {cut}")
        case.load(_reseal(text, npz[:cut]), npz[:cut], f"resealed npz cut at {cut}")
    assert case.outcomes["refused"] == case.n


def test_bit_flips(tmp_path, pristine):
    case = Case(tmp_path, pristine)
    rng = np.random.default_rng(SEED + 1)
    text, _, npz = pristine
    for i in range(80):
        case.load(_flip(text, rng, 1 + i % 3), npz, f"json flip #{i}")
    for i in range(80):
        bad = _flip(npz, rng, 1 + i % 3)
        case.load(_reseal(text, bad), bad, f"resealed npz flip #{i}")
    # a flipped bit in the npz's array data is a sound model with other weights
    assert case.outcomes["refused"] > 0 and case.outcomes["loaded"] > 0


def test_field_edits(tmp_path, pristine):
    case = Case(tmp_path, pristine)
    rng = np.random.default_rng(SEED + 2)
    text, _, npz = pristine
    doc = json.loads(text)
    paths = [p for p in json_paths(doc) if p]
    for i in range(400):
        path = paths[int(rng.integers(len(paths)))]
        value = WEIRD[int(rng.integers(len(WEIRD)))]
        # the one document edited in place and restored: a deepcopy of it per edit was a
        # third of this test's time
        target = doc
        for k in path[:-1]:
            target = target[k]
        original = target[path[-1]]
        target[path[-1]] = copy.deepcopy(value)
        edited = json.dumps(doc).encode()
        target[path[-1]] = original
        case.load(edited, npz, f"{'/'.join(map(str, path))} = {value!r}")
    assert case.outcomes["refused"] > 200


def test_deep_nesting_and_huge_numbers(tmp_path, pristine):
    case = Case(tmp_path, pristine)
    text, _, npz = pristine
    doc = json.loads(text)
    for value in ["[" * 100000 + "]" * 100000, "1" * 100000, "1e999", "-1e999"]:
        marker = "__FUZZ__"
        edited = copy.deepcopy(doc)
        edited["extra"] = marker
        case.load(json.dumps(edited).replace(f'"{marker}"', value).encode(), npz, value[:20])
    assert case.outcomes["refused"] == case.n
