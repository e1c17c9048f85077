"""The checked JSON document -> a ConcreteProgram; every field is checked before objects are built."""
from __future__ import annotations

import keyword
from typing import Any, Dict, List

import numpy as np

from ..runtime.dtype import dtype_name
from ..runtime.origin import Origin
from ..runtime.program import Block, Operator, Program, Variable
from ..runtime.pytree import LEAF
from ..runtime.registry import OPS
from ..runtime.tensor import Parameter, Tensor
from ..runtime.version import __version__
from .codec import decode_value
from .concrete import ConcreteProgram
from .errors import fail
from .fields import dtype_field, get_field, int_list_field, name_field
from .input_spec import InputSpec
from .new_leaves import build_leaves
from .number_leaves import check_number_leaf
from .persistable_writes import build_writes
from .validate import check_block, check_names, check_var_sizes


def fits_variable(arr: np.ndarray, var: Variable) -> bool:
    """Whether a parameter value has exactly its graph variable's shape and dtype."""
    return tuple(arr.shape) == var._shape and arr.dtype.name == dtype_name(var.dtype)


def _build_block(program: Program, doc: Any, idx: int, where: str) -> Block:
    parent = get_field(doc, "parent", int, where)
    if get_field(doc, "idx", int, where) != idx or (idx == 0) != (parent == -1) or not -1 <= parent < idx:
        raise fail(where, f"bad block index {doc.get('idx')!r} / parent {parent!r}")
    block = program.blocks[0] if idx == 0 else Block(program, idx, parent)
    for i, vd in enumerate(get_field(doc, "vars", list, where)):
        vw = f"{where}.vars[{i}]"
        name = name_field(get_field(vd, "name", str, vw), vw)
        if name in block.vars:
            raise fail(vw, f"variable {name!r} is declared twice")
        kind = get_field(vd, "kind", str, vw)
        if kind not in ("dense", "array"):
            raise fail(vw, f"unknown variable kind {kind!r}")
        elem = vd.get("elem")
        if elem is not None:
            if not (isinstance(elem, list) and len(elem) == 2):
                raise fail(vw, "elem must be [shape, dtype] or null")
            elem = (tuple(int_list_field(elem[0], vw + ".elem")), dtype_name(dtype_field(elem[1], vw + ".elem")))
        block.create_var(int_list_field(get_field(vd, "shape", list, vw), vw + ".shape"),
                         dtype_field(get_field(vd, "dtype", str, vw), vw), kind=kind, elem=elem,
                         persistable=get_field(vd, "persistable", bool, vw), name=name)
    block.params = [name_field(p, where + ".params") for p in get_field(doc, "params", list, where)]
    block.results = [name_field(r, where + ".results") for r in get_field(doc, "results", list, where)]
    for i, od in enumerate(get_field(doc, "ops", list, where)):
        block.ops.append(_build_op(od, f"{where}.ops[{i}]"))
    return block


def _build_op(od: Any, where: str) -> Operator:
    type_ = get_field(od, "type", str, where)
    if type_ not in OPS:
        raise fail(where, f"unknown op type {type_[:80]!r}: this dy2st ({__version__}) has no "
                           "such op (saved by a newer or extended dy2st?)")
    ins = [name_field(n, where + ".inputs") for n in get_field(od, "inputs", list, where)]
    outs = [name_field(n, where + ".outputs") for n in get_field(od, "outputs", list, where)]
    attrs = {}
    for k, v in get_field(od, "attrs", dict, where).items():
        # attr names become keyword arguments in the executor's generated code
        if not k.isidentifier() or keyword.iskeyword(k):
            raise fail(where, f"op {type_}: attr name {k[:80]!r} is not a Python identifier")
        attrs[k] = decode_value(v, f"{where}.attrs.{k}")
    origin = od.get("origin")
    if origin is not None:
        origin = _origin(origin, where + ".origin")
    return Operator(type_, ins, outs, attrs, origin)


def _origin(d: Any, where: str) -> Origin:
    get_field(d, "file", str, where)
    get_field(d, "line", int, where)
    for k, t in (("function", str), ("source", str), ("col", int), ("end_col", int)):
        if k in d:
            get_field(d, k, t, where)
    return Origin.from_json(d)


def _build_tree(d: Any, where: str) -> Any:
    kind = get_field(d, "kind", str, where)
    if kind == "leaf":
        return LEAF
    if kind not in ("tuple", "list", "dict"):
        raise fail(where, f"unknown structure kind {kind!r}")
    items = tuple(_build_tree(s, where) for s in get_field(d, "items", list, where))
    if kind != "dict":
        return (kind, items)
    keys = [decode_value(k, where) for k in get_field(d, "keys", list, where)]
    if len(keys) != len(items) or not all(_hashable(k) for k in keys):
        raise fail(where, "dict keys do not fit the items (one per item, each hashable)")
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
    pdoc = get_field(doc, "program", dict, where)
    program = Program()
    block_docs = get_field(pdoc, "blocks", list, where + ".program")
    if not block_docs:
        raise fail(where, "the program has no blocks")
    for i, bd in enumerate(block_docs):
        block = _build_block(program, bd, i, f"{where}: program.blocks[{i}]")
        if i:
            program.blocks.append(block)
    g = program.global_block()
    program.feed_names = [name_field(n, where + ": feed_names") for n in get_field(pdoc, "feed_names", list, where)]
    program.fetch_names = [name_field(n, where + ": fetch_names") for n in get_field(pdoc, "fetch_names", list, where)]
    for n in program.feed_names + program.fetch_names:
        if n not in g.vars:
            raise fail(where, f"feed/fetch {n!r} is not a variable of the global block")
    for pd in get_field(doc, "parameters", list, where):
        name = pd["name"]
        var = g.vars.get(name)
        if var is None or not var.persistable or var.kind != "dense":
            raise fail(where, f"parameter {name!r} is not a persistable variable of the global block")
        arr = values[name]
        if not fits_variable(arr, var):
            raise fail(where, f"parameter {name!r} is {arr.dtype.name}{list(arr.shape)} in the "
                               f"parameters file but {dtype_name(var.dtype)}{list(var._shape)} in the graph")
        trainable = bool(pd.get("trainable", False))
        program.persistables[name] = (Parameter(arr, name, trainable) if trainable else
                                      Tensor(arr, name=name, persistable=True))
    check_names(program, where)
    build_writes(doc, program, where)
    build_leaves(doc, program, where)
    owner: Dict[int, int] = {}
    for b in program.blocks:
        check_var_sizes(b, f"{where}: program.blocks[{b.idx}]")
        check_block(program, b, owner, f"{where}: program.blocks[{b.idx}]")
    if len(owner) != len(program.blocks) - 1:
        raise fail(where, "some sub-blocks are not owned by any control-flow op")
    inputs = _build_inputs(doc, program, where)
    out = get_field(doc, "outputs", dict, where)
    tree = _build_tree(get_field(out, "tree", dict, where + ".outputs"), where + ": outputs.tree")
    leaves = []
    numbers = []
    for i, ld in enumerate(get_field(out, "leaves", list, where + ".outputs")):
        lw = f"{where}: outputs.leaves[{i}]"
        if isinstance(ld, dict) and set(ld) in ({"var"}, {"var", "number"}) \
                and type(ld["var"]) is int and 0 <= ld["var"] < len(program.fetch_names):
            if "number" in ld:
                check_number_leaf(ld["number"], g.vars[program.fetch_names[ld["var"]]],
                                  doc.get("format_version"), lw)
                numbers.append(i)
            leaves.append(("var", ld["var"]))
        elif isinstance(ld, dict) and set(ld) == {"const"}:
            leaves.append(("const", decode_value(ld["const"], lw)))
        else:
            raise fail(lw, f"expected {{'var': fetch index}} (with an optional 'number' kind) or "
                           f"{{'const': value}}, got {str(ld)[:80]}")
    if len(leaves) != _count_leaves(tree):
        raise fail(where, f"the output structure has {_count_leaves(tree)} leaves but "
                           f"{len(leaves)} are described")
    structure = _build_input_structure(doc, len(inputs), where)
    return ConcreteProgram(program, inputs, tree, leaves, structure, tuple(numbers))


def _build_input_structure(doc: Dict[str, Any], n_inputs: int, where: str) -> Any:
    """The optional `input_structure` (format version 2): argument names, the structure of the
    positional arguments and per leaf an input index (each input exactly once) or a constant."""
    if "input_structure" not in doc:
        return None
    sw = f"{where}: input_structure"
    if doc.get("format_version") == 1:
        raise fail(sw, "is not part of format version 1 (the file claims version 1)")
    d = get_field(doc, "input_structure", dict, where)
    if set(d) != {"arguments", "tree", "leaves"}:
        raise fail(sw, f"expected the fields arguments, tree and leaves, got {sorted(d)[:8]!r}")
    names = [name_field(n, sw + ".arguments") for n in get_field(d, "arguments", list, sw)]
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise fail(sw, f"argument names must be distinct identifiers, got {str(names)[:80]}")
    tree = _build_tree(get_field(d, "tree", dict, sw), sw + ".tree")
    if tree is LEAF or tree[0] != "tuple" or len(tree[1]) != len(names):
        raise fail(sw, f"the tree must be a tuple of {len(names)} arguments")
    leaves = []
    seen = set()
    for i, ld in enumerate(get_field(d, "leaves", list, sw)):
        lw = f"{sw}.leaves[{i}]"
        if isinstance(ld, dict) and set(ld) == {"input"} and type(ld["input"]) is int \
                and 0 <= ld["input"] < n_inputs and ld["input"] not in seen:
            seen.add(ld["input"])
            leaves.append(("var", ld["input"]))
        elif isinstance(ld, dict) and set(ld) == {"const"}:
            leaves.append(("const", decode_value(ld["const"], lw)))
        else:
            raise fail(lw, f"expected {{'input': an unused input index below {n_inputs}}} or "
                            f"{{'const': value}}, got {str(ld)[:80]}")
    if len(leaves) != _count_leaves(tree) or len(seen) != n_inputs:
        raise fail(sw, f"describes {len(leaves)} leaves ({len(seen)} inputs) for a structure of "
                        f"{_count_leaves(tree)} leaves and {n_inputs} inputs")
    return (names, tree, leaves)


def _build_inputs(doc: Dict[str, Any], program: Program, where: str) -> List[InputSpec]:
    specs = []
    docs = get_field(doc, "inputs", list, where)
    if len(docs) != len(program.feed_names):
        raise fail(where, f"{len(docs)} input specs for {len(program.feed_names)} feeds")
    for i, (sd, feed) in enumerate(zip(docs, program.feed_names)):
        sw = f"{where}: inputs[{i}]"
        name = sd.get("name") if isinstance(sd, dict) else None
        if name is not None:
            name_field(name, sw + ".name")
        shape = int_list_field(get_field(sd, "shape", list, sw), sw + ".shape", min_=0, nullable=True)
        spec = InputSpec(shape, dtype_field(get_field(sd, "dtype", str, sw), sw), name)
        var = program.global_block().vars[feed]
        if get_field(sd, "var", str, sw) != feed or var.dtype != spec.dtype or len(var._shape) != len(
                spec.shape) or any(a is not None and b >= 0 and a != b for a, b in zip(spec.shape, var._shape)):
            raise fail(sw, f"spec {spec.text()} does not fit feed variable {feed!r} "
                            f"({dtype_name(var.dtype)}{list(var._shape)})")
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
