"""The saved-model format: a versioned JSON graph plus an .npz of parameters (docs/format.md).

Loading never runs code and never unpickles: every field is checked before objects are built."""
from __future__ import annotations

import hashlib
import inspect
import io
import json
import keyword
import math
import os
import re
import tempfile
import zipfile
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import numpy as np

from ..runtime.dtype import DTYPES
from ..runtime.origin import Origin
from ..runtime.program import Block, Operator, Program
from ..runtime.pytree import LEAF
from ..runtime.tensor import Parameter, Tensor
from ..static.input_spec import InputSpec
from .concrete import ConcreteProgram

FORMAT_NAME = "dy2st.model"
FORMAT_VERSION = 1
CONTROL_FLOW_ATTRS = {"cond": ("true_block", "false_block"), "while": ("cond_block", "body_block")}
_MAX_NAME = 256


class ModelFormatError(ValueError):
    """A model file is missing, foreign, corrupt, too new, or disagrees with itself."""


class LoadedModel(NamedTuple):
    """Everything read from a model: the program plus the header fields and file names."""
    concrete: ConcreteProgram
    format_version: int
    dy2st_version: str
    extra: Dict[str, Any]
    json_path: str
    npz_path: str


def _dy2st_version() -> str:
    import dy2st
    return str(getattr(dy2st, "__version__", "unknown"))


def _fail(where: str, problem: str) -> ModelFormatError:
    return ModelFormatError(f"{where}: {problem}")


# ----------------------------------------------------------------------------- JSON values
# JSON has no tuples, non-finite floats or arrays; they are stored as one-key marker objects so
# that a loaded attr is the same Python value the kernel saw when the model was traced.
def encode_value(v: Any, where: str) -> Any:
    if v is None or isinstance(v, (bool, np.bool_)):
        return None if v is None else bool(v)
    if isinstance(v, str):
        return str(v)                                  # DType is a str subclass
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return f if math.isfinite(f) else {"$float": repr(f)}
    if isinstance(v, tuple):
        return {"$tuple": [encode_value(x, where) for x in v]}
    if isinstance(v, list):
        return [encode_value(x, where) for x in v]
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str) or k.startswith("$"):
                raise _fail(where, f"dict key {k!r} cannot be stored (keys must be strings not "
                                   "starting with '$')")
            out[k] = encode_value(x, where)
        return out
    if isinstance(v, np.ndarray) and v.dtype.name in DTYPES:
        return {"$ndarray": {"dtype": v.dtype.name, "shape": list(v.shape),
                             "data": encode_value(v.reshape(-1).tolist(), where)}}
    raise _fail(where, f"a value of type {type(v).__name__} ({str(v)[:60]}) cannot be stored in "
                       "the JSON format")


def decode_value(v: Any, where: str) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, list):
        return [decode_value(x, where) for x in v]
    if not isinstance(v, dict):
        raise _fail(where, f"unexpected JSON value {v!r}")
    marked = [k for k in v if k.startswith("$")]
    if not marked:
        return {k: decode_value(x, where) for k, x in v.items()}
    if len(v) != 1:
        raise _fail(where, f"a marker object {marked[0]!r} must have exactly one key")
    key, inner = next(iter(v.items()))
    if key == "$tuple" and isinstance(inner, list):
        return tuple(decode_value(x, where) for x in inner)
    if key == "$float" and inner in ("nan", "inf", "-inf"):
        return float(inner)
    if key == "$ndarray" and isinstance(inner, dict):
        return _decode_ndarray(inner, where)
    raise _fail(where, f"unknown or malformed marker object {key!r}")


def _decode_ndarray(d: dict, where: str) -> np.ndarray:
    dtype, shape = d.get("dtype"), _int_list(d.get("shape"), where + ".$ndarray.shape", min_=0)
    if dtype not in DTYPES or set(d) != {"dtype", "shape", "data"} or not isinstance(d["data"], list):
        raise _fail(where, "malformed $ndarray object")
    data = decode_value(d["data"], where)
    if len(data) != int(np.prod(shape, dtype=np.int64)) or any(
            not isinstance(x, (bool, int, float)) for x in data):
        raise _fail(where, "$ndarray data does not fit its shape")
    return np.array(data, dtype=DTYPES[dtype].np).reshape(shape)


# ----------------------------------------------------------------------------- small checks
def _int_list(v: Any, where: str, min_: int = -1, nullable: bool = False) -> List[Any]:
    if not isinstance(v, list):
        raise _fail(where, f"expected a list of ints, got {v!r}")
    for d in v:
        if d is None and nullable:
            continue
        if type(d) is not int or d < min_:
            raise _fail(where, f"expected ints >= {min_}, got {d!r}")
    return v


def _name(v: Any, where: str) -> str:
    """A variable / parameter name: a plain, printable, bounded string."""
    if not isinstance(v, str) or not v or len(v) > _MAX_NAME or not v.isprintable():
        raise _fail(where, f"invalid name {str(v)[:80]!r} (names are non-empty printable strings "
                           f"of at most {_MAX_NAME} characters)")
    return v


def _dtype(v: Any, where: str) -> str:
    if v not in DTYPES:
        raise _fail(where, f"unknown dtype {v!r}; expected one of {', '.join(DTYPES)}")
    return DTYPES[v]


def _get(d: Any, key: str, types: Any, where: str) -> Any:
    if not isinstance(d, dict):
        raise _fail(where, f"expected a JSON object, got {type(d).__name__}")
    if key not in d:
        raise _fail(where, f"missing field {key!r}")
    v = d[key]
    if not isinstance(v, types) or (isinstance(v, bool) and bool not in _as_tuple(types)):
        raise _fail(f"{where}.{key}", f"expected {_type_names(types)}, got {type(v).__name__}")
    return v


def _as_tuple(types: Any) -> tuple:
    return types if isinstance(types, tuple) else (types,)


def _type_names(types: Any) -> str:
    return " or ".join(t.__name__ for t in _as_tuple(types))


# ----------------------------------------------------------------------------- program -> JSON
def _program_doc(program: Program) -> Dict[str, Any]:
    blocks = []
    for b in program.blocks:
        where = f"block {b.idx}"
        vars_ = [{"name": v.name, "shape": list(v._shape), "dtype": str(v.dtype), "kind": v.kind,
                  "elem": None if v.elem is None else [list(v.elem[0]), str(v.elem[1])],
                  "persistable": bool(v.persistable)} for v in b.vars.values()]
        ops = [{"type": op.type, "inputs": list(op.inputs), "outputs": list(op.outputs),
                "attrs": {k: encode_value(a, f"{where}: op {op.type}: attr {k!r}")
                          for k, a in op.attrs.items()},
                "origin": None if op.origin is None else op.origin.to_json()} for op in b.ops]
        blocks.append({"idx": b.idx, "parent": b.parent_idx, "params": list(b.params),
                       "results": list(b.results), "vars": vars_, "ops": ops})
    return {"blocks": blocks, "feed_names": list(program.feed_names),
            "fetch_names": list(program.fetch_names)}


def _tree_doc(tree: Any, where: str) -> Any:
    if tree is LEAF:
        return {"kind": "leaf"}
    kind, items = tree
    if kind == "dict":
        return {"kind": "dict", "keys": [encode_value(k, where) for k, _ in items],
                "items": [_tree_doc(s, where) for _, s in items]}
    return {"kind": kind, "items": [_tree_doc(s, where) for s in items]}


def _leaf_doc(leaf: Tuple[str, Any], where: str) -> Dict[str, Any]:
    kind, value = leaf
    if kind == "var":
        return {"var": int(value)}
    return {"const": encode_value(value, where)}


def dumps(v: Any, indent: str = "") -> str:
    """JSON text where a container that fits in one short line stays on one line (diff-friendly)."""
    flat = json.dumps(v, allow_nan=False, separators=(", ", ": "))
    if len(flat) + len(indent) <= 120 or not isinstance(v, (list, dict)) or not v:
        return flat
    inner = indent + " "
    if isinstance(v, list):
        body = [inner + dumps(x, inner) for x in v]
        return "[\n" + ",\n".join(body) + "\n" + indent + "]"
    body = [f"{inner}{json.dumps(k)}: {dumps(x, inner)}" for k, x in v.items()]
    return "{\n" + ",\n".join(body) + "\n" + indent + "}"


def concrete_doc(concrete: ConcreteProgram, params: List[Dict[str, Any]],
                 extra: Optional[dict]) -> Dict[str, Any]:
    program = concrete.program
    if len(concrete.inputs) != len(program.feed_names):
        raise ModelFormatError(f"the program has {len(program.feed_names)} feeds but "
                               f"{len(concrete.inputs)} input specs")
    inputs = [{"name": s.name, "var": feed, "shape": list(s.shape), "dtype": str(s.dtype)}
              for s, feed in zip(concrete.inputs, program.feed_names)]
    return {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
            "dy2st_version": _dy2st_version(), "inputs": inputs,
            "outputs": {"tree": _tree_doc(concrete.output_tree, "output structure"),
                        "leaves": [_leaf_doc(x, "output constant") for x in concrete.output_leaves]},
            "parameters": params, "program": _program_doc(program),
            "extra": encode_value(dict(extra or {}), "extra")}


# ----------------------------------------------------------------------------- JSON -> program
def _build_block(program: Program, doc: Any, idx: int, where: str) -> Block:
    parent = _get(doc, "parent", int, where)
    if _get(doc, "idx", int, where) != idx or (idx == 0) != (parent == -1) or not -1 <= parent < idx:
        raise _fail(where, f"bad block index {doc.get('idx')!r} / parent {parent!r}")
    block = program.blocks[0] if idx == 0 else Block(program, idx, parent)
    for i, vd in enumerate(_get(doc, "vars", list, where)):
        vw = f"{where}.vars[{i}]"
        name = _name(_get(vd, "name", str, vw), vw)
        if name in block.vars:
            raise _fail(vw, f"variable {name!r} is declared twice")
        kind = _get(vd, "kind", str, vw)
        if kind not in ("dense", "array"):
            raise _fail(vw, f"unknown variable kind {kind!r}")
        elem = vd.get("elem")
        if elem is not None:
            if not (isinstance(elem, list) and len(elem) == 2):
                raise _fail(vw, "elem must be [shape, dtype] or null")
            elem = (tuple(_int_list(elem[0], vw + ".elem")), str(_dtype(elem[1], vw + ".elem")))
        block.create_var(_int_list(_get(vd, "shape", list, vw), vw + ".shape"),
                         _dtype(_get(vd, "dtype", str, vw), vw), kind=kind, elem=elem,
                         persistable=_get(vd, "persistable", bool, vw), name=name)
    block.params = [_name(p, where + ".params") for p in _get(doc, "params", list, where)]
    block.results = [_name(r, where + ".results") for r in _get(doc, "results", list, where)]
    for i, od in enumerate(_get(doc, "ops", list, where)):
        block.ops.append(_build_op(od, f"{where}.ops[{i}]"))
    return block


def _build_op(od: Any, where: str) -> Operator:
    from ..runtime.registry import OPS
    type_ = _get(od, "type", str, where)
    if type_ not in OPS:
        raise _fail(where, f"unknown op type {type_[:80]!r}: this dy2st ({_dy2st_version()}) has no "
                           "such op (saved by a newer or extended dy2st?)")
    ins = [_name(n, where + ".inputs") for n in _get(od, "inputs", list, where)]
    outs = [_name(n, where + ".outputs") for n in _get(od, "outputs", list, where)]
    attrs = {}
    for k, v in _get(od, "attrs", dict, where).items():
        # attr names become keyword arguments in the executor's generated code
        if not k.isidentifier() or keyword.iskeyword(k):
            raise _fail(where, f"op {type_}: attr name {k[:80]!r} is not a Python identifier")
        attrs[k] = decode_value(v, f"{where}.attrs.{k}")
    origin = od.get("origin")
    if origin is not None:
        origin = _origin(origin, where + ".origin")
    return Operator(type_, ins, outs, attrs, origin)


def _origin(d: Any, where: str) -> Origin:
    _get(d, "file", str, where)
    _get(d, "line", int, where)
    for k, t in (("function", str), ("source", str), ("col", int), ("end_col", int)):
        if k in d:
            _get(d, k, t, where)
    return Origin.from_json(d)


def _check_block(program: Program, block: Block, owner: Dict[int, int], where: str) -> None:
    """Every name is declared, defined before use, and control flow fits its sub-blocks."""
    from ..runtime.registry import OPS
    defined = set(block.params)
    if block.idx == 0:
        defined |= set(program.feed_names) | set(program.persistables)
    for name in list(block.params) + list(block.results) + sorted(defined):
        if name not in block.vars:
            raise _fail(where, f"{name!r} is used but not declared in block {block.idx}")
    for i, op in enumerate(block.ops):
        ow = f"{where}.ops[{i}] ({op.type})"
        for n in op.inputs:
            if n not in block.vars:
                raise _fail(ow, f"input {n!r} is not a variable of block {block.idx}")
            if n not in defined:
                raise _fail(ow, f"input {n!r} is used before it is defined")
        for n in op.outputs:
            if n not in block.vars:
                raise _fail(ow, f"output {n!r} is not a variable of block {block.idx}")
        _check_op_shape(program, block, op, owner, ow)
        if op.type not in CONTROL_FLOW_ATTRS:
            _check_signature(OPS[op.type].kernel, op, ow)
        defined.update(op.outputs)
    for n in block.results:
        if n not in defined:
            raise _fail(where, f"result {n!r} is never defined")


def _check_op_shape(program: Program, block: Block, op: Operator, owner: Dict[int, int],
                    where: str) -> None:
    keys = CONTROL_FLOW_ATTRS.get(op.type, ())
    stray = [k for k in op.attrs if k.endswith("_block") and k not in keys]
    if stray or any(k not in op.attrs for k in keys):
        raise _fail(where, f"sub-block attrs {sorted(k for k in op.attrs if k.endswith('_block'))} "
                           f"do not fit a {op.type!r} op (expected {list(keys)})")
    subs = []
    for k in keys:
        idx = op.attrs[k]
        if type(idx) is not int or not 0 < idx < len(program.blocks):
            raise _fail(where, f"{k}={idx!r} is not a sub-block index")
        sub = program.blocks[idx]
        if sub.parent_idx != block.idx or idx in owner:
            raise _fail(where, f"{k}={idx} is not a child block of block {block.idx} owned by this op")
        owner[idx] = block.idx
        subs.append(sub)
    if op.type == "cond":
        ok = len(op.inputs) >= 1 and all(len(s.params) == len(op.inputs) - 1 and
                                         len(s.results) == len(op.outputs) for s in subs)
    elif op.type == "while":
        n = op.attrs.get("n_loop_vars")
        c, b = subs
        ok = (type(n) is int and 0 <= n <= len(op.inputs) and len(op.outputs) == n and
              len(c.params) == len(b.params) == len(op.inputs) and len(c.results) == 1 and
              len(b.results) == n)
    else:
        return
    if not ok:
        raise _fail(where, f"the {op.type} op's inputs/outputs do not match its sub-blocks' "
                           "params/results")


def _check_signature(kernel: Any, op: Operator, where: str) -> None:
    try:
        sig = inspect.signature(kernel)
    except (TypeError, ValueError):
        return                          # numpy ufuncs have no signature; they take no attrs
    try:
        sig.bind(*([None] * len(op.inputs)), **op.attrs)
    except TypeError as e:
        raise _fail(where, f"the inputs/attrs {sorted(op.attrs)} do not fit the {op.type} kernel "
                           f"({e})") from None


def _build_tree(d: Any, where: str) -> Any:
    kind = _get(d, "kind", str, where)
    if kind == "leaf":
        return LEAF
    if kind not in ("tuple", "list", "dict"):
        raise _fail(where, f"unknown structure kind {kind!r}")
    items = tuple(_build_tree(s, where) for s in _get(d, "items", list, where))
    if kind != "dict":
        return (kind, items)
    keys = [decode_value(k, where) for k in _get(d, "keys", list, where)]
    if len(keys) != len(items) or any(isinstance(k, (list, dict)) for k in keys):
        raise _fail(where, "dict keys do not fit the items")
    return ("dict", tuple(zip(keys, items)))


def _count_leaves(tree: Any) -> int:
    return 1 if tree is LEAF else sum(_count_leaves(s if tree[0] != "dict" else s[1])
                                      for s in tree[1])


# ----------------------------------------------------------------------------- whole document
def _parse_json(raw: bytes, where: str) -> Any:
    if raw.startswith(b"\x80"):
        raise _fail(where, "is a Python pickle, not a dy2st model; refusing to load it (unpickling "
                           "can run arbitrary code)")
    if raw.startswith(b"PK\x03\x04") or raw.startswith(b"\x93NUMPY"):
        raise _fail(where, "is a numpy/zip archive, not the JSON graph of a dy2st model")

    def pairs(items: list) -> dict:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate key in an object")
        return dict(items)

    def constant(name: str) -> Any:
        raise ValueError(f"non-standard JSON constant {name}")

    try:
        return json.loads(raw.decode("utf-8"), object_pairs_hook=pairs, parse_constant=constant)
    except UnicodeDecodeError:
        raise _fail(where, "is not UTF-8 text, so not a dy2st model graph") from None
    except json.JSONDecodeError as e:
        raise _fail(where, f"is not valid JSON (truncated or corrupt?): {e}") from None
    except (ValueError, RecursionError) as e:
        raise _fail(where, f"is not valid JSON: {e}") from None


def check_header(doc: Any, where: str) -> int:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise _fail(where, f"is not a dy2st model (format is {found!r}, expected {FORMAT_NAME!r})")
    version = doc.get("format_version")
    if type(version) is not int or version < 1:
        raise _fail(where, f"has an invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise _fail(where, f"uses model format version {version} (written by dy2st "
                           f"{doc.get('dy2st_version', '?')}), but this dy2st ({_dy2st_version()}) "
                           f"reads format versions up to {FORMAT_VERSION}; upgrade dy2st to load it")
    return version


def build_concrete(doc: Dict[str, Any], values: Dict[str, np.ndarray], where: str) -> ConcreteProgram:
    """The ConcreteProgram described by `doc`, with parameter values already checked."""
    _ensure_ops_registered()
    pdoc = _get(doc, "program", dict, where)
    program = Program()
    block_docs = _get(pdoc, "blocks", list, where + ".program")
    if not block_docs:
        raise _fail(where, "the program has no blocks")
    for i, bd in enumerate(block_docs):
        block = _build_block(program, bd, i, f"{where}: program.blocks[{i}]")
        if i:
            program.blocks.append(block)
    g = program.global_block()
    program.feed_names = [_name(n, where + ": feed_names") for n in _get(pdoc, "feed_names", list, where)]
    program.fetch_names = [_name(n, where + ": fetch_names") for n in _get(pdoc, "fetch_names", list, where)]
    for n in program.feed_names + program.fetch_names:
        if n not in g.vars:
            raise _fail(where, f"feed/fetch {n!r} is not a variable of the global block")
    for pd in _get(doc, "parameters", list, where):
        name = pd["name"]
        var = g.vars.get(name)
        if var is None or not var.persistable or var.kind != "dense":
            raise _fail(where, f"parameter {name!r} is not a persistable variable of the global block")
        arr = values[name]
        if tuple(arr.shape) != var._shape or arr.dtype.name != str(var.dtype):
            raise _fail(where, f"parameter {name!r} is {arr.dtype.name}{list(arr.shape)} in the "
                               f"parameters file but {var.dtype}{list(var._shape)} in the graph")
        trainable = bool(pd.get("trainable", False))
        program.persistables[name] = (Parameter(arr, name, trainable) if trainable else
                                      Tensor(arr, name=name, persistable=True))
    owner: Dict[int, int] = {}
    for b in program.blocks:
        _check_block(program, b, owner, f"{where}: program.blocks[{b.idx}]")
    if len(owner) != len(program.blocks) - 1:
        raise _fail(where, "some sub-blocks are not owned by any control-flow op")
    inputs = _build_inputs(doc, program, where)
    out = _get(doc, "outputs", dict, where)
    tree = _build_tree(_get(out, "tree", dict, where + ".outputs"), where + ": outputs.tree")
    leaves = []
    for i, ld in enumerate(_get(out, "leaves", list, where + ".outputs")):
        lw = f"{where}: outputs.leaves[{i}]"
        if isinstance(ld, dict) and set(ld) == {"var"} and type(ld["var"]) is int \
                and 0 <= ld["var"] < len(program.fetch_names):
            leaves.append(("var", ld["var"]))
        elif isinstance(ld, dict) and set(ld) == {"const"}:
            leaves.append(("const", decode_value(ld["const"], lw)))
        else:
            raise _fail(lw, f"expected {{'var': fetch index}} or {{'const': value}}, got {ld!r}")
    if len(leaves) != _count_leaves(tree):
        raise _fail(where, f"the output structure has {_count_leaves(tree)} leaves but "
                           f"{len(leaves)} are described")
    return ConcreteProgram(program, inputs, tree, leaves)


def _build_inputs(doc: Dict[str, Any], program: Program, where: str) -> List[InputSpec]:
    specs = []
    docs = _get(doc, "inputs", list, where)
    if len(docs) != len(program.feed_names):
        raise _fail(where, f"{len(docs)} input specs for {len(program.feed_names)} feeds")
    for i, (sd, feed) in enumerate(zip(docs, program.feed_names)):
        sw = f"{where}: inputs[{i}]"
        name = sd.get("name") if isinstance(sd, dict) else None
        if name is not None:
            _name(name, sw + ".name")
        shape = _int_list(_get(sd, "shape", list, sw), sw + ".shape", min_=0, nullable=True)
        spec = InputSpec(shape, _dtype(_get(sd, "dtype", str, sw), sw), name)
        var = program.global_block().vars[feed]
        if _get(sd, "var", str, sw) != feed or var.dtype != spec.dtype or len(var._shape) != len(
                spec.shape) or any(a is not None and b >= 0 and a != b for a, b in zip(spec.shape, var._shape)):
            raise _fail(sw, f"spec {spec.text()} does not fit feed variable {feed!r} "
                            f"({var.dtype}{list(var._shape)})")
        specs.append(spec)
    return specs


def _ensure_ops_registered() -> None:
    """Import the modules that declare ops, so a fresh process knows every op type."""
    import importlib
    import dy2st  # noqa: F401 - registers the runtime ops
    for mod in ("dy2st.nn", "dy2st.nn.functional"):
        try:
            importlib.import_module(mod)
        except ImportError:
            pass


# ----------------------------------------------------------------------------- parameters file
def npz_bytes(values: List[np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, *values)          # positional: keys arr_0, arr_1, ... named by the JSON table
    return buf.getvalue()


def read_npz(path: str, raw: bytes, sha256: str, table: List[Any], where: str) -> Dict[str, np.ndarray]:
    """{parameter name: array} from the npz bytes, checked against the JSON parameter table."""
    if raw.startswith(b"\x80"):
        raise _fail(path, "is a Python pickle, not an .npz of parameters; refusing to load it "
                          "(unpickling can run arbitrary code)")
    if not raw.startswith(b"PK\x03\x04") and not raw.startswith(b"PK\x05\x06"):
        raise _fail(path, "is not an .npz archive (foreign or corrupt file)")
    if hashlib.sha256(raw).hexdigest() != sha256:
        raise _fail(path, f"does not match the checksum recorded in {where} (truncated, corrupt, "
                          "or from another save)")
    entries = {}
    for i, pd in enumerate(table):
        pw = f"{where}: parameters[{i}]"
        name = _name(_get(pd, "name", str, pw), pw)
        if name in entries:
            raise _fail(pw, f"parameter {name!r} is listed twice")
        entries[name] = (_get(pd, "key", str, pw), _int_list(_get(pd, "shape", list, pw), pw, 0),
                         _dtype(_get(pd, "dtype", str, pw), pw))
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            keys = set(npz.files)
            want = {k for k, _, _ in entries.values()}
            if keys - want:
                raise _fail(path, f"holds arrays {sorted(keys - want)} that {where} does not list")
            if want - keys:
                raise _fail(path, f"lacks the parameter arrays {sorted(want - keys)} listed in {where}")
            values = {}
            for name, (key, shape, dtype) in entries.items():
                arr = npz[key]
                if not isinstance(arr, np.ndarray) or arr.dtype.name not in DTYPES:
                    raise _fail(path, f"array {key!r} (parameter {name!r}) is not a numeric array")
                if list(arr.shape) != shape or arr.dtype.name != dtype:
                    raise _fail(path, f"parameter {name!r} is {arr.dtype.name}{list(arr.shape)} but "
                                      f"{where} says {dtype}{shape}")
                values[name] = arr
            return values
    except ModelFormatError:
        raise
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as e:
        raise _fail(path, f"cannot be read as an .npz of parameters ({e})") from None


# ----------------------------------------------------------------------------- save / load
def _npz_name(prefix: str, sha256: str) -> str:
    return f"{os.path.basename(prefix)}.{sha256[:16]}.npz"


def _write_atomic(path: str, data: bytes) -> None:
    """Write data to a temp file next to path, fsync it, then rename it over path."""
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp",
                               dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass                            # some file systems cannot fsync a directory
    finally:
        os.close(fd)


def _old_npz(json_path: str, prefix: str) -> Optional[str]:
    """The parameters file the existing model (if any) refers to, when it is one of ours."""
    try:
        with open(json_path, "rb") as f:
            name = json.loads(f.read().decode("utf-8"))["parameters_file"]["file"]
    except Exception:  # noqa: BLE001 - no usable old model: nothing to clean up
        return None
    pattern = re.escape(os.path.basename(prefix)) + r"\.[0-9a-f]{16}\.npz"
    return name if isinstance(name, str) and re.fullmatch(pattern, name) else None


def save_concrete(concrete: ConcreteProgram, path: str, extra: Optional[dict] = None) -> None:
    """Write `path.json` (the graph) and `path.<sha>.npz` (the parameters) atomically.

    The npz is written first under a name derived from its content; the JSON, which names it, is
    renamed into place last. A save interrupted at any point leaves the previous model loadable."""
    path = os.fspath(path)
    if not os.path.basename(path):
        raise ModelFormatError(f"{path!r}: the model path must end with a file name prefix")
    program = concrete.program
    g = program.global_block()
    names = list(program.persistables)
    values = []
    params = []
    for i, name in enumerate(names):
        t = program.persistables[name]
        var = g.vars.get(name)
        arr = np.asarray(t._value if isinstance(t, Tensor) else t)
        if var is None or tuple(arr.shape) != var._shape or arr.dtype.name != str(var.dtype):
            raise ModelFormatError(f"parameter {name!r}: its value {arr.dtype}{list(arr.shape)} "
                                   "does not fit the graph variable")
        values.append(arr)
        params.append({"name": name, "key": f"arr_{i}", "shape": list(arr.shape),
                       "dtype": arr.dtype.name, "trainable": bool(getattr(t, "trainable", False))})
    blob = npz_bytes(values)
    sha = hashlib.sha256(blob).hexdigest()
    doc = concrete_doc(concrete, params, extra)
    doc["parameters_file"] = {"file": _npz_name(path, sha), "sha256": sha}
    text = (dumps(doc) + "\n").encode("utf-8")
    # Refuse to write what cannot be read back (an unknown op, a dangling name, ...).
    build_concrete(_parse_json(text, path + ".json"), dict(zip(names, values)), path + ".json")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    json_path = path + ".json"
    npz_path = os.path.join(os.path.dirname(path), doc["parameters_file"]["file"])
    old = _old_npz(json_path, path)
    _write_atomic(npz_path, blob)
    _fsync_dir(npz_path)                     # the npz's name must be durable before the JSON's
    try:
        _write_atomic(json_path, text)       # the commit point
    except BaseException:
        if old != os.path.basename(npz_path) and os.path.exists(npz_path):
            os.unlink(npz_path)              # the old model does not use it
        raise
    _fsync_dir(json_path)
    if old is not None and old != os.path.basename(npz_path):
        try:
            os.unlink(os.path.join(os.path.dirname(path), old))
        except OSError:
            pass


def model_prefix(path: str) -> str:
    """The model's path prefix (a trailing `.json` is accepted and dropped)."""
    path = os.fspath(path)
    return path[:-5] if path.endswith(".json") and os.path.isfile(path) else path


def read_model(path: str) -> LoadedModel:
    """Read and check a saved model; nothing in the files is executed or unpickled."""
    prefix = model_prefix(path)
    json_path = prefix + ".json"
    if not os.path.isfile(json_path):
        hint = ""
        if os.path.isfile(prefix):
            with open(prefix, "rb") as f:
                kind = "a Python pickle (not loaded)" if f.read(1) == b"\x80" else "some other file"
            hint = f"; {prefix!r} is {kind}, but a dy2st model is the pair PATH.json + PATH.<hash>.npz"
        raise ModelFormatError(f"{json_path}: no such model file{hint}")
    with open(json_path, "rb") as f:
        doc = _parse_json(f.read(), json_path)
    version = check_header(doc, json_path)
    pf = _get(doc, "parameters_file", dict, json_path)
    file_ = _get(pf, "file", str, json_path + ": parameters_file")
    if os.path.basename(file_) != file_ or file_ in (".", "..") or not file_.endswith(".npz"):
        raise _fail(json_path, f"parameters_file {file_[:80]!r} must be a plain .npz file name")
    npz_path = os.path.join(os.path.dirname(prefix), file_)
    if not os.path.isfile(npz_path):
        raise ModelFormatError(f"{npz_path}: the parameters file named by {json_path} is missing")
    with open(npz_path, "rb") as f:
        raw = f.read()
    table = _get(doc, "parameters", list, json_path)
    values = read_npz(npz_path, raw, _get(pf, "sha256", str, json_path), table, json_path)
    try:
        concrete = build_concrete(doc, values, json_path)
        extra = decode_value(doc.get("extra") or {}, json_path + ": extra")
    except RecursionError:
        raise _fail(json_path, "is nested too deeply to be a dy2st model") from None
    return LoadedModel(concrete, version, str(doc.get("dy2st_version", "?")),
                       extra if isinstance(extra, dict) else {}, json_path, npz_path)


def load_concrete(path: str) -> ConcreteProgram:
    """The ConcreteProgram saved at `path` (see read_model for the checks)."""
    return read_model(path).concrete
