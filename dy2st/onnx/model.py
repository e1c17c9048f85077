"""A traced ConcreteProgram -> an ONNX ModelProto: inputs with named symbolic dims, parameters as
initializers, the lowered graph, and one output per returned leaf."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from ..format.concrete import ConcreteProgram
from . import lowerings  # noqa: F401 - fills the lowering table
from .builder import Builder, Value


def symbolic_dims(concrete: ConcreteProgram) -> List[List[Any]]:
    """Per input, its dims with None replaced by a name: `batch` for the first dim when only one
    input leaves it open, otherwise `<input>_dim<i>`."""
    names = [s.name or feed for s, feed in zip(concrete.inputs, concrete.program.feed_names)]
    open_first = [i for i, s in enumerate(concrete.inputs) if s.shape and s.shape[0] is None]
    dims = []
    for i, (spec, name) in enumerate(zip(concrete.inputs, names)):
        row = []
        for k, d in enumerate(spec.shape):
            if d is not None:
                row.append(int(d))
            elif k == 0 and open_first == [i]:
                row.append("batch")
            else:
                row.append(f"{name}_dim{k}")
        dims.append(row)
    return dims


def build_model(concrete: ConcreteProgram, opset: int, onnx: Any,
                doc: Optional[str] = None) -> Any:
    """The ONNX model of `concrete` (not yet checked)."""
    program = concrete.program
    g = program.global_block()
    b = Builder(program, opset, onnx)
    env: Dict[str, Value] = {}
    inputs = []
    for name, tensor in program.persistables.items():
        b.used.add(name)
        env[name] = name
        b.initializers.append(onnx.numpy_helper.from_array(np.asarray(tensor._value), name))
    for spec, feed, dims in zip(concrete.inputs, program.feed_names, symbolic_dims(concrete)):
        name = b.fresh(spec.name or feed)         # the names a loaded model's inputs have
        env[feed] = name
        inputs.append(b.value_info(name, g.vars[feed], dims))
    b.lower_block(g, env)
    outputs = []
    for i, (kind, v) in enumerate(concrete.output_leaves):
        out = b.fresh(f"output_{len(outputs)}")
        if kind == "var":
            var = g.vars[program.fetch_names[v]]
            b.node("Identity", [b.name_of(env[var.name])], outputs=[out])
            outputs.append(b.value_info(out, var))
        elif v is None:
            b.used.discard(out)
        elif isinstance(v, (bool, int, float, np.number, np.bool_)):
            arr = np.asarray(v)
            b.node("Identity", [b.const(arr)], outputs=[out])
            outputs.append(onnx.helper.make_tensor_value_info(out, b.tensor_type(arr.dtype), []))
        else:
            raise TypeError(f"output leaf {i} is the Python {type(v).__name__} {v!r}; an ONNX "
                            "model returns tensors and numbers only")
    graph = onnx.helper.make_graph(b.scopes[0], "dy2st", inputs, outputs,
                                   initializer=b.initializers, doc_string=doc or "")
    name_nodes(graph)
    model = onnx.helper.make_model(graph, producer_name="dy2st",
                                   opset_imports=[onnx.helper.make_opsetid("", opset)])
    model.ir_version = _ir_version(onnx, opset)
    return model


def name_nodes(graph: Any) -> None:
    """Give every node of `graph` and of its If / Loop subgraphs a name unique in the model. A
    runtime's graph rewrites name the nodes they fuse after the originals: onnxruntime 1.19's
    GatherSliceToSplitFusion made two nodes called "/GatherSliceToSplitFusion/" out of unnamed
    ones, and then refused the model it had made itself."""
    taken: set = set()
    pending = [graph]
    nodes = []
    while pending:
        g = pending.pop()
        for node in g.node:
            nodes.append(node)
            taken.add(node.name)
            for attr in node.attribute:
                if attr.HasField("g"):
                    pending.append(attr.g)
                pending.extend(attr.graphs)
    count = 0
    for node in nodes:
        if node.name:
            continue
        name = f"{node.op_type}_{count}"
        while name in taken:
            count += 1
            name = f"{node.op_type}_{count}"
        node.name = name
        taken.add(name)
        count += 1


def _ir_version(onnx: Any, opset: int) -> int:
    """The IR version that goes with `opset` (the newest IR may be newer than runtimes read)."""
    for release, ir, ai_onnx, *_ in onnx.helper.VERSION_TABLE:
        if ai_onnx == opset:
            return ir
    return onnx.IR_VERSION
