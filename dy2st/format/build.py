"""The checked JSON document -> a ConcreteProgram; every field is checked before objects are built."""
from __future__ import annotations

import keyword
from typing import Any, Dict, List

import numpy as np

from ..runtime.origin import Origin
from ..runtime.program import Block, Operator, Program, Variable
from ..runtime.pytree import LEAF
from ..runtime.tensor import Parameter, Tensor
from .input_spec import InputSpec
from .concrete import ConcreteProgram
from .codec import decode_value
from .errors import _fail
from .fields import _dtype, _get, _int_list, _name
from .header import _dy2st_version
from .validate import _check_block, check_names, check_var_sizes
from ..runtime.registry import OPS


def _fits(arr: np.ndarray, var: Variable) -> bool:
    """Whether a parameter value has exactly its graph variable's shape and dtype."""
    return tuple(arr.shape) == var._shape and arr.dtype.name == str(var.dtype)


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
    if len(keys) != len(items) or not all(_hashable(k) for k in keys):
        raise _fail(where, "dict keys do not fit the items (one per item, each hashable)")
    return ("dict", tuple(zip(keys, items)))


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _count_leaves(tree: Any) -> int:
    return 1 if tree is LEAF else sum(_count_leaves(s if tree[0] != "dict" else s[1])
                                      for s in tree[1])


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
        if not _fits(arr, var):
            raise _fail(where, f"parameter {name!r} is {arr.dtype.name}{list(arr.shape)} in the "
                               f"parameters file but {var.dtype}{list(var._shape)} in the graph")
        trainable = bool(pd.get("trainable", False))
        program.persistables[name] = (Parameter(arr, name, trainable) if trainable else
                                      Tensor(arr, name=name, persistable=True))
    check_names(program, where)
    owner: Dict[int, int] = {}
    for b in program.blocks:
        check_var_sizes(b, f"{where}: program.blocks[{b.idx}]")
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
    structure = _build_input_structure(doc, len(inputs), where)
    return ConcreteProgram(program, inputs, tree, leaves, structure)


def _build_input_structure(doc: Dict[str, Any], n_inputs: int, where: str) -> Any:
    """The optional `input_structure` (format version 2): argument names, the structure of the
    positional arguments and per leaf an input index (each input exactly once) or a constant."""
    if "input_structure" not in doc:
        return None
    sw = f"{where}: input_structure"
    if doc.get("format_version") == 1:
        raise _fail(sw, "is not part of format version 1 (the file claims version 1)")
    d = _get(doc, "input_structure", dict, where)
    if set(d) != {"arguments", "tree", "leaves"}:
        raise _fail(sw, f"expected the fields arguments, tree and leaves, got {sorted(d)[:8]!r}")
    names = [_name(n, sw + ".arguments") for n in _get(d, "arguments", list, sw)]
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise _fail(sw, f"argument names must be distinct identifiers, got {str(names)[:80]}")
    tree = _build_tree(_get(d, "tree", dict, sw), sw + ".tree")
    if tree is LEAF or tree[0] != "tuple" or len(tree[1]) != len(names):
        raise _fail(sw, f"the tree must be a tuple of {len(names)} arguments")
    leaves = []
    seen = set()
    for i, ld in enumerate(_get(d, "leaves", list, sw)):
        lw = f"{sw}.leaves[{i}]"
        if isinstance(ld, dict) and set(ld) == {"input"} and type(ld["input"]) is int \
                and 0 <= ld["input"] < n_inputs and ld["input"] not in seen:
            seen.add(ld["input"])
            leaves.append(("var", ld["input"]))
        elif isinstance(ld, dict) and set(ld) == {"const"}:
            leaves.append(("const", decode_value(ld["const"], lw)))
        else:
            raise _fail(lw, f"expected {{'input': an unused input index below {n_inputs}}} or "
                            f"{{'const': value}}, got {str(ld)[:80]}")
    if len(leaves) != _count_leaves(tree) or len(seen) != n_inputs:
        raise _fail(sw, f"describes {len(leaves)} leaves ({len(seen)} inputs) for a structure of "
                        f"{_count_leaves(tree)} leaves and {n_inputs} inputs")
    return (names, tree, leaves)


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
