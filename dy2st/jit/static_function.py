"""StaticFunction: a converted function plus its program cache; the object `to_static` returns."""
from __future__ import annotations

import functools
import inspect
import sys
import types
import weakref
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..autograd.traced_leaves import returned_leaves
from ..backends import compile_for, resolve_backend
from ..format.concrete import ConcreteProgram
from ..format.input_spec import InputSpec
from ..jst.namespace import fails_on_its_path, raise_when_reached
from ..runtime import state
from ..runtime.dtype import dtype_name, dtype_of_array
from ..runtime.executor import CompiledProgram
from ..runtime.passes import optimize
from ..runtime.persistable import store
from ..runtime.program import Program, program_guard
from ..runtime.python_value import PythonValue, as_numbers, number_leaves
from ..runtime.pytree import flatten, is_namedtuple, unflatten
from ..runtime.registry import hooks as _hooks
from ..runtime.state import dynamic_view
from ..runtime.tensor import Tensor, TensorLike
from . import auto_dynamic, auto_numbers, cache_limit, input_grads, output_leaves, run_program
from .absent_keys import ABSENT, drop_absent
from .carried_state import carry_state, state_before
from .errors import ConversionError, raise_in_user_code, raise_run_error
from .global_writes import global_values, restore_symbolic_globals
from .guards import build_guards, note_call, recording
from .guards.recorder import bound_arguments, top_frame, watch
from .keywords import check_keywords
from .logger import log
from .options import TO_STATIC_KEYWORDS, options
from .run_program import is_input, output_tensor
from .signature import CallBinder, describe_change, spec_key, value_key
from .transform import convert_function, converted_source


class TracedProgram(NamedTuple):
    """A freshly traced Program and how the call's arguments and results map onto it."""
    program: Program
    inputs: List[InputSpec]
    out_tree: Any
    leaves_desc: List[Tuple[str, Any]]
    in_tree: Any
    positions: Optional[List[int]]
    input_structure: Any = None
    identity: Any = None        # graph_break.identity.Identity (regions of a broken function)
    python_leaves: Tuple[int, ...] = ()     # result leaves that eager code has as numbers
    numbers: Any = None     # (argument numbers, sources) made inputs: auto_numbers.make_feeds


class CacheEntry:
    """One traced signature: the program, its compiled callable and how to call it."""

    guards: Any = None      # a GuardSet (guards/), None when the trace read no Python state
    identity: Any = None    # graph_break.identity.Identity: eager object identities to restore
    # result leaves read by .item() / float() / int() / bool() / .tolist(): returned as the
    # Python numbers eager code returns (the program computes them), None when there are none
    python_leaves: Optional[Tuple[int, ...]] = None
    numbers: Any = None     # the Python numbers that are inputs (auto_numbers), else None
    sibling: Optional["CacheEntry"] = None      # an older entry of the same key, other guards
    input_grads: Any = None     # (feed, slot) of the inputs' `.grad` it uses (input_grads.py)
    leaves: Dict[int, Tuple[int, int]] = {}     # new leaves a step returns (returned_leaves)

    def __init__(self, concrete: ConcreteProgram, compiled: CompiledProgram, in_tree: Any,
                 flat_positions: Optional[List[int]], key: Tuple) -> None:
        self.concrete = concrete
        self.compiled = compiled
        self.run = compiled._run
        self.in_tree = in_tree
        self.flat_positions = flat_positions
        self.key = key
        self.writes: List[Tuple[Tensor, int]] = []    # (persistable tensor, index of its new value)
        self.grad_state: Any = None                   # run_program's per-entry gradient data
        self.last_outs: Optional[List[Any]] = None    # the arrays the last call returned
        leaves = concrete.output_leaves
        dense = [concrete.program.global_block().vars[n].kind == "dense"
                 for n in concrete.program.fetch_names]
        self.single = (concrete.output_tree is not None and len(leaves) == 1 and
                       leaves[0][0] == "var" and not isinstance(concrete.output_tree, tuple)
                       and all(dense))

    def feeds(self, args: Tuple, kwargs: Dict) -> List[Any]:
        if self.input_grads is not None:
            input_grads.bind_call(self.input_grads, args, kwargs)
        if self.flat_positions is not None and not kwargs:
            out = []
            for i in self.flat_positions:
                a = args[i]
                out.append(a._value if type(a) is Tensor else _array(a))
            return out
        leaves, _ = flatten((args, kwargs), is_leaf=is_input)
        return [_array(x) for x in leaves if is_input(x)]

    def build(self, outs: List[Any]) -> Any:
        if self.single:
            return Tensor(outs[0])
        values = []
        for kind, v in self.concrete.output_leaves:
            values.append(output_tensor(outs, v, self.leaves) if kind == "var" else
                          output_leaves.leaf_value(kind, v, outs))
        out = unflatten(self.concrete.output_tree, values)
        return drop_absent(out) if any(v is ABSENT for v in values) else out


def run_entry(entry: CacheEntry, feeds: List[Any]) -> List[Any]:
    """Run an entry's compiled program; errors name the user's line; persistable tensors the
    program updates (running statistics, parameters) take their new values."""
    try:
        outs = entry.run(feeds)
    except Exception as e:  # noqa: BLE001 - map the failing op to the user's line
        raise_run_error(e, entry.compiled)
    for tensor, index in entry.writes:
        store(tensor, np.asarray(outs[index]))
    return outs


class _NotALayer:
    """Stands in for nn.Layer when the bound object is no Layer: such a function's programs own
    no Layer's parameters, so a change of Layer structure never revalidates them."""
    structure_epoch = 0


def _layer_class_for(obj: Any) -> type:
    """nn.Layer if `obj` is a Layer, else _NotALayer; never imports nn (a Layer instance exists
    only once dy2st.nn.layer is imported), which keeps nn off the path of a first to_static."""
    layer_module = sys.modules.get("dy2st.nn.layer")
    if layer_module is not None and isinstance(obj, layer_module.Layer):
        return layer_module.Layer
    return _NotALayer


def _array(x: Any) -> np.ndarray:
    return x._value if isinstance(x, Tensor) else np.asarray(x)


class StaticFunction:
    """Callable like the original; each new input signature is traced once into a Program."""
    _input_grads: Any = None    # input_grads.GradKey once a trace used `.grad`

    def __init__(self, function: Callable, input_spec: Optional[Sequence[Any]] = None,
                 full_graph: bool = False, instance: Any = None, backend: Optional[str] = None,
                 **kwargs: Any) -> None:
        self._function = function
        # the executor of this function's programs (dy2st/backends): "numpy" or "xla"
        self.backend = resolve_backend(backend)
        self._instance = instance
        self._input_spec = normalize_specs(input_spec) if input_spec else None
        self._full_graph = full_graph
        self._entries: Dict[Tuple, CacheEntry] = {}
        self._programs = 0              # entries traced (siblings included): the cache limit
        self._over_limit = False
        self._last: Optional[CacheEntry] = None
        self._converted: Optional[Callable] = None
        # wraps the converted function once made (jit.save: the Layer's own forward hooks)
        self.around: Optional[Callable[[Callable], Callable]] = None
        self._bound: "weakref.WeakKeyDictionary[Any, StaticFunction]" = weakref.WeakKeyDictionary()
        self._layer_cls = _layer_class_for(instance)
        # graph_break.identity for a region of a broken function (object identities kept
        # across its boundary), None otherwise
        self._identity: Any = None
        self._numbers: Optional[auto_numbers.Layout] = None     # numbers that are inputs
        self._number_plan: Optional[auto_numbers.Layout] = None  # ... in the current trace
        self._rekey: Optional[Callable] = None      # Layout.rekey once it has positions
        self._binder = CallBinder(function, instance is not None)
        self._n_args = self._binder._fast_len
        functools.update_wrapper(self, function)

    # -- binding ----------------------------------------------------------------------------
    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = None
        if bound is None:
            bound = StaticFunction(self._function, self._input_spec, self._full_graph, instance,
                                   backend=self.backend)
            try:
                self._bound[instance] = bound
            except TypeError:
                pass
        return bound

    @property
    def dygraph_function(self) -> Callable:
        if self._instance is not None:
            return types.MethodType(self._function, self._instance)
        return self._function

    def converted_callable(self) -> Callable:
        if self._converted is None:
            fn = self._function
            if not isinstance(fn, types.FunctionType):
                raise TypeError(f"to_static expects a function, method or Layer, got {type(fn).__name__}")
            self._converted = convert_function(fn)
            if self.around is not None:
                self._converted = self.around(self._converted)
        if self._instance is not None:
            return types.MethodType(self._converted, self._instance)
        return self._converted

    def _converted_code(self) -> Optional[types.CodeType]:
        """The code a trace runs for this function (None when it is called as it is)."""
        fn = self._function
        if not isinstance(fn, types.FunctionType):
            return None
        converted = convert_function(fn)
        return converted.__code__ if converted is not fn else fn.__code__

    # -- calling ----------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not options.enabled or state.build_state.blocks:
            if state.build_state.blocks:     # called while another program is traced: inline it
                return self.converted_callable()(*args, **kwargs)
            return self.dygraph_function(*args, **kwargs)
        if kwargs or len(args) != self._n_args:
            args, kwargs = self._binder.canonical(args, kwargs)
        key = self._key(args, kwargs)
        entry = self._entries.get(key)
        if entry is not None and entry.epoch != self._layer_cls.structure_epoch:
            entry = self._revalidate(entry)
        if entry is not None and entry.guards is not None and not entry.guards.check():
            entry = _passing_sibling(entry.sibling)
        if entry is None:
            if self._programs >= cache_limit.CACHE_LIMIT or self._over_limit:
                return cache_limit.run_eagerly(self, args, kwargs, key)
            if self._programs >= auto_dynamic.SHAPES_BEFORE_DYNAMIC - 1:
                entry = self._widened(args, kwargs)
            if entry is None:
                if not self._full_graph:    # graph breaks: dy2st/jit/graph_break
                    # circle: graph_break imports this module; it loads on the first miss
                    from .graph_break.miss import Result, on_miss
                    entry = on_miss(self, args, kwargs, key)
                    if type(entry) is Result:
                        return entry.value
                else:
                    entry = self._trace(args, kwargs, key)
            if entry.guards is not None and entry.guards.never:    # see full_graph_effects
                try:
                    return self.dygraph_function(*args, **kwargs)
                except Exception as e:  # noqa: BLE001 - at the user's line, as a traced error
                    raise_in_user_code(e)
        self._last = entry
        feeds = entry.feeds(args, kwargs)
        if state.build_state.grad_enabled and run_program.wants_grad(entry, args, kwargs):
            if entry.numbers is not None:
                if entry.numbers[1]:    # guarded numbers: no gradient program takes them (yet)
                    return self.dygraph_function(*args, **kwargs)
                self._number_plan = self._numbers   # its gradient program traces them alike
            value = run_program.call_with_grad(self, entry, args, kwargs, feeds)
        else:
            outs = run_entry(entry, feeds)
            entry.last_outs = outs          # jit.save's output_spec finds returned tensors here
            value = entry.build(outs)
        if entry.identity is not None:
            value = entry.identity.restore(value, args, kwargs)
        if entry.python_leaves is not None:
            tree = entry.identity.tree if entry.identity is not None else \
                entry.concrete.output_tree
            value = as_numbers(value, tree, entry.python_leaves)
        return value

    def _widened(self, args: Tuple, kwargs: Dict) -> Optional[CacheEntry]:
        """A program with unknown dims for the arguments whose shapes kept changing."""
        specs = auto_dynamic.widen(self, args, kwargs)
        if specs is None or self.__dict__.get("_gb") is not None:
            return None
        entry = self._entries.get(self._key_with(specs, args, kwargs))
        return entry or auto_dynamic.trace_widened(self, args, kwargs, specs)

    def _key_with(self, specs: List[Any], args: Tuple, kwargs: Dict) -> Tuple:
        saved, self._input_spec = self._input_spec, specs
        try:
            return self._key(args, kwargs)
        finally:
            self._input_spec = saved

    def _key(self, args: Tuple, kwargs: Dict) -> Tuple:
        """The cache key of a canonical call (see CallBinder): a tensor is keyed by its spec
        (None dims) only when the trace gives its feed that spec, else by its exact shape."""
        specs = self._input_spec
        if specs and _flat_positions(args, kwargs) is not None:
            key = tuple(spec_key(a, specs[i] if i < len(specs) else None) for i, a in enumerate(args))
        elif specs and not kwargs:
            key = tuple(_nested_spec_key(a, specs[i] if i < len(specs) else None)
                        for i, a in enumerate(args))
        else:
            key = tuple([value_key(a) for a in args])
        kw = tuple((k, value_key(v)) for k, v in sorted(kwargs.items())) if kwargs else ()
        inst = self._instance
        training = bool(inst.training) if inst is not None and hasattr(inst, "training") else None
        if self._rekey is not None:     # number arguments that are inputs (auto_numbers)
            key = self._rekey(key, args)
        if self._input_grads is not None:   # programs that use `.grad` (input_grads)
            kw = kw + self._input_grads.part(args, kwargs)
        if self._identity is not None:          # which inputs are one object
            kw = kw + self._identity.key_part(args, kwargs)
        if _hooks.autocast_key is not None:     # under paddle.amp.auto_cast: its own programs
            return (key, kw, training, _hooks.autocast_key)
        return (key, kw, training)

    def _arg_names(self, n: int) -> List[str]:
        params = _parameter_names(self._function)
        if self._instance is not None:
            params = params[1:]
        return [params[i] if i < len(params) else f"arg{i}" for i in range(n)]

    def _trace(self, args: Tuple, kwargs: Dict, key: Tuple, numbers: bool = True) -> CacheEntry:
        same_key = self._entries.get(key)
        if same_key is not None and same_key.guards is not None:
            log.info("to_static: tracing %s again: guard failed: %s", self.__name__,
                     same_key.guards.failure() or "a guarded value changed")
        elif self._entries:
            names = self._arg_names(len(args))
            last = self._last.key if self._last is not None else next(iter(self._entries))
            log.info("to_static: tracing %s again: %s; give an InputSpec with None for the dims "
                     "that vary to trace once", self.__name__, describe_change(names, last, key))
        numbers = numbers and auto_numbers.ENABLED
        entries = self._entries
        if numbers:
            auto_numbers.before_trace(self, args, kwargs, same_key)
        effects = None
        if self._full_graph:    # no islands: side effects run eagerly (full_graph_effects)
            # graph_break loads lazily: a function that traces whole never needs the rest of it
            from .graph_break.side_effects import full_graph_effects
            effects = full_graph_effects(self, args, kwargs)
        kept = state_before(self._instance) if state.is_exporting() else None
        with recording() as calls:
            note_call(self._function, bound_arguments(self._function, self._instance, args,
                                                      kwargs))
            code = self._converted_code()
            watch(self._function, code)
            try:
                # a program that no side effect turns away serves later calls: no new parameters
                with top_frame(code), state.reused_trace(effects is None):
                    traced = auto_numbers.trace(self, args, kwargs) if numbers else \
                        self.trace_program(args, kwargs)
                if kept is not None:
                    # a model has no Python state: tensors kept in it between calls are carried
                    carry_state(traced.program, kept, self._instance, self._function)
            finally:
                if effects is not None:
                    effects[1].restore()    # the trace's changes (with symbolic values) undone
        if traced.numbers is not None or self._entries is not entries or \
                input_grads.after_trace(self, traced.program):
            # numbers made inputs (or refused again) change the key and drop the entries
            key = self._key(args, kwargs)
            same_key = self._entries.get(key)
        guards = build_guards(calls, auto_numbers.number_keys(self) if traced.numbers else ())
        if effects is not None:
            guards.add_never(effects[0])
        program = traced.program
        # new values of persistable tensors are fetched after the outputs (and so kept by DCE)
        n_out = len(program.fetch_names)
        writes = list(program.persistable_writes.items())
        program.fetch_names = program.fetch_names + [new for _, new in writes]
        leaves = returned_leaves(program, n_out)
        optimize(program)
        # a saved model hands out the same numbers (a broken function's leaves are its own)
        numbers = traced.python_leaves if traced.identity is None else ()
        concrete = ConcreteProgram(program, traced.inputs, traced.out_tree, traced.leaves_desc,
                                   traced.input_structure, numbers)
        compiled = compile_for(self.backend, program, program.feed_names, program.fetch_names)
        entry = CacheEntry(concrete, compiled, traced.in_tree, traced.positions, key)
        entry.writes = [(program.write_targets[old], n_out + i)
                        for i, (old, _) in enumerate(writes)]
        entry.epoch = self._layer_cls.structure_epoch
        entry.owned = self._owned_tensors()
        entry.guards = guards if len(guards) else None
        entry.identity = traced.identity
        entry.python_leaves = traced.python_leaves or None
        entry.sibling = same_key
        entry.input_grads = input_grads.slots_of(program)
        entry.leaves, entry.single = leaves, entry.single and not leaves
        if traced.numbers is not None:
            auto_numbers.make_feeds(entry, *traced.numbers)
        self._entries[key] = entry
        self._programs += 1
        self._last = entry
        return entry

    def trace_program(self, args: Tuple, kwargs: Dict) -> "TracedProgram":
        """Trace the converted function on symbolic inputs into a new (unoptimised) Program."""
        fn = self.converted_callable()
        plan, self._number_plan = self._number_plan, None
        args, made = auto_numbers.trace_args(plan, args)
        program = Program()
        leaves, in_tree = flatten((args, kwargs), is_leaf=is_input)
        arg_names = self._arg_names(len(args))
        specs = self._input_spec or []
        inputs: List[InputSpec] = []
        sym_leaves: List[Any] = []
        positions = _flat_positions(args, kwargs)
        pos_iter = iter(positions or [])
        # inside containers (a list of tensors): names and specs from the path to each tensor
        nested = iter(_nested_inputs(args, arg_names, specs) if positions is None else ())
        tracer = self._identity.Tracer() if self._identity is not None else None
        identity = None
        # a function traced whole: its inputs, to write back the ones it changes in place
        # (eager code sees the change; a saved model, as Paddle's, does not)
        watched: Optional[List[Any]] = [] if tracer is None and not state.is_exporting() else None
        with program_guard(program):
            for leaf in leaves:
                if not is_input(leaf):
                    sym_leaves.append(leaf)
                    continue
                arg_index = next(pos_iter, None)
                base, given = next(nested, (None, None))
                if arg_index is not None:
                    base = arg_names[arg_index]
                    given = specs[arg_index] if arg_index < len(specs) else None
                base = base or f"input{len(inputs)}"
                name = base if base not in program.global_block().vars else f"{base}_{len(inputs)}"
                spec = _spec_for(leaf, given if isinstance(given, InputSpec) else None, name)
                symbol = program.add_input(name, list(spec.shape), spec.dtype)
                number = type(leaf) is auto_numbers.NumberSpec
                if number:
                    symbol.__class__ = PythonValue
                # (a number made an input is no leaf of the call the identity restores: its
                # indices count the call's tensors only; fuzz seed 9000940)
                if watched is not None and not number:
                    watched.append(symbol)
                sym_leaves.append(tracer.input(leaf, symbol) if tracer and not number else symbol)
                inputs.append(spec)
            _check_unique_names(inputs, self.__name__)
            input_grads.note(program, leaves)
            sym_args, sym_kwargs = unflatten(in_tree, sym_leaves)
            if tracer is not None:
                sym_args, sym_kwargs = tracer.arguments((sym_args, sym_kwargs), (args, kwargs))
            saved_globals = global_values(self._function)
            installed = auto_numbers.Installed(plan, program)
            inputs += installed.specs
            try:
                with dynamic_view(not self._full_graph):
                    out = fn(*sym_args, **sym_kwargs)
                python_leaves = number_leaves(out)
                if tracer is not None:
                    out, identity = tracer.outputs(out)
                elif watched and program.changed_in_place.intersection(map(id, watched)):
                    # circle: graph_break imports this module (loaded when a trace needs it)
                    from .graph_break.identity import written_back
                    out, identity = written_back(out, watched, program.changed_in_place)
                out_leaves, out_tree = flatten(out, objects=True)
                if plan is not None and auto_numbers.escapes(out_leaves):
                    raise TypeError("a Python number that is a program input is returned")
                leaves_desc, fetch = output_leaves.describe(out_leaves)
            except Exception as e:  # noqa: BLE001
                if not _may_fail_before(program, e):
                    deferred = program.deferred_errors
                    raise_in_user_code(deferred[0] if deferred and isinstance(e, NameError)
                                       else e)
                # an earlier check fails first on some paths, as in eager mode: the program
                # runs up to this line and fails here when none did
                raise_when_reached(e)
                out_leaves, out_tree = flatten(None)
                leaves_desc, fetch = output_leaves.describe(out_leaves)
                identity, python_leaves = None, ()
            finally:
                installed.restore()
                leaked = restore_symbolic_globals(self._function, saved_globals)
            if leaked:
                name, origin = leaked
                raise ConversionError(
                    f"assigning a tensor to the global {name!r} is not supported by "
                    f'to_static (File "{origin.file}", line {origin.line}: {origin.source}): a '
                    "global outlives the traced program; return the value instead")
        program.fetch_names = fetch
        numbers = (made, installed.sources()) if made or installed.saved else None
        return TracedProgram(program, inputs, out_tree, leaves_desc, in_tree, positions,
                             _input_structure(args, kwargs, arg_names, leaves, in_tree),
                             identity, python_leaves, numbers)

    def _owned_tensors(self) -> frozenset:
        """Identities of the bound Layer's parameters and buffers (what its programs read)."""
        inst = self._instance
        if not isinstance(inst, self._layer_cls):
            return frozenset()
        return frozenset(id(t) for t in list(inst.parameters()) + list(inst.buffers()))

    def _revalidate(self, entry: CacheEntry) -> Optional[CacheEntry]:
        """Some layer got new parameter objects: programs of this Layer that read replaced
        tensors are dropped (traced again); the others are kept."""
        owned = self._owned_tensors()
        if owned != entry.owned:
            self._entries = {k: e for k, e in self._entries.items() if e.owned == owned}
            self._programs = self.num_programs
            return None
        entry.epoch = self._layer_cls.structure_epoch
        return entry

    # -- introspection ------------------------------------------------------------------------
    def get_concrete_program(self, *input_spec: Any, **kwargs: Any) -> ConcreteProgram:
        """Trace (or reuse) the program for these InputSpecs / example tensors; other arguments
        (Python numbers, strings, ...) are constants of the program, as in a call."""
        specs = normalize_specs(input_spec)
        inst = self._instance
        training = bool(inst.training) if inst is not None and hasattr(inst, "training") else None
        # the name is part of the key: it names the saved model's input; so is the grad mode:
        # a trace under no_grad holds none of the user's stops, which an export needs
        key = (tuple(("S", s.shape, dtype_name(s.dtype), s.name) if isinstance(s, InputSpec)
                     else value_key(s)
                     for s in specs), tuple(sorted(kwargs.items())), training,
               state.build_state.grad_enabled)
        entry = self._entries.get(key)
        if entry is None:
            saved = self._input_spec
            self._input_spec = specs
            try:
                entry = self._trace(tuple(specs), kwargs, key, numbers=False)
            finally:
                self._input_spec = saved
        return entry.concrete

    @property
    def concrete_program(self) -> ConcreteProgram:
        if self._last is None:
            if self._input_spec:
                return self.get_concrete_program(*self._input_spec)
            raise RuntimeError(f"{self.__name__} has not been called yet, so no program is traced; "
                               "call it once or give input_spec")
        return self._last.concrete

    @property
    def program(self) -> Program:
        return self.concrete_program.program

    main_program = program

    @property
    def code(self) -> str:
        return converted_source(self._function)

    @property
    def num_programs(self) -> int:
        return sum(1 for _ in self._all_entries())

    def _all_entries(self):
        for entry in self._entries.values():
            while entry is not None:
                yield entry
                entry = entry.sibling

    @property
    def graph_breaks(self) -> List[Any]:
        """The breaks found so far (full_graph=False), as GraphBreakInfo records."""
        # circle: jit.graph_break imports this module at import time (via jit.graph_break.explain)
        from .graph_break import graph_breaks
        return graph_breaks(self)

    def signatures(self) -> List[List[InputSpec]]:
        return [e.concrete.inputs for e in self._all_entries()]

    @property
    def last_input_spec(self) -> Optional[List[InputSpec]]:
        return list(self._last.concrete.inputs) if self._last is not None else None

    def rollback(self) -> Callable:
        """The original eager function (a Layer gets its original forward back)."""
        inst = self._instance
        if inst is not None and inst.__dict__.get("forward") is self:
            del inst.__dict__["forward"]
        return self.dygraph_function

    def __repr__(self) -> str:
        return f"<StaticFunction {self.__name__}: {self.num_programs} program(s)>"



def _passing_sibling(entry: Optional[CacheEntry]) -> Optional[CacheEntry]:
    """The first of the older entries of a key whose guards hold."""
    while entry is not None and entry.guards is not None and not entry.guards.check():
        entry = entry.sibling
    return entry


def _flat_positions(args: Tuple, kwargs: Dict) -> Optional[List[int]]:
    """Argument indices of the tensors when every argument is a plain value (fast feeding)."""
    if kwargs:
        return None
    positions = []
    for i, a in enumerate(args):
        if is_input(a):
            positions.append(i)
        elif type(a) in (list, tuple, dict) or is_namedtuple(a):
            inner, _ = flatten(a, is_leaf=is_input)
            if any(is_input(x) for x in inner):
                return None
    return positions


def normalize_specs(specs: Sequence[Any]) -> List[Any]:
    """Input specs as Paddle accepts them: InputSpecs, example tensors (made InputSpecs), nested
    lists / tuples / dicts of those, and Python values (constants of the program)."""
    def one(s: Any) -> Any:
        if isinstance(s, (Tensor, np.ndarray)):
            return InputSpec.from_tensor(s)
        if type(s) in (list, tuple):
            return type(s)(one(x) for x in s)
        if type(s) is dict:
            return {k: one(v) for k, v in s.items()}
        return s
    return [one(s) for s in specs]


def _nested_spec_key(arg: Any, spec: Any) -> Any:
    """value_key of arg, where a tensor inside containers that fits the spec at the same place
    in a nested spec is keyed by that spec."""
    if isinstance(spec, InputSpec):
        return spec_key(arg, spec)
    if type(arg) in (list, tuple) and type(spec) in (list, tuple) and len(arg) == len(spec):
        return (type(arg), tuple(_nested_spec_key(a, s) for a, s in zip(arg, spec)))
    if type(arg) is dict and type(spec) is dict:
        return (dict, tuple((k, _nested_spec_key(v, spec.get(k))) for k, v in arg.items()))
    return value_key(arg)


def _nested_inputs(args: Tuple, arg_names: List[str], specs: Sequence[Any]) -> List[Tuple]:
    """(name, spec at the same place of the nested input_spec, or None) of every tensor input
    among args, in flatten order: `xs_0`, `xs_1` for the items of argument `xs`."""
    out: List[Tuple] = []

    def walk(value: Any, spec: Any, name: str) -> None:
        if is_input(value):
            out.append((name, spec))
        elif type(value) in (list, tuple):
            seq = spec if type(spec) in (list, tuple) and len(spec) == len(value) else ()
            for i, v in enumerate(value):
                walk(v, seq[i] if seq else None, f"{name}_{i}")
        elif type(value) is dict:
            sub = spec if type(spec) is dict else {}
            for k, v in value.items():
                walk(v, sub.get(k), f"{name}_{k}" if str(k).isidentifier() else f"{name}_{len(out)}")
        elif isinstance(value, TensorLike):
            out.append((name, None))
    for i, a in enumerate(args):
        walk(a, specs[i] if i < len(specs) else None, arg_names[i])
    return out


def _input_structure(args: Tuple, kwargs: Dict, arg_names: List[str], leaves: List[Any],
                     in_tree: Any) -> Any:
    """How a saved program is called when some argument is a container of tensors:
    (argument names, the structure of the positional arguments, per leaf ("var", input index)
    or ("const", Python value)); None when every tensor is an argument of its own."""
    if kwargs or not any((type(a) in (list, tuple, dict) or is_namedtuple(a)) and any(
            is_input(x) for x in flatten(a, is_leaf=is_input)[0]) for a in args):
        return None
    n_input = 0
    described = []
    for leaf in leaves:
        if is_input(leaf):
            described.append(("var", n_input))
            n_input += 1
        else:
            described.append(("const", leaf))
    return (list(arg_names), in_tree[1][0], described)


def _check_unique_names(inputs: List[InputSpec], who: str) -> None:
    """Two inputs of one name could not be told apart when the saved model is fed by name."""
    seen: Dict[str, int] = {}
    for i, spec in enumerate(inputs):
        if spec.name in seen:
            raise ValueError(f"{who}: inputs {seen[spec.name]} and {i} are both named "
                             f"{spec.name!r}; give each InputSpec its own name")
        seen[spec.name] = i


def _spec_for(leaf: Any, spec: Optional[InputSpec], name: str) -> InputSpec:
    """The spec of input `name`: the given spec when the array fits it, else the array's own.
    A name the user gave an InputSpec is kept (it names the saved model's and the ONNX graph's
    input); the parameter's name is the fallback."""
    if isinstance(leaf, InputSpec):
        return InputSpec(leaf.shape, leaf.dtype, leaf.name or name)
    arr = _array(leaf)
    try:
        dtype = dtype_of_array(arr)     # numpy's dtype.name, which InputSpec would ask, is slow
    except KeyError:
        dtype = arr.dtype               # not a supported dtype: InputSpec says so
    if spec is not None and spec.matches(arr.shape, dtype):
        return InputSpec(spec.shape, spec.dtype, spec.name or name)
    return InputSpec(list(arr.shape), dtype, spec.name if spec is not None and spec.name else name)


def _parameter_names(fn: Callable) -> List[str]:
    """The names of fn's parameters in signature order (as inspect.signature lists them)."""
    code = getattr(fn, "__code__", None)
    if (type(fn) is not types.FunctionType or code is None or hasattr(fn, "__wrapped__")
            or hasattr(fn, "__signature__")):
        try:
            return list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            return []
    # inspect.signature does the same from the code object, but slowly (~7 us)
    names = code.co_varnames
    n_pos, n_kw = code.co_argcount, code.co_kwonlyargcount
    out = list(names[:n_pos])
    i = n_pos + n_kw
    if code.co_flags & inspect.CO_VARARGS:
        out.append(names[i])
        i += 1
    out.extend(names[n_pos:n_pos + n_kw])
    if code.co_flags & inspect.CO_VARKEYWORDS:
        out.append(names[i])
    return out


_RUN_TIME_FAILURES = frozenset(("raise", "check_defined", "assert"))


def _may_fail_before(program: Program, e: BaseException) -> bool:
    """Whether e, a name without a value on every path reaching its line, may come after a
    failure the program traced so far raises on some paths only (when it runs)."""
    return fails_on_its_path(e) and any(
        op.type in _RUN_TIME_FAILURES for block in program.blocks for op in block.ops)


def layer_forward(layer: Any, input_spec: Optional[Sequence[Any]] = None,
                  full_graph: bool = False, backend: Optional[str] = None) -> StaticFunction:
    """The StaticFunction of a Layer's forward, bound to the layer (reused when it exists)."""
    own = layer.__dict__.get("forward")
    if isinstance(own, StaticFunction):
        return own
    cls_fwd = type(layer).forward
    if isinstance(cls_fwd, StaticFunction):
        return cls_fwd.__get__(layer, type(layer))
    return StaticFunction(cls_fwd, input_spec, full_graph, instance=layer, backend=backend)


_TO_STATIC_PARAMETERS = ("function", "input_spec", "full_graph", "backend")


def to_static(function: Any = None, input_spec: Optional[Sequence[Any]] = None,
              full_graph: bool = False, backend: Optional[str] = None, **kwargs: Any) -> Any:
    """Convert a function, a method or a Layer (its forward) to a static graph. `backend` runs
    its programs: None ($DY2ST_BACKEND, else "numpy"), "numpy" or "xla" (docs/backends.md).
    Paddle's keywords `build_strategy` and `property` are accepted; any other raises TypeError
    naming the closest valid one."""
    check_keywords("to_static", kwargs, TO_STATIC_KEYWORDS, _TO_STATIC_PARAMETERS)
    backend = resolve_backend(backend)

    def decorate(obj: Any) -> Any:
        if _layer_class_for(obj) is not _NotALayer:
            obj.__dict__["forward"] = layer_forward(obj, input_spec, full_graph, backend)
            return obj
        if isinstance(obj, StaticFunction):
            return obj
        if isinstance(obj, types.MethodType):
            return StaticFunction(obj.__func__, input_spec, full_graph, instance=obj.__self__,
                                  backend=backend)
        if not callable(obj):
            raise TypeError(f"to_static expects a function, method or Layer, got {type(obj).__name__}")
        return StaticFunction(obj, input_spec, full_graph, backend=backend, **kwargs)
    if function is None:
        return decorate
    return decorate(function)
