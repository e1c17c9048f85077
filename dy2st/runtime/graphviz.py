"""A Program as a Graphviz picture: ops are nodes, tensors are edges labelled dtype[shape],
`cond` / `while` sub-blocks are clusters, and each op's tooltip is the user's line."""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Dict, List, Optional, Tuple

from .dtype import dtype_name
from .program import Block, Operator, Program

# formats written as text; any other extension is rendered by the `dot` program
DOT_SUFFIXES = (".dot", ".gv")
INSTALL_HINT = ("rendering needs the Graphviz `dot` program: install it (Debian/Ubuntu: "
                "`apt-get install graphviz`, macOS: `brew install graphviz`), or write a .dot file "
                "and open it in any Graphviz viewer")


class GraphvizError(RuntimeError):
    """The picture cannot be rendered (no `dot` program, or `dot` failed)."""


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _type_label(block: Block, name: str) -> str:
    var = block.program.var_index.get(name)
    if var is None:
        return ""
    if var.kind == "array":
        return "tensor_array"
    dims = ", ".join("?" if d < 0 else str(d) for d in var._shape)
    return f"{dtype_name(var.dtype)}[{dims}]"


def _tooltip(op: Operator) -> str:
    origin = op.origin
    if origin is None:
        return op.type
    text = f"{origin.file}:{origin.line}"
    if origin.function:
        text += f" in {origin.function}"
    return text + (f"\n{origin.source.strip()}" if origin.source else "")


class _Writer:
    """Walks the blocks once, naming a node for every op, feed, parameter and fetch."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.lines: List[str] = []
        self.producer: Dict[str, str] = {}      # var name -> node id that writes it
        self.edges: List[Tuple[str, str, str, str]] = []   # (from, to, label, style)
        self.count = 0

    def node(self, indent: str, label: str, shape: str, tooltip: str = "",
             extra: str = "") -> str:
        self.count += 1
        node_id = f"n{self.count}"
        attrs = f"label={_quote(label)}, shape={shape}"
        if tooltip:
            attrs += f", tooltip={_quote(tooltip)}"
        self.lines.append(f"{indent}{node_id} [{attrs}{extra}];")
        return node_id

    def source_of(self, block: Block, name: str, indent: str) -> str:
        """The node writing `name`; a captured variable is the outer one it stands for."""
        if name in self.producer:
            return self.producer[name]
        outer = {local: out for out, local in block.captures.items()}.get(name)
        if outer is not None and block.parent is not None:
            node_id = self.source_of(block.parent, outer, indent)
        else:
            node_id = self.node(indent, name.split("@")[0], "plaintext", f"block input {name}",
                                ", fontcolor=gray30")
        self.producer[name] = node_id
        return node_id

    def block(self, block: Block, indent: str) -> None:
        for op in block.ops:
            op_id = self.node(indent, op.type, "box", _tooltip(op), ", style=\"rounded,filled\", "
                              "fillcolor=\"#eef3fb\"" if op.type not in ("cond", "while") else
                              ", style=\"rounded,filled\", fillcolor=\"#fdf1d8\"")
            for name in op.inputs:
                self.edges.append((self.source_of(block, name, indent), op_id,
                                   _type_label(block, name), ""))
            for name in op.outputs:
                self.producer[name] = op_id
            for sub in op.sub_blocks():
                self.cluster(self.program.blocks[sub], op, op_id, indent)

    def cluster(self, block: Block, owner: Operator, owner_id: str, indent: str) -> None:
        role = next((k[:-len("_block")] for k, v in owner.attrs.items()
                     if k.endswith("_block") and v == block.idx), "block")
        self.lines.append(f"{indent}subgraph cluster_b{block.idx} {{")
        inner = indent + "  "
        self.lines.append(f"{inner}label={_quote(f'{owner.type} {role} (block {block.idx})')};")
        self.lines.append(f"{inner}style=dashed; color=gray50; fontsize=10;")
        self.block(block, inner)
        for name in block.results:
            self.edges.append((self.source_of(block, name, inner), owner_id,
                               _type_label(block, name), "dashed"))
        self.lines.append(f"{indent}}}")


def program_to_dot(program: Program, title: str = "program",
                   input_names: Optional[List[str]] = None) -> str:
    """The Graphviz dot text of `program`. `input_names` label the feeds (the saved model's
    input names) where they differ from the feed variables' names."""
    w = _Writer(program)
    w.lines += [f"digraph {_quote(title)} {{", "  rankdir=TB;",
                "  node [fontname=\"Helvetica\", fontsize=11];",
                "  edge [fontname=\"Helvetica\", fontsize=9, color=gray40];"]
    names = input_names or list(program.feed_names)
    for feed, shown in zip(program.feed_names, names):
        w.producer[feed] = w.node("  ", f"input {shown}", "ellipse", f"feed {feed}",
                                  ", style=filled, fillcolor=\"#dff0d8\"")
    for name in program.persistables:
        w.producer[name] = w.node("  ", name, "note", f"parameter {name}",
                                  ", fontsize=9, fontcolor=gray30")
    w.block(program.global_block(), "  ")
    for i, name in enumerate(program.fetch_names):
        out_id = w.node("  ", f"output {i}", "ellipse", f"fetch {name}",
                        ", style=filled, fillcolor=\"#f2dede\"")
        w.edges.append((w.source_of(program.global_block(), name, "  "), out_id,
                        _type_label(program.global_block(), name), ""))
    for src, dst, label, style in w.edges:
        attrs = [f"label={_quote(label)}"] if label else []
        if style:
            attrs.append(f"style={style}")
        w.lines.append(f"  {src} -> {dst}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    w.lines.append("}")
    return "\n".join(w.lines) + "\n"


def write_graph(dot_text: str, path: str) -> str:
    """Write the picture to `path`: dot text for .dot / .gv, else rendered by `dot` in the format
    of the extension (.svg, .png, .pdf). Returns the path."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix in DOT_SUFFIXES:
        with open(path, "w", encoding="utf-8") as f:
            f.write(dot_text)
        return path
    if not suffix:
        raise GraphvizError(f"{path}: give the picture an extension (.dot, .svg, .png, .pdf)")
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizError(f"cannot write {path}: {INSTALL_HINT}")
    proc = subprocess.run([exe, f"-T{suffix[1:]}", "-o", path], input=dot_text.encode("utf-8"),
                          capture_output=True, timeout=300)
    if proc.returncode != 0:
        raise GraphvizError(f"dot failed on {path}: {proc.stderr.decode(errors='replace').strip()}")
    return path
