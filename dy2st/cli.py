"""The `dy2st` command: `dump`, `export`, `inspect` and `run` (user errors exit with status 2)."""
from __future__ import annotations

import argparse
import collections
import importlib
import importlib.util
import json
import os
import re
import sys
from typing import Any, Iterator, List, NoReturn, Optional, Sequence, Tuple

import numpy as np

from . import __version__
from .autograd.mode import no_grad
from .format.opener import open_regular_file
from .runtime.dtype import dtype_name
from .runtime.loop_limit import LoopLimitError
from .runtime.pytree import LEAF, describe
from .runtime.tensor import Tensor
from .runtime.time_limit import TIME_LIMIT_AVAILABLE, time_limit

USER_ERROR = 2
RUN_FAILED = 1


class UserError(Exception):
    """A mistake in the command line or its files: reported as one line, no traceback."""


# ----------------------------------------------------------------------------- helpers
def _specs(texts: Optional[Sequence[str]]) -> List[Any]:
    # lazy: each command loads only what it runs (the CLI starts fast)
    from .format.spec_text import parse_input_spec
    try:
        return [parse_input_spec(t) for t in texts or []]
    except ValueError as e:
        raise UserError(str(e)) from None


def _load(path: str, max_loop_iterations: Optional[int] = None) -> Any:
    # lazy: each command loads only what it runs (the CLI starts fast)
    from .jit.load import load
    return load(path, max_loop_iterations=max_loop_iterations)


def _leaf_paths(tree: Any, prefix: str = "out") -> Iterator[str]:
    """Dotted names of the leaves of a runtime.pytree structure, in leaf order."""
    if tree is LEAF:
        yield prefix
        return
    kind, items = tree
    pairs = items if kind == "dict" else enumerate(items)
    for key, sub in pairs:
        yield from _leaf_paths(sub, f"{prefix}.{key}")


def _flat_values(obj: Any, prefix: str = "out") -> Iterator[Tuple[str, Any]]:
    """(dotted name, value) for every tensor or constant in a model's output."""
    if isinstance(obj, (tuple, list)):
        for i, v in enumerate(obj):
            yield from _flat_values(v, f"{prefix}.{i}")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _flat_values(v, f"{prefix}.{k}")
    else:
        yield prefix, obj


def _type_text(var: Any) -> str:
    if var.kind == "array":
        return f"tensor_array<{dtype_name(var.elem[1])}{list(var.elem[0])}>" if var.elem else "tensor_array"
    return f"{dtype_name(var.dtype)}{list(var._shape)}"


# ----------------------------------------------------------------------------- inspect
def cmd_inspect(args: argparse.Namespace) -> int:
    # lazy: each command loads only what it runs (the CLI starts fast)
    from .format import read_model
    from .jit.translated_layer import spec_text  # lazy, as the line above
    model = read_model(args.path)
    c = model.concrete
    program = c.program
    g = program.global_block()
    out = [f"model: {model.json_path}",
           f"format: dy2st.model version {model.format_version} (saved by dy2st "
           f"{model.dy2st_version})", "inputs:"]
    for spec, feed in zip(c.inputs, program.feed_names):
        out.append(f"  {spec.name or feed}: {spec_text(spec)}")
    out.append(f"outputs: {describe(c.output_tree)}")
    for path, (kind, v) in zip(_leaf_paths(c.output_tree), c.output_leaves):
        if kind == "var":
            name = program.fetch_names[v]
            out.append(f"  {path}: {_type_text(g.vars[name])}  ({name})")
        else:
            out.append(f"  {path}: constant {v!r}")
    counts = collections.Counter(op.type for b in program.blocks for op in b.ops)
    out.append(f"ops: {program.num_ops()} in {len(program.blocks)} block(s)")
    width = max((len(t) for t in counts), default=0)
    for t, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(f"  {t:<{width}}  {n}")
    flow = [f"{t} x{counts[t]}" for t in ("cond", "while") if counts[t]]
    out.append(f"control flow: {', '.join(flow) if flow else 'none'}")
    values = [t._value for t in program.persistables.values()]
    out.append(f"parameters: {len(values)} tensor(s), {sum(int(a.size) for a in values)} values, "
               f"{sum(int(a.nbytes) for a in values)} bytes  ({os.path.basename(model.npz_path)})")
    for name, t in program.persistables.items():
        out.append(f"  {name}: {t._value.dtype.name}{list(t._value.shape)}")
    print("\n".join(out))
    if args.program:
        print()
        print(program)
    return 0


# ----------------------------------------------------------------------------- run
def _read_input(text: str, names: Sequence[str]) -> Tuple[Optional[str], np.ndarray]:
    name, sep, path = text.partition("=")
    if not sep or name not in names:
        name, path = None, text
    try:
        f = open_regular_file(path, missing_ok=True)    # a FIFO or device is refused, not read
    except ValueError as e:
        raise UserError(str(e)) from None
    if f is None:
        raise UserError(f"{path}: no such input file")
    try:
        with f:
            _check_npy_size(f, path)
            f.seek(0)
            arr = np.load(f, allow_pickle=False)
            if not isinstance(arr, np.ndarray):
                arr.close()
                raise UserError(f"{path}: is an .npz archive; pass one .npy file per input")
    except (ValueError, OSError, EOFError) as e:
        raise UserError(f"{path}: not a .npy array file ({e})") from None
    return name, arr


def _check_npy_size(f: Any, path: str) -> None:
    """Refuse an .npy whose header claims more data than the file holds (before numpy would
    try to allocate it)."""
    from numpy.lib import format as npy
    if f.read(6) != b"\x93NUMPY":
        return                      # not an .npy: np.load says what it is
    f.seek(0)
    version = npy.read_magic(f)
    read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
    shape, _, dtype = read(f)
    if dtype.hasobject:
        return                      # np.load refuses it (allow_pickle=False)
    need = dtype.itemsize
    for d in shape:
        need *= d
    have = os.fstat(f.fileno()).st_size - f.tell()
    if need > have:
        raise UserError(f"{path}: its header claims a {dtype.name} array of shape {list(shape)} "
                        f"({need} bytes) but the file holds {have} bytes of data")


def _one_line(e: BaseException) -> str:
    """A multi-line error (e.g. one pointing into the user's code) as one line: the user's
    file and line, then the last line of the message."""
    text = str(e).strip()
    if "\n" not in text:
        return text if isinstance(e, UserError) or type(e).__name__ == "ModelFormatError" \
            else f"{type(e).__name__}: {text}"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    found = re.findall(r'File "([^"]+)", line (\d+)', text)
    where = f"{found[-1][0]}:{found[-1][1]}: " if found else ""
    return where + lines[-1]


class RunTimeout(Exception):
    """`dy2st run --timeout S`: the model ran longer than S seconds."""


def _bound_text(e: BaseException) -> str:
    """A bound's error as one line: the user's file:line (the loop running then), the reason."""
    text = str(e).strip()
    found = re.findall(r'File "([^"]+)", line (\d+)', text)
    op = re.search(r"= (\w+)\(", text)
    where = f"{found[-1][0]}:{found[-1][1]}: " if found else ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # the reason's line: user-code frames may be put before it
    reason = next((line for line in lines if "max_loop_iterations=" in line or "--timeout" in line),
                  lines[0] if lines else type(e).__name__)
    return where + reason + (f" (in the {op.group(1)} op there)" if op else "")


def cmd_run(args: argparse.Namespace) -> int:
    if args.output and not os.path.isdir(os.path.dirname(args.output) or "."):
        raise UserError(f"{args.output}: the directory {os.path.dirname(args.output)!r} does "
                        "not exist")
    if args.max_loop_iterations is not None and args.max_loop_iterations < 0:
        raise UserError(f"--max-loop-iterations must be >= 0, got {args.max_loop_iterations}")
    if args.timeout is not None and not args.timeout > 0:
        raise UserError(f"--timeout must be a number of seconds > 0, got {args.timeout}")
    if args.timeout is not None and not TIME_LIMIT_AVAILABLE:
        raise UserError("--timeout needs SIGALRM, which this platform does not have")
    layer = _load(args.path, args.max_loop_iterations)
    names = [s.name for s in layer.input_spec]
    positional, named = [], {}
    for text in args.input or []:
        name, arr = _read_input(text, names)
        if name is None:
            positional.append(arr)
        else:
            named[name] = arr
    # lazy: each command loads only what it runs (the CLI starts fast)
    from .jit.translated_layer import InputMismatchError
    try:
        # no backward can follow a CLI run: recording one would keep every loop turn's values
        with time_limit(args.timeout, lambda: RunTimeout(
                f"the model ran longer than the --timeout of {args.timeout:g} s")), no_grad():
            result = layer(*positional, **named)
    except InputMismatchError as e:
        raise UserError(str(e)) from None
    except (LoopLimitError, RunTimeout) as e:
        print(f"dy2st run: the model failed: {_bound_text(e)}", file=sys.stderr)
        return RUN_FAILED
    except Exception as e:  # noqa: BLE001 - the model itself failed: report it, status 1
        print(f"dy2st run: the model failed: {_one_line(e)}", file=sys.stderr)
        return RUN_FAILED
    items = [(k, v._value if isinstance(v, Tensor) else v) for k, v in _flat_values(result)]
    if args.output:
        arrays = {k: np.asarray(v) for k, v in items}
        skipped = [k for k, a in arrays.items() if a.dtype.kind not in "biufUS"]
        arrays = {k: a for k, a in arrays.items() if k not in skipped}
        # only plain dtypes are kept above, so nothing is pickled; (numpy < 2.1 has no
        # allow_pickle argument for savez: it would be saved as an array of that name)
        try:
            np.savez(args.output, **arrays)
        except OSError as e:
            raise UserError(f"{args.output}: cannot write the outputs ({e.strerror or e})") from None
        print(f"wrote {len(arrays)} output(s) to {args.output}: {', '.join(arrays)}")
        if skipped:
            print(f"not written (not arrays): {', '.join(skipped)}")
        return 0
    for k, v in items:
        if isinstance(v, np.ndarray):
            print(f"{k}: {v.dtype.name}{list(v.shape)}")
            print(np.array2string(v, separator=", "))
        else:
            print(f"{k} = {v!r}")
    return 0


# ----------------------------------------------------------------------------- export
def import_object(target: str) -> Any:
    """The object named by `module.path:Name` or `file.py:Name` (dots in Name walk attributes)."""
    where, sep, qualname = target.rpartition(":")
    if not sep or not where or not qualname:
        raise UserError(f"bad target {target!r}: expected MODULE_OR_FILE:OBJECT, e.g. "
                        "'model.py:Net' or 'pkg.models:Net'")
    try:
        if where.endswith(".py") or os.sep in where or "/" in where:
            module = _import_file(where)
        else:
            sys.path.insert(0, os.getcwd())       # as `python -m` does
            module = importlib.import_module(where)
    except UserError:
        raise
    except BaseException as e:  # noqa: BLE001 - any failure in the user's module is reported
        if isinstance(e, KeyboardInterrupt):
            raise
        raise UserError(f"cannot import {where}: {type(e).__name__}: {e}") from None
    obj = module
    for part in qualname.split("."):
        if not hasattr(obj, part):
            raise UserError(f"{where} has no attribute {qualname!r}")
        obj = getattr(obj, part)
    return obj


def _import_file(path: str) -> Any:
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file")
    path = os.path.abspath(path)
    sys.path.insert(0, os.path.dirname(path))    # so the file can import its neighbours
    name = os.path.splitext(os.path.basename(path))[0]
    if name in sys.modules or not name.isidentifier():
        name = f"_dy2st_user_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module                   # inspect / the transpiler look modules up here
    spec.loader.exec_module(module)
    return module


def _init_kwargs(text: Optional[str]) -> dict:
    """The constructor keyword arguments given as `--init '{"hidden": 64}'`."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise UserError(f"--init is not valid JSON ({e.msg} at column {e.colno}): {text}") from None
    if not isinstance(value, dict):
        raise UserError(f"--init must be a JSON object of keyword arguments, e.g. "
                        f"'{{\"hidden\": 64}}'; got {type(value).__name__}")
    return value


def _exportable(obj: Any, qualname: str, init: Optional[str] = None,
                params: Optional[str] = None) -> Any:
    """The Layer or function to convert: a Layer class is built with the --init keyword
    arguments, and a Layer takes the --params state dict (saved with paddle.save)."""
    # lazy: each command loads only what it runs (the CLI starts fast)
    from .nn import Layer
    kwargs = _init_kwargs(init)
    if isinstance(obj, type):
        if not issubclass(obj, Layer):
            raise UserError(f"{qualname} is a class but not a dy2st.nn.Layer")
        try:
            obj = obj(**kwargs)
        except Exception as e:  # noqa: BLE001 - the user's constructor failed
            shown = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
            hint = "" if kwargs else " (give its arguments with --init '{\"name\": value}')"
            raise UserError(f"cannot create {qualname}({shown}): {type(e).__name__}: {e}"
                            f"{hint}") from None
    elif kwargs:
        raise UserError(f"--init applies to a Layer class; {qualname} is a "
                        f"{type(obj).__name__}")
    if not (isinstance(obj, Layer) or callable(obj)):
        raise UserError(f"{qualname} is not a Layer or a function (it is a {type(obj).__name__})")
    if params is not None:
        if not isinstance(obj, Layer):
            raise UserError(f"--params applies to a Layer; {qualname} is a {type(obj).__name__}")
        _load_params(obj, params)
    return obj


def _load_params(layer: Any, path: str) -> None:
    from .io.serialization import load  # io loads only when --params is given
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such parameters file")
    try:
        state = load(path)
    except Exception as e:  # noqa: BLE001 - any unreadable file is the user's input
        raise UserError(f"{path}: not a state dict saved with paddle.save ({e})") from None
    if not isinstance(state, dict):
        raise UserError(f"{path}: holds a {type(state).__name__}, not a state dict")
    try:
        missing, unexpected = layer.set_state_dict(state)
    except ValueError as e:
        raise UserError(f"{path}: {_one_line(e)}") from None
    if missing or unexpected:
        raise UserError(f"{path}: does not match the Layer: missing {sorted(missing)}, "
                        f"unexpected {sorted(unexpected)}")


def cmd_export(args: argparse.Namespace) -> int:
    if getattr(args, "format", "dy2st") == "onnx":
        return cmd_export_onnx(args)
    specs = _specs(args.input_spec)
    obj = _exportable(import_object(args.target), args.target.rpartition(":")[2], args.init,
                      args.params)
    try:
        # lazy: each command loads only what it runs (the CLI starts fast)
        from .jit import save
    except ImportError:
        raise UserError("dy2st.jit.save is not available in this dy2st") from None
    try:
        save(obj, args.output, input_spec=specs or None)
    except Exception as e:  # noqa: BLE001 - conversion errors carry the user's location
        if args.traceback:
            raise
        raise UserError(f"cannot export {args.target}: {type(e).__name__}: {e}") from None
    print(f"saved {args.target} to {args.output}.json")
    return 0


def cmd_export_onnx(args: argparse.Namespace) -> int:
    """`export TARGET --format onnx`: TARGET is FILE.py:QUALNAME (converted with --input-spec)
    or a jit.save'd MODEL.json (its saved specs; no source needed); writes OUTPUT.onnx."""
    # lazy: each command loads only what it runs (the CLI starts fast)
    from .onnx import OnnxMissingError, export
    from_model = args.target.endswith(".json") and ":" not in args.target
    if from_model:
        for given, option in ((args.input_spec, "--input-spec"), (args.init, "--init"),
                              (args.params, "--params")):
            if given:
                raise UserError(f"{option} does not apply to a saved model (it keeps its own)")
        obj = _load(args.target)
    else:
        obj = _exportable(import_object(args.target), args.target.rpartition(":")[2], args.init,
                          args.params)
    try:
        export(obj, args.output, input_spec=None if from_model else (_specs(args.input_spec) or None),
               opset_version=args.opset_version)
    except OnnxMissingError as e:
        raise UserError(str(e)) from None
    except Exception as e:  # noqa: BLE001 - conversion and lowering errors name the user's line
        if args.traceback:
            raise
        raise UserError(f"cannot export {args.target} to ONNX: {type(e).__name__}: {e}") from None
    print(f"exported {args.target} to {args.output}.onnx")
    return 0


# ----------------------------------------------------------------------------- dump
def cmd_dump(args: argparse.Namespace) -> int:
    specs = _specs(args.input_spec)
    try:
        # lazy: each command loads only what it runs (the CLI starts fast)
        from .jit.dump import DumpError, dump
    except ModuleNotFoundError as e:
        if e.name != "dy2st.jit.dump":
            raise
        raise UserError("dy2st dump is not available in this dy2st") from None
    try:
        if getattr(args, "explain", False):
            # lazy: each command loads only what it runs (the CLI starts fast)
            from .jit.graph_break.dump_explain import explain_text
            text = explain_text(args.target, specs, _init_kwargs(args.init))
        else:
            text = dump(args.target, args.passes or None, args.program, specs, args.graph,
                        _init_kwargs(args.init))
    except DumpError as e:
        raise UserError(str(e)) from None
    except Exception as e:  # noqa: BLE001 - tracing the user's function failed: status 1
        if args.traceback:
            raise
        print(f"dy2st dump: error: {_one_line(e)}", file=sys.stderr)
        return RUN_FAILED
    print(text)
    return 0


# ----------------------------------------------------------------------------- main
EXAMPLES = {
    "dy2st": """examples:
  dy2st dump model.py:Net --program --input-spec 'x:float32[None,3]'
  dy2st export model.py:Net --input-spec 'x:float32[None,3]' -o out/net
  dy2st inspect out/net
  dy2st run out/net --input x.npy""",
    "dump": """examples:
  dy2st dump model.py                       # every function of the file, converted
  dy2st dump model.py:f --pass ifelse       # the code after the ifelse pass
  dy2st dump model.py:Net --program --input-spec 'x:float32[None,3]'
  dy2st dump model.py:Net --program --input-spec 'x:float32[None,3]' --graph net.svg
  dy2st dump model.py:Net --init '{"hidden": 64}' --program --input-spec 'x:float32[None,3]'
  dy2st dump model.py:f --explain --input-spec 'x:float32[4]'""",
    "export": """examples:
  dy2st export model.py:Net --input-spec 'x:float32[None,3]' -o out/net
  dy2st export model.py:Net --init '{"hidden": 64}' --params net.pdparams \\
      --input-spec 'img:float32[None,3,32,32]' -o out/net
  dy2st export model.py:Net --input-spec 'x:float32[None,3]' --format onnx -o out/net
  dy2st export out/net.json --format onnx -o out/net     # a saved model to ONNX""",
    "inspect": """examples:
  dy2st inspect out/net
  dy2st inspect out/net.json --program""",
    "run": """examples:
  dy2st run out/net --input x.npy
  dy2st run out/net --input img=x.npy --output out.npz""",
}


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose help keeps the examples' layout and whose errors are one line."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(USER_ERROR, f"{self.prog}: error: {message}; see {self.prog} --help\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dy2st", description="Convert, export, inspect and run dy2st models.",
                epilog=EXAMPLES["dy2st"])
    p.add_argument("--version", action="version", version=f"dy2st {__version__}")
    p.add_argument("--traceback", action="store_true", help="show full tracebacks of errors")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           parser_class=_Parser)

    d = sub.add_parser("dump", help="show a function's transformed source and program",
                       epilog=EXAMPLES["dump"])
    d.add_argument("target", metavar="FILE.py[:QUALNAME]",
                   help="a file, or one function, method or Layer class in it")
    d.add_argument("--pass", dest="passes", action="append", metavar="NAME",
                   help="stop after this pass (repeatable)")
    d.add_argument("--program", action="store_true", help="also trace and print the Program")
    d.add_argument("--input-spec", action="append", metavar="SPEC", help="e.g. x:float32[None,10]")
    d.add_argument("--graph", metavar="OUT.dot|OUT.svg",
                   help="with --program: write the Program's Graphviz picture (.dot text; .svg, "
                        ".png, .pdf need Graphviz's `dot`)")
    d.add_argument("--init", metavar="JSON",
                   help="keyword arguments of the Layer class whose forward --program or "
                        "--explain runs")
    d.add_argument("--explain", action="store_true",
                   help="run it on example inputs (--input-spec) and report its graph breaks")
    d.set_defaults(func=cmd_dump)

    e = sub.add_parser("export", help="convert a Layer or function and save it",
                       epilog=EXAMPLES["export"])
    e.add_argument("target", metavar="MODULE_OR_FILE:OBJECT")
    e.add_argument("--input-spec", action="append", metavar="SPEC", help="e.g. x:float32[None,10]")
    e.add_argument("-o", "--output", required=True, metavar="PATH", help="model path prefix")
    e.add_argument("--init", metavar="JSON",
                   help="keyword arguments of a Layer class's constructor, as a JSON object")
    e.add_argument("--params", metavar="FILE",
                   help="a state dict saved with paddle.save, loaded into the Layer first")
    e.add_argument("--format", choices=("dy2st", "onnx"), default="dy2st",
                   help="dy2st: PATH.json + .npz (jit.save); onnx: PATH.onnx (TARGET may then "
                        "also be a saved MODEL.json)")
    e.add_argument("--opset-version", type=int, default=None, metavar="N",
                   help="ONNX opset (with --format onnx; default: dy2st.onnx's)")
    e.set_defaults(func=cmd_export)

    i = sub.add_parser("inspect", help="describe a saved model", epilog=EXAMPLES["inspect"])
    i.add_argument("path", metavar="PATH")
    i.add_argument("--program", action="store_true", help="print the whole Program")
    i.set_defaults(func=cmd_inspect)

    r = sub.add_parser("run", help="run a saved model on .npy inputs", epilog=EXAMPLES["run"])
    r.add_argument("path", metavar="PATH")
    r.add_argument("--input", action="append", metavar="[NAME=]FILE.npy",
                   help="one per model input, in order (or by name)")
    r.add_argument("--output", metavar="OUT.npz", help="write the outputs here instead of printing")
    r.add_argument("--max-loop-iterations", type=int, default=None, metavar="N",
                   help="fail a while loop that runs more than N turns (default: no bound; set "
                        "it, or --timeout, for a model you do not trust)")
    r.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="fail the run after S seconds (default: no limit)")
    r.set_defaults(func=cmd_run)
    p.subcommands = sub.choices          # for the unknown-option check in main
    return p


def _unknown_option(parser: argparse.ArgumentParser, command: str, extra: List[str]) -> str:
    """The error line for arguments no option of `command` takes, with the closest option."""
    from .jit.keywords import suggestion  # jit loads only when an option is misspelled
    first = extra[0]
    sub = parser.subcommands.get(command)
    if not first.startswith("-"):
        return f"unexpected argument {first!r}"
    name = first.split("=", 1)[0]
    if name in parser._option_string_actions:
        return f"{name} belongs before the command: dy2st {name} {command} ..."
    options = set(parser._option_string_actions) | set(sub._option_string_actions if sub else ())
    long_options = {o for o in options if o.startswith("--")}
    hint = suggestion(name.lstrip("-").replace("-", "_"),
                      {o[2:].replace("-", "_") for o in long_options})
    hint = hint.replace("did you mean ", "did you mean --").replace("_", "-")
    return f"unknown option {name}{hint}; see dy2st {command} --help"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        print(f"dy2st {args.command}: error: {_unknown_option(parser, args.command, extra)}",
              file=sys.stderr)
        return USER_ERROR
    if not hasattr(args, "traceback"):
        args.traceback = False
    # lazy: each command loads only what it runs (the CLI starts fast)
    from .format import ModelFormatError
    try:
        return args.func(args)
    except (UserError, ModelFormatError) as e:
        if args.traceback:
            raise
        print(f"dy2st {args.command}: error: {_one_line(e)}", file=sys.stderr)
        return USER_ERROR
    except Exception as e:  # noqa: BLE001 - anything else failed while running: one line
        if args.traceback:
            raise
        print(f"dy2st {args.command}: error: {_one_line(e)}", file=sys.stderr)
        return RUN_FAILED


if __name__ == "__main__":
    sys.exit(main())
