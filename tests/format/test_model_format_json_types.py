"""Every field of a model's JSON has its type checked before use: each position of a model with a
tensor array, a while, a cond and a dict output, replaced by a value of the wrong JSON type (a
marker object, an unhashable list), loads or raises a ModelFormatError naming the file, never
a TypeError / KeyError."""
import copy
import json
import os

import pytest

import dy2st as paddle
from dy2st.format import ModelFormatError
from dy2st.static import InputSpec
from tests.support import json_paths

# Values that hashing, comparing or indexing would trip on: a marker object (a dict) and an
# unhashable list. (test_model_format_fuzz runs the models that load; this sweep only loads.)
WRONG = [{"$float": "nan"}, [None]]


def f(x, n):
    vals = []
    i = paddle.zeros([], "int64")
    while i < n:
        vals.append(x * paddle.cast(i, "float32"))
        i = i + 1
    if x.sum() > 0:
        y = vals[0] + 1.0
    else:
        y = vals[0] - 1.0
    return {"y": y, "k": (y.mean(), 3)}


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    d = tmp_path_factory.mktemp("types")
    st = paddle.jit.to_static(f, input_spec=[InputSpec([None, 4], "float32", "x"),
                                             InputSpec([], "int64", "n")])
    paddle.jit.save(st, str(d / "m"))
    with open(d / "m.json", encoding="utf-8") as fh:
        doc = json.load(fh)
    assert doc["parameters"] == []                  # the npz is the same for every edit
    return d, doc


def test_the_array_element_dtype_position(doc):
    """The reviewed case: a marker object where an array variable's element dtype belongs."""
    d, pristine = doc
    edited = copy.deepcopy(pristine)
    (var,) = [v for b in edited["program"]["blocks"] for v in b["vars"] if v["elem"]][:1]
    var["elem"][1] = {"$float": "nan"}
    with open(d / "m.json", "w", encoding="utf-8") as fh:
        json.dump(edited, fh)
    with pytest.raises(ModelFormatError, match="unknown dtype"):
        paddle.jit.load(str(d / "m"))


@pytest.mark.parametrize("key, value", [
    ("keys", [{"$tuple": [[1]]}, "k"]),
    ("keys", [{"$ndarray": {"dtype": {}, "shape": [1], "data": [1]}}, "k"]),
])
def test_unhashable_output_dict_keys(doc, key, value):
    d, pristine = doc
    edited = copy.deepcopy(pristine)
    edited["outputs"]["tree"][key] = value
    with open(d / "m.json", "w", encoding="utf-8") as fh:
        json.dump(edited, fh)
    with pytest.raises(ModelFormatError, match="outputs"):
        paddle.jit.load(str(d / "m"))


def test_every_position_with_every_wrong_type(doc):
    d, pristine = doc
    paths = [p for p in json_paths(pristine) if p]
    outcomes = {"loaded": 0, "refused": 0}
    # one working copy edited in place and restored after each load: a deepcopy of the whole
    # document per edit, and json.dump's pure-Python encoder, were most of this test's time
    edited = copy.deepcopy(pristine)
    for path in paths:
        target = edited
        for k in path[:-1]:
            target = target[k]
        original = target[path[-1]]
        for value in WRONG:
            target[path[-1]] = copy.deepcopy(value)
            with open(d / "m.json", "w", encoding="utf-8") as fh:
                fh.write(json.dumps(edited))
            target[path[-1]] = original
            what = f"{'/'.join(map(str, path))} = {value!r}"
            try:
                layer = paddle.jit.load(str(d / "m"))
            except ModelFormatError as e:
                assert str(d / "m.json") in str(e), f"{what}: {e}"
                outcomes["refused"] += 1
                continue
            except Exception as e:  # noqa: BLE001 - the failure this test is about
                raise AssertionError(f"{what}: {type(e).__name__}: {e}") from e
            outcomes["loaded"] += 1
    assert outcomes["refused"] > 0.9 * len(paths) * len(WRONG), outcomes
    assert os.path.exists(d / "m.json")
