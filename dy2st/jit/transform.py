"""Source to converted function: parse with gast, run the passes, compile the result with each
node's line number pointing at its user origin, and rebuild the function with its globals/closure."""
from __future__ import annotations

import ast
import dis
import functools
import linecache
import os
import textwrap
import threading
import types
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import gast

from ..jst import namespace as jst
from ..runtime.origin import Origin, source_maps
from ..transformers import anno
from ..transformers.context import PassContext
from ..transformers.gast_bridge import ast_to_gast, gast_to_ast, to_ast_in_place
from ..transformers.mangle import mangle_function
from ..transformers.naming import Namer, names_in
from ..transformers.origin_info import attach_origins
from ..transformers.pipeline import PASS_NAMES, features, run_passes
from .errors import ConversionError, SourceUnavailableError
from .logger import code_level, log
from .source_match import is_pseudo_file, is_source_of

FACTORY = "dy2st_factory"
# Parsing, transforming and compiling run one thread at a time: CPython (3.11) keeps the ast
# module's recursion counter per interpreter, so two threads building ast objects at once can
# fail with `SystemError: AST constructor recursion depth mismatch` (issues 17, 31). Every
# ast.parse and every compile() of an ast tree in dy2st (graph-break outlines included) holds
# it. Reentrant: a conversion may start another one. A lock is not state to reset.
conversion_lock = threading.RLock()


@dataclass
class ConvertedCode:
    """The transformed source of one function and its compiled code."""
    function_node: ast.AST  # the converted function (unparsed only when someone reads it)
    filename: str
    code: types.CodeType   # the converted function's own code (free variables: _jst + the original's)
    freevars: Tuple[str, ...]
    global_writes: Dict[str, Origin]   # globals the function assigns -> first such line
    # attributes the function assigns on its first parameter (`self.v = ...` in a method)
    self_writes: Tuple[str, ...] = ()

    @property
    def source(self) -> str:
        """The converted function as Python source."""
        with conversion_lock:     # the tree's defaults are swapped while it compiles
            return ast.unparse(self.function_node)


class ConversionCache:
    """Transformed code by the original code object (functions sharing code share it), and the
    parsed text of the files they come from."""

    def __init__(self) -> None:
        self._by_code: Dict[Tuple[str, types.CodeType], ConvertedCode] = {}
        self._files: Dict[str, Tuple[str, ast.Module]] = {}

    def module_tree(self, filename: str, text: str) -> ast.Module:
        hit = self._files.get(filename)
        if hit is None or hit[0] != text:
            hit = (text, ast.parse(text, filename))
            self._files[filename] = hit
        return hit[1]

    def get(self, code: types.CodeType) -> Optional[ConvertedCode]:
        # code objects compare equal across files when their bytecode is equal: key by file too
        return self._by_code.get((code.co_filename, code))

    def put(self, code: types.CodeType, converted: ConvertedCode) -> None:
        self._by_code[(code.co_filename, code)] = converted

    def clear(self) -> None:
        self._by_code.clear()
        self._files.clear()


cache = ConversionCache()


def _no_source(fn: Callable, why: str) -> SourceUnavailableError:
    code = getattr(fn, "__code__", None)
    where = f" (defined in {code.co_filename})" if code is not None else ""
    return SourceUnavailableError(
        f"cannot convert {getattr(fn, '__qualname__', repr(fn))}{where}: its source code is not "
        f"available ({why}). Functions typed into an interactive interpreter or shipped only as "
        ".pyc files cannot be converted; put it in a .py file, or mark it with "
        "@dy2st.jit.not_to_static to run it as it is")


def _find_def(tree: ast.Module, code: types.CodeType) -> Optional[ast.AST]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if code.co_firstlineno in (first, node.lineno):
                return node
    return None


def _last_line(code: types.CodeType) -> int:
    """The last source line of code or of any code nested in it (lambdas, inner defs)."""
    last = code.co_firstlineno
    lines = code.co_lines() if hasattr(code, "co_lines") else (
        (0, 0, ln) for _, ln in dis.findlinestarts(code))
    for _, _, line in lines:
        if line is not None and line > last:
            last = line
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            last = max(last, _last_line(const))
    return last


def _lambdas_at(tree: ast.Module, code: types.CodeType) -> List[ast.Lambda]:
    """The lambdas on code's first line taking code's parameters."""
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    return [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and
            n.lineno == code.co_firstlineno and
            [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == params]


def _lambda_as_def(lam: ast.Lambda) -> ast.FunctionDef:
    """The lambda rewritten as `def <lambda-name>(args): return body`."""
    fn_def = ast.FunctionDef(name=f"lambda_{lam.lineno}_{lam.col_offset}", args=lam.args,
                             body=[ast.Return(value=lam.body)], decorator_list=[], returns=None,
                             type_comment=None, type_params=[])
    ast.copy_location(fn_def, lam)
    ast.copy_location(fn_def.body[0], lam.body)
    return ast.fix_missing_locations(fn_def)


def _parse_block(lines: List[str], code: types.CodeType) -> Optional[Tuple[ast.FunctionDef, int]]:
    """Parse just the function's own lines (a whole file costs far more); None when the block
    cannot be cut out cleanly, e.g. a closing bracket after its last line with code."""
    first = code.co_firstlineno
    last = _last_line(code)
    for extra in range(4):
        text = "".join(lines[first - 1:last + extra])
        if text[:1].isspace():            # a method or nested def
            text = textwrap.dedent(text)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        node = tree.body[0] if tree.body else None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            return node, first
        return None
    return None


def parse_function(fn: Callable) -> Tuple[gast.FunctionDef, List[gast.AST], List[str], int, str]:
    """(gast FunctionDef, all its nodes, the source lines, the file line of their first, file
    name): the def is found by its code object's first line in the cached parse of its file (not
    through inspect, which tokenizes the file and follows functools.wraps `__wrapped__` to the
    wrong function). Under conversion_lock, as every ast.parse / compile of an ast tree."""
    with conversion_lock:
        parsed = _parse_function(fn)
        mangle_function(parsed[0], parsed[1], fn)     # compiled outside its class from here on
        return parsed


def _parse_function(fn: Callable) -> Tuple[gast.FunctionDef, List[gast.AST], List[str], int, str]:
    code = getattr(fn, "__code__", None)
    if code is None:
        raise TypeError(f"cannot convert {fn!r}: not a Python function")
    filename = code.co_filename
    lines = linecache.getlines(filename, getattr(fn, "__globals__", None))
    if not lines:
        raise _no_source(fn, "no source lines are known for its file")
    # a pseudo-file's text may be another code's (every exec'd string is "<string>"): check it
    pseudo = is_pseudo_file(filename)
    found = _parse_block(lines, code) if code.co_name != "<lambda>" else None
    if found is not None and pseudo and not is_source_of(found[0], code):
        found = None
    nodes: List[gast.AST] = []
    if found is not None:
        # origins index source lines from the block's first line (only its own are needed)
        node, first = found
        own = [ln.rstrip("\n") for ln in lines[first - 1:first - 1 + node.end_lineno]]
        return ast_to_gast(node, nodes), nodes, own, first, filename
    try:
        tree = cache.module_tree(filename, "".join(lines))
    except SyntaxError as e:
        raise ConversionError(f"cannot parse the source of {fn.__qualname__} "
                              f"({filename}, line {e.lineno}): {e.msg}") from None
    if code.co_name == "<lambda>":
        lambdas = [n for n in _lambdas_at(tree, code) if not pseudo or is_source_of(n, code)]
        if len(lambdas) > 1:
            raise ConversionError(f"cannot convert {fn.__qualname__} (line {code.co_firstlineno}): "
                                  "several lambdas on that line take the same arguments; give it "
                                  "a name with `def`")
        node = _lambda_as_def(lambdas[0]) if lambdas else None
    else:
        node = _find_def(tree, code)
        if node is not None and pseudo and not is_source_of(node, code):
            node = None
    if node is None:
        raise _no_source(fn, "its definition is not in the current text of its file")
    return ast_to_gast(node, nodes), nodes, [ln.rstrip("\n") for ln in lines], 1, filename


def check_supported(fn_node: Any, filename: str, start: int,
                    nodes: Optional[List[gast.AST]] = None) -> None:
    def fail(node: gast.AST, what: str) -> None:
        line = start + node.lineno - 1
        raise ConversionError(f"{what} is not supported by to_static "
                              f'(File "{filename}", line {line})')

    if isinstance(fn_node, gast.AsyncFunctionDef):
        fail(fn_node, "an async function")
    nodes = nodes if nodes is not None else list(gast.walk(fn_node))
    globals_ = {n for s in nodes if isinstance(s, gast.Global) for n in s.names}
    for node in nodes:
        if isinstance(node, (gast.Yield, gast.YieldFrom)):
            fail(node, "`yield` (a generator function)")
        if isinstance(node, (gast.Await, gast.AsyncFor, gast.AsyncWith)):
            fail(node, "`async` code")
        if isinstance(node, (gast.If, gast.While, gast.For)) and globals_:
            # lazy: keeps transformers.analysis out of a first to_static call (loaded on first use)
            from ..transformers.analysis import written_names
            hit = written_names(node.body + node.orelse) & globals_
            if hit:
                fail(node, f"assigning the global {sorted(hit)[0]!r} inside an if / loop")
    if globals_:
        _check_global_writes_after_return(fn_node, globals_, fail)


def _check_global_writes_after_return(fn_node: Any, globals_: set, fail: Callable) -> None:
    """A global assigned after a `return` inside an if / loop: the converted function runs
    the rest of its body under an `if` on "not returned yet", where the write would happen
    whether or not an earlier return was taken."""
    # lazy: keeps transformers.analysis out of a first to_static call (loaded on first use)
    from ..transformers.analysis import written_names
    returned = False
    for stmt in fn_node.body:
        if returned:
            hit = written_names([stmt]) & globals_
            if hit:
                fail(stmt, f"assigning the global {sorted(hit)[0]!r} after a `return` inside "
                           "an if / loop")
        elif isinstance(stmt, (gast.If, gast.While, gast.For, gast.Try, gast.With)) and any(
                isinstance(n, gast.Return) for n in _walk_no_scopes(stmt)):
            returned = True


def _walk_no_scopes(node: gast.AST) -> List[gast.AST]:
    out, stack = [], list(gast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        out.append(n)
        if not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                              gast.ClassDef)):
            stack.extend(gast.iter_child_nodes(n))
    return out


def _strip_signature_extras(node: gast.FunctionDef) -> None:
    """Decorators and annotations go: the converted twin is built without re-running them."""
    node.decorator_list = []
    node.returns = None
    a = node.args
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None


def global_writes(fn_node: gast.FunctionDef, nodes: List[gast.AST]) -> Dict[str, Origin]:
    """Names declared `global` and assigned in the function, with the first assigning line."""
    # lazy: keeps transformers.analysis out of a first to_static call (loaded on first use)
    from ..transformers.analysis import target_names
    declared = {n for s in nodes if isinstance(s, gast.Global) for n in s.names}
    found: Dict[str, Origin] = {}
    for s in nodes:
        targets = s.targets if isinstance(s, gast.Assign) else (
            [s.target] if isinstance(s, (gast.AugAssign, gast.AnnAssign)) else [])
        names: set = set()
        for t in targets:
            target_names(t, names)
        for n in sorted(names & declared):
            found.setdefault(n, anno.getanno(s, anno.ORIGIN))
    return found


def first_parameter_attribute_writes(fn_node: gast.FunctionDef,
                                     nodes: List[gast.AST]) -> Tuple[str, ...]:
    """Attributes assigned on the function's first parameter anywhere in it (`self.v = ...`,
    `self.n += 1`): a method called in a tensor loop changes that state of its object."""
    params = fn_node.args.args
    if not params or not isinstance(params[0], gast.Name):
        return ()
    first = params[0].id
    return tuple(dict.fromkeys(
        n.attr for n in nodes if type(n) is gast.Attribute and type(n.ctx) is gast.Store and
        type(n.value) is gast.Name and n.value.id == first))


def transform_tree(fn: Callable, until: Optional[str] = None,
                   on_pass: Optional[Callable[[str, gast.AST], None]] = None,
                   parsed: Optional[Tuple] = None) -> Tuple[gast.FunctionDef, str, int]:
    """`parsed`, when given, stands for parse_function(fn): a tree built from the user's source
    elsewhere (the regions of a function with graph breaks)."""
    with conversion_lock:
        return _transform_tree(fn, until, on_pass, parsed)


def _transform_tree(fn: Callable, until: Optional[str],
                    on_pass: Optional[Callable[[str, gast.AST], None]],
                    parsed: Optional[Tuple]) -> Tuple[gast.FunctionDef, str, int]:
    node, nodes, lines, start, filename = parsed or parse_function(fn)   # nodes serve every check below
    present = features(node, nodes)
    if {"global", "unsupported"} & present or isinstance(node, gast.AsyncFunctionDef):
        check_supported(node, filename, start, nodes)
    attach_origins(node, filename, start, lines, node.name, nodes)
    ctx = PassContext(Namer(names_in(node, nodes)), filename, node.name,
                      freevars=_free_variables(getattr(fn, "__code__", None)))
    writes = global_writes(node, nodes) if "global" in present else {}
    self_writes = first_parameter_attribute_writes(node, nodes)
    _strip_signature_extras(node)
    wrapper = gast.Module(body=[node], type_ignores=[])
    level = code_level()
    if on_pass is None and 0 < level <= len(PASS_NAMES):
        wanted = PASS_NAMES[level - 1]

        def on_pass(name: str, tree: gast.AST) -> None:
            if name == wanted:
                log.info("dy2st: %s after pass %d %r:\n%s", fn.__qualname__, level, name,
                         to_source(tree))
    run_passes(wrapper, ctx, until=until, on_pass=on_pass, present=present)
    anno.setanno(wrapper.body[0], "global_writes", writes)
    anno.setanno(wrapper.body[0], "self_writes", self_writes)
    return wrapper.body[0], filename, start


def to_source(node: gast.AST) -> str:
    tree = gast_to_ast(node)
    return ast.unparse(ast.fix_missing_locations(tree))


class _NeutralDefaults:
    """Default values become None in the compiled code (the original values are copied onto the
    new function), so their expressions are not evaluated again; the shown source keeps them."""

    def __init__(self, fn_def: ast.FunctionDef) -> None:
        self.args = fn_def.args

    def __enter__(self) -> None:
        a = self.args
        self.saved = a.defaults, a.kw_defaults
        a.defaults = [ast.copy_location(ast.Constant(value=None), d) for d in a.defaults]
        a.kw_defaults = [None if d is None else ast.copy_location(ast.Constant(value=None), d)
                         for d in a.kw_defaults]

    def __exit__(self, *exc: Any) -> None:
        self.args.defaults, self.args.kw_defaults = self.saved


@functools.lru_cache(maxsize=256)
def _free_variables(code: Optional[types.CodeType]) -> Dict[str, frozenset]:
    """{function name: its free variables} for code and the functions defined in it; a name
    two functions share (with different free variables) is left out."""
    out: Dict[str, frozenset] = {}
    clash = set()
    todo = [code] if code is not None else []
    while todo:
        c = todo.pop()
        free = frozenset(c.co_freevars)
        if out.get(c.co_name, free) != free:
            clash.add(c.co_name)
        out[c.co_name] = free
        todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return {k: v for k, v in out.items() if k not in clash}


def _factory_template(name: str, freevars: Tuple[str, ...]) -> ast.FunctionDef:
    """`def dy2st_factory(_jst, <freevars>): [global name]; pass`, parsed once per shape (never
    modified: each use converts it to a new gast tree)."""
    own = f"    global {name}\n" if name not in freevars else ""
    return ast.parse(f"def {FACTORY}(_jst{''.join(', ' + v for v in freevars)}):\n{own}    pass\n"
                     ).body[0]


def build_code(fn: types.FunctionType, parsed: Optional[Tuple] = None) -> ConvertedCode:
    with conversion_lock:
        return _build_code(fn, parsed)


def _build_code(fn: types.FunctionType, parsed: Optional[Tuple] = None) -> ConvertedCode:
    node, filename, start = transform_tree(fn, parsed=parsed)
    freevars = tuple(fn.__code__.co_freevars)
    # The factory is never called: it only makes _jst and the original's free variables free
    # variables of the converted code. Its own name stays global (as in the original) so that a
    # recursive module-level function still finds itself.
    factory = ast_to_gast(_factory_template(node.name, freevars))
    factory.body = factory.body[:-1] + [node, gast.Return(value=gast.Name(id=node.name, ctx=gast.Load(),
                                                        annotation=None, type_comment=None))]
    module = gast.Module(body=[factory], type_ignores=[])
    origins: List[Optional[Origin]] = []
    tagged = to_ast_in_place(module, origins)      # the gast tree is not needed any more
    gen_name = f"<dy2st {os.path.basename(filename)}:{fn.__code__.co_firstlineno} {fn.__qualname__}>"
    # The tagged tree compiles as it is (no unparse and re-parse): its line numbers index
    # origins, so linecache shows the user's line for each of them in tracebacks.
    linecache.cache[gen_name] = (0, None, [f"{o.source}\n" if o else "\n" for o in origins[1:]],
                                 gen_name)
    source_maps.register(gen_name, origins, tagged)
    function_node = tagged.body[0].body[-2]
    with _NeutralDefaults(function_node):
        code = compile(tagged, gen_name, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == FACTORY)
    inner = next(c for c in factory_code.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == node.name)
    converted = ConvertedCode(function_node, gen_name, inner, freevars,
                              anno.getanno(node, "global_writes") or {},
                              anno.getanno(node, "self_writes") or ())
    if code_level() > len(PASS_NAMES):
        log.info("dy2st: %s after the last pass:\n%s", fn.__qualname__, converted.source)
    return converted


def convert_function(fn: types.FunctionType) -> types.FunctionType:
    """The converted twin of fn: same globals, closure cells, defaults and name."""
    converted = converted_code(fn)
    # The original's own cells, not copies of their values: a `nonlocal` write through the
    # converted function (or another closure) is seen by both.
    original = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells = tuple(types.CellType(jst) if name == "_jst" else original[name]
                  for name in converted.code.co_freevars)
    new_fn = types.FunctionType(converted.code, fn.__globals__, fn.__name__, None, cells)
    new_fn.__defaults__ = fn.__defaults__
    new_fn.__kwdefaults__ = fn.__kwdefaults__
    new_fn.__dict__.update(fn.__dict__)
    new_fn.__qualname__ = fn.__qualname__
    if converted.self_writes:
        new_fn._dy2st_self_writes = converted.self_writes
    return new_fn


def converted_code(fn: types.FunctionType) -> ConvertedCode:
    """fn's converted code, built once however many threads ask for it at the same time."""
    converted = cache.get(fn.__code__)
    if converted is None:
        with conversion_lock:
            converted = cache.get(fn.__code__)       # another thread may have just built it
            if converted is None:
                converted = build_code(fn)
                cache.put(fn.__code__, converted)
    return converted


def converted_source(fn: types.FunctionType) -> str:
    return converted_code(fn).source
