"""A ConcreteProgram -> the JSON document of the graph file (the inverse of build.py)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..runtime.dtype import dtype_name
from ..runtime.program import Program
from ..runtime.pytree import LEAF
from ..runtime.version import __version__
from .codec import encode_value
from .concrete import ConcreteProgram
from .errors import ModelFormatError
from .header import FORMAT_NAME
from .new_leaves import leaves_doc
from .number_leaves import number_kind
from .persistable_writes import writes_doc


def _live_blocks(program: Program) -> Dict[int, int]:
    """Old index -> new index of the blocks some control-flow op owns (and the global block):
    passes may drop an op (a dead tensor `if`) but leave its blocks in the Program."""
    live, stack = {0}, [0]
    while stack:
        for op in program.blocks[stack.pop()].ops:
            for idx in op.sub_blocks():
                if idx not in live:
                    live.add(idx)
                    stack.append(idx)
    return {old: new for new, old in enumerate(sorted(live))}


def _program_doc(program: Program) -> Dict[str, Any]:
    renumber = _live_blocks(program)
    blocks = []
    for b in program.blocks:
        if b.idx not in renumber:
            continue
        where = f"block {b.idx}"
        vars_ = [{"name": v.name, "shape": list(v._shape), "dtype": dtype_name(v.dtype), "kind": v.kind,
                  "elem": None if v.elem is None else [list(v.elem[0]), dtype_name(v.elem[1])],
                  "persistable": bool(v.persistable)} for v in b.vars.values()]
        ops = [{"type": op.type, "inputs": list(op.inputs), "outputs": list(op.outputs),
                "attrs": {k: encode_value(renumber[a] if k.endswith("_block") and op.sub_blocks()
                                          else a, f"{where}: op {op.type}: attr {k!r}")
                          for k, a in op.attrs.items()},
                "origin": None if op.origin is None else op.origin.to_json()} for op in b.ops]
        blocks.append({"idx": renumber[b.idx], "parent": renumber.get(b.parent_idx, -1),
                       "params": list(b.params),
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
    # a namedtuple (its kind is its class) is saved as a tuple: a model file names no user
    # class, so the loaded model hands out a plain tuple in its place
    return {"kind": kind if kind in ("tuple", "list") else "tuple",
            "items": [_tree_doc(s, where) for s in items]}


def _leaf_doc(leaf: Tuple[str, Any], where: str) -> Dict[str, Any]:
    kind, value = leaf
    if kind == "var":
        return {"var": int(value)}
    return {"const": encode_value(value, where)}


def _outputs_doc(concrete: ConcreteProgram) -> Dict[str, Any]:
    leaves = [_leaf_doc(x, "output constant") for x in concrete.output_leaves]
    g = concrete.program.global_block()
    for k in concrete.number_leaves:
        # the kind is redundant with the variable's dtype: the loader checks they agree
        leaves[k]["number"] = number_kind(g.vars[concrete.program.fetch_names[leaves[k]["var"]]])
    return {"tree": _tree_doc(concrete.output_tree, "output structure"), "leaves": leaves}


def concrete_doc(concrete: ConcreteProgram, params: List[Dict[str, Any]],
                 extra: Optional[dict]) -> Dict[str, Any]:
    program = concrete.program
    if len(concrete.inputs) != len(program.feed_names):
        raise ModelFormatError(f"the program has {len(program.feed_names)} feeds but "
                               f"{len(concrete.inputs)} input specs")
    inputs = [{"name": s.name, "var": feed, "shape": list(s.shape), "dtype": dtype_name(s.dtype)}
              for s, feed in zip(concrete.inputs, program.feed_names)]
    doc = {"format": FORMAT_NAME, "format_version": 1,
           "dy2st_version": __version__, "inputs": inputs,
           "outputs": _outputs_doc(concrete),
           "parameters": params, "program": _program_doc(program),
           "extra": encode_value(dict(extra or {}), "extra")}
    if program.persistable_writes:
        doc["persistable_writes"] = writes_doc(program)
    if concrete.number_leaves or program.persistable_writes:
        # a reader of version 2 would hand out 0-d tensors where eager code has numbers, or
        # forget the buffers a call updates
        doc["format_version"] = 3
    leaves = leaves_doc(program, _live_blocks(program))
    if leaves:
        # a reader of version 3 would load a model whose new leaves need no gradient
        doc["new_leaves"] = leaves
        doc["format_version"] = 4
    if concrete.input_structure is not None:
        # a reader of version 1 would call the model with its tensors flattened: refuse there
        doc["format_version"] = max(doc["format_version"], 2)
        names, tree, leaves = concrete.input_structure
        doc["input_structure"] = {
            "arguments": list(names), "tree": _tree_doc(tree, "input structure"),
            "leaves": [{"input": int(v)} if kind == "var" else
                       {"const": encode_value(v, "input constant")} for kind, v in leaves]}
    return doc
