"""The static Program IR: Programs hold Blocks; Blocks hold Variables and Operators.

Control flow is functional: `cond` / `while` ops own closed sub-blocks whose inputs are listed in
`Block.params` and whose outputs are `Block.results`. A reference to an outer Variable while a
sub-block is being built is captured as a new param (like a closure conversion)."""
from __future__ import annotations

import contextlib
import copy
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import numpy as np

from . import state
from .config import config
from .dtype import DType, dtype_name
from .numpy_protocol import array_ufunc, numpy_message
from .origin import Origin
from .size import Size
from .tensor import Tensor, TensorLike


class Variable(TensorLike):
    """A symbolic tensor in a Block: name, shape (-1 for unknown dims), dtype."""

    __slots__ = ("name", "_shape", "dtype", "block", "persistable", "kind", "elem",
                 "_stop_gradient", "_shape_cache", "__weakref__")

    # `var.stop_gradient = True` in traced code calls it with var (set by runtime/inplace.py,
    # which can append ops): later uses then read a value gradients do not flow through
    on_stop_gradient: Optional[Callable[["Variable"], None]] = None
    # `var.stop_gradient = False` in traced code calls it with var (set by runtime/inplace.py,
    # which notes a new leaf there)
    on_needs_gradient: Optional[Callable[["Variable"], None]] = None

    def __init__(self, block: "Block", name: str, shape: Sequence[int], dtype: DType,
                 persistable: bool = False, kind: str = "dense", elem: Any = None) -> None:
        self.name = name
        self._shape = tuple(map(int, shape))
        self.dtype = dtype
        self.block = block
        self.persistable = persistable
        self.kind = kind          # "dense" or "array" (a tensor array; elem is (shape, dtype))
        self.elem = elem
        self._stop_gradient = True
        self._shape_cache = None

    @property
    def stop_gradient(self) -> bool:
        return self._stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        hook = Variable.on_stop_gradient if value else Variable.on_needs_gradient
        if hook is not None:
            hook(self)
        self._stop_gradient = bool(value)

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Variable":
        # the fields are immutable but the block (see Operator.__deepcopy__ for why)
        new = object.__new__(type(self))
        memo[id(self)] = new
        for f in _VARIABLE_FIELDS:
            setattr(new, f, getattr(self, f))
        new.elem = copy.deepcopy(self.elem, memo)
        new._shape_cache = None
        new.block = copy.deepcopy(self.block, memo)
        return new

    @property
    def is_static(self) -> bool:
        return True

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    @property
    def size(self):
        if all(d >= 0 for d in self._shape):
            n = 1
            for d in self._shape:
                n *= d
            return n
        # circle: runtime.ops imports this module at import time (via runtime.ops.extra_math -> runtime.ops.infer -> runtime.registry)
        from . import ops
        return ops.numel(self)

    @property
    def place(self) -> str:
        return "Place(cpu)"

    @property
    def shape(self) -> List[Any]:
        """Known dims as ints, unknown dims as int64 scalar Variables, in a paddle.Size as an
        eager tensor's (`print(x.shape)` shows the same text in converted code)."""
        if all(d >= 0 for d in self._shape):
            return Size.of(self._shape)
        # circle: runtime.ops imports this module at import time (via runtime.ops.extra_math -> runtime.ops.infer -> runtime.registry)
        from . import ops

        # circle: python_value subclasses Variable
        from .python_value import UnknownDim
        full = ops.shape(self)
        dims = [d if d >= 0 else full[i] for i, d in enumerate(self._shape)]
        for d in dims:
            if type(d) is Variable:
                # an unknown dim is a Python int in eager code: text made from it (an f-string,
                # a dict key) is refused, not built from the symbol's name
                d.__class__ = UnknownDim
        return Size.of(dims)

    def __bool__(self) -> bool:
        raise TypeError(
            f"the truth value of the symbolic tensor {self.name} (shape {list(self._shape)}) is only "
            "known when the program runs; use it in an `if`/`while` converted by to_static, or "
            "dy2st.static.nn.cond / while_loop")

    def __len__(self) -> int:
        if self.kind == "array":
            raise TypeError("len() of a tensor array is data-dependent; use dy2st.tensor.array_length")
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        if self._shape[0] < 0:
            raise TypeError(f"len() of {self.name}: its first dim is unknown while tracing; "
                            "use x.shape[0] or dy2st.shape(x)[0]")
        return self._shape[0]

    def __iter__(self):
        if self._shape and self._shape[0] >= 0:
            return (self[i] for i in range(self._shape[0]))
        raise TypeError(f"cannot iterate over {self.name} with an unknown first dim outside a "
                        "converted for loop")

    def __int__(self) -> int:
        raise TypeError(f"int() of the symbolic tensor {self.name} is only known at run time")

    __float__ = __int__
    __index__ = __int__

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"numpy cannot use the symbolic tensor {self.name}: its value is only "
                        "known when the program runs; use dy2st functions on it instead")

    def __array_function__(self, func, types, args, kwargs):
        raise TypeError(numpy_message(getattr(func, "__name__", str(func)), self))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return array_ufunc(self, ufunc, method, inputs, kwargs)

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        if self.kind == "array":
            return f"var {self.name} : tensor_array<{self.elem[1] if self.elem else '?'}>"
        return f"var {self.name} : {dtype_name(self.dtype)}{list(self._shape)}"

    __str__ = __repr__


def rebind(handle: Variable, new: Variable) -> Variable:
    """Make the Python object `handle` stand for `new` (for in-place updates such as
    `arr.append(x)`), keeping each block's name -> Variable table consistent."""
    # circle: runtime.inplace imports this module at import time
    from .inplace import record
    record(handle)
    old = Variable(handle.block, handle.name, handle._shape, handle.dtype, handle.persistable,
                   handle.kind, handle.elem)
    handle.block.vars[old.name] = old
    # a value that may be unassigned stays so when changed in place or carried by a loop
    table = handle.block.program.maybe_undefined
    if old.name in table and new.name not in table:
        table[new.name] = table[old.name]
    handle.name, handle._shape, handle.dtype = new.name, new._shape, new.dtype
    handle.block, handle.kind, handle.elem = new.block, new.kind, new.elem
    handle._shape_cache = None
    new.block.vars[new.name] = handle
    return handle


def defining_origin(var: "Variable") -> Optional[Origin]:
    """The user's line of the op that computed var, if any."""
    for op in var.block.ops:
        if var.name in op.outputs:
            return op.origin
    return None


def escaped_message(var: "Variable", origin: Optional[Origin] = None) -> str:
    origin = origin or defining_origin(var)
    where = (f' (File "{origin.file}", line {origin.line}: {origin.source})'
             if origin is not None else "")
    if var.name in var.block.program.unfollowed:
        return (f"a tensor changed in place on some turns of a tensor loop only{where} is read "
                "after the loop (through another name, a list, a dict or the enclosing `if`); "
                "which value it has then is not followed. Copy it before changing it in place "
                "(`h = h.clone()`), or change it on every turn")
    return (f"the tensor {var.name} computed inside a tensor `if` branch or loop body{where} is "
            "used outside it without being one of its outputs (for example through `nonlocal`, "
            "`global`, a closure or an object the converter cannot see); assign it to a local "
            "variable inside the branch or loop instead")


class EscapedTensorError(ValueError):
    """A symbolic tensor leaked out of the branch or loop body that computed it."""

    def __init__(self, var: "Variable") -> None:
        super().__init__(escaped_message(var))
        self.dy2st_origin = defining_origin(var)


_VARIABLE_FIELDS = ("name", "_shape", "dtype", "persistable", "kind", "_stop_gradient")


class Operator:
    """One op: type, input and output variable names, attributes and the user's origin."""

    __slots__ = ("type", "inputs", "outputs", "attrs", "origin")

    def __init__(self, type_: str, inputs: List[str], outputs: List[str], attrs: Dict[str, Any],
                 origin: Optional[Origin] = None) -> None:
        self.type = type_
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.origin = origin

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Operator":
        # (copy.deepcopy's generic path costs ~25 us an object: a Program clone of a traced
        # function spent most of a training call's first run there)
        new = Operator(self.type, list(self.inputs), list(self.outputs),
                       copy.deepcopy(self.attrs, memo), self.origin)
        memo[id(self)] = new
        return new

    def sub_blocks(self) -> List[int]:
        if self.type not in ("cond", "while"):
            return []     # the only ops that own blocks; most ops pass here
        return [v for k, v in self.attrs.items() if k.endswith("_block")]


class Block:
    """A list of ops over Variables; a sub-block is closed: it sees only its params."""

    def __init__(self, program: "Program", idx: int, parent_idx: int) -> None:
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.vars: Dict[str, Variable] = {}
        self.ops: List[Operator] = []
        self.params: List[str] = []       # inputs of a closed sub-block, in call order
        self.results: List[str] = []      # outputs of a sub-block
        self.captures: Dict[str, str] = {}  # outer variable name -> local param name
        # id(tensor) -> (tensor, new value) written by a branch being traced (control_flow)
        self.pending_writes: Dict[int, Tuple[Tensor, Variable]] = {}
        self.owner_kind = ""                # "while" for loop condition and body blocks
        # a converted loop's body, whose params may widen their dtype on one path of a tensor
        # `if` (runtime/control_flow/branch_widening.py)
        self.widening = False
        # maybe-unassigned values whose "was it assigned?" check this block has (or must not have)
        self.checked_defined: Set[str] = set()
        # (array handle, position, tensor object, its variable name then) per `append` of a
        # loop body: an object changed in place later in the turn is written again (ops/array.py)
        self.appended: List[Tuple[Any, Variable, Any, str]] = []

    @property
    def parent(self) -> Optional["Block"]:
        return None if self.parent_idx < 0 else self.program.blocks[self.parent_idx]

    def create_var(self, shape: Sequence[int], dtype: DType, prefix: str = "t", kind: str = "dense",
                   elem: Any = None, persistable: bool = False, name: Optional[str] = None) -> Variable:
        program = self.program
        name = name or program.fresh_name(prefix)
        var = Variable(self, name, shape, dtype, persistable, kind, elem)
        self.vars[name] = var
        program.var_index[name] = var
        return var

    def var(self, name: str) -> Variable:
        return self.vars[name]

    def local(self, var: Variable) -> Variable:
        """`var` as seen from this block: itself, or a param capturing it from an outer block."""
        if var.block is self:
            return var
        if var.block.program is not self.program:
            raise ValueError(f"{var.name} belongs to another Program")
        name = self.captures.get(var.name)
        if name is not None:
            return self.vars[name]
        if not self._is_ancestor(var.block):
            raise EscapedTensorError(var)
        local = self.create_var(var._shape, var.dtype, prefix=var.name.split("@")[0] + "@cap",
                                kind=var.kind, elem=var.elem)
        self.params.append(local.name)
        self.captures[var.name] = local.name
        return local

    def _is_ancestor(self, block: "Block") -> bool:
        b = self.parent
        while b is not None:
            if b is block:
                return True
            b = b.parent
        return False

    def capture_sources(self) -> List[str]:
        """Outer variable names captured by this block, in param order."""
        back = {v: k for k, v in self.captures.items()}
        return [back[p] for p in self.params if p in back]

    def append_op(self, type_: str, inputs: Sequence[Variable], outputs: Sequence[Variable],
                  attrs: Dict[str, Any], origin: Optional[Origin]) -> Operator:
        op = Operator(type_, [v.name for v in inputs], [v.name for v in outputs], attrs, origin)
        self.ops.append(op)
        self.program.version += 1
        return op

    def append_op_with_outputs(self, type_: str, inputs: Sequence[Variable], metas: Sequence[Any],
                               attrs: Dict[str, Any], origin: Optional[Origin]) -> List[Variable]:
        """Append op `type_` writing new variables `t_<n>` described by metas (shape, dtype,
        kind, elem); returns them."""
        outs = [self.create_var(shape, dtype, kind=kind, elem=elem)
                for shape, dtype, kind, elem in metas]
        self.append_op(type_, inputs, outs, attrs, origin)
        return outs

    def find_var(self, name: str) -> Optional[Variable]:
        return self.vars.get(name)

    def all_parameters(self) -> List[Tensor]:
        """The trainable parameters of the program (Paddle's Block.all_parameters)."""
        return self.program.all_parameters()


class Program:
    """A static graph: blocks[0] is the global block; persistable tensors are read at run time."""

    def __init__(self) -> None:
        self.var_index: Dict[str, Variable] = {}    # every block's variables by (unique) name
        self.blocks: List[Block] = [Block(self, 0, -1)]
        self.version = 0
        self._counter: Dict[str, int] = {}
        self.persistables: Dict[str, Tensor] = {}   # var name -> tensor read when the program runs
        # ops built under no_grad pass their results through `detach` (runtime/registry.py), but
        # only in a program begun with gradients on: one begun under no_grad (an export, an
        # evaluation call) is never differentiated and keeps its ops unwrapped
        self.grad_stops = state.build_state.grad_enabled
        self._captured: Dict[int, str] = {}         # id(tensor) -> var name (tensor kept alive above)
        # var name -> (bool Variable: "was it assigned?", user's name, where it is assigned (text
        # and Origin)): a value merged from a tensor `if` that assigns it on one path only
        self.maybe_undefined: Dict[str, Tuple[Variable, str, str, Optional[Origin]]] = {}
        # entry message of a loop variable a tensor loop widened -> its value before the loop
        # (runtime/widened.py: what eager code holds when the loop runs no turn)
        self.widened_before: Dict[str, Any] = {}
        # name of a Python number a tensor loop carried (runtime/python_value.py) -> what it is
        # (the user's name and the loop's line), for the errors of Python logic that reads it
        self.number_sources: Dict[str, str] = {}
        # id(obj) -> [(other, pred, on_true)]: obj is the same Python object as `other` on the
        # path where the bool `pred` is on_true (names merged by a tensor `if`; runtime/inplace.py)
        self.cond_aliases: Dict[int, List[Tuple[Any, Variable, bool]]] = {}
        # var name -> how eager code tests that value's truth: `x or y` used as a value selects
        # x or y, and a later `if` on it tests x, then y only where x does not decide
        # (jst/picked_operands.py); made when a test needs it, so no test is traced otherwise
        self.truths: Dict[str, Callable[[], Variable]] = {}
        # errors of tensor loop bodies that fail on every turn, raised when a turn runs: the
        # first is what a later failure of the same trace reports (eager stops there first)
        self.deferred_errors: List[BaseException] = []
        # body variables an object changed on some loop turns only stands for after the loop
        # (runtime/control_flow/while_loop.py): reading them names that in the escaped-tensor error
        self.unfollowed: Set[str] = set()
        # id() of the traced tensor objects an in-place op changed (runtime/inplace.py): inputs
        # among them are written back to the caller's tensors (not control flow's renames)
        self.changed_in_place: Set[int] = set()
        # outputs of the `where`s masking a gradient absent on some runs (autograd/
        # absent_gradients.py): a create_graph replay gives them no tape link when masked
        self.absent_masks: Set[str] = set()
        self.feed_names: List[str] = []
        self.fetch_names: List[str] = []
        # Python loops tracing unrolled (runtime/control_flow/unrolled.py): hints for passes/roll.py
        self.unrolled_loops: List[Any] = []
        self._compiled: Dict[Tuple, Any] = {}
        # persistable var name -> the global var holding its new value after a run
        # (optimizer updates, running statistics); runtime/persistable.py records them
        self.persistable_writes: Dict[str, str] = {}
        self.write_targets: Dict[str, Tensor] = {}     # the tensors those names stand for
        # var name -> the persistable tensor a test clone reads instead (the running statistics
        # standing for a training-mode batch_norm's batch statistics; program_clone.py)
        self.test_substitutes: Dict[str, Tensor] = {}
        self._random_seed = 0
        self._init_rng: Any = None     # a startup program's seeded stream (program_guard)

    @property
    def random_seed(self) -> int:
        """As in Paddle 3.3.1, a non-zero seed makes a program draw reproducibly: the dropout
        ops built into it draw the same mask on every run (and in every program built with the
        same seed); as the startup program of `program_guard(main, startup)`, the parameters
        created inside are initialised from a stream that starts at the seed. Other random ops
        (rand, randn, ...) draw from the global generator either way. 0 (the default): no
        seed."""
        return self._random_seed

    @random_seed.setter
    def random_seed(self, seed: int) -> None:
        if isinstance(seed, bool) or not hasattr(seed, "__index__"):
            raise TypeError(f"Program.random_seed must be an int, got {type(seed).__name__}")
        self._random_seed = seed.__index__()
        self._init_rng = None

    def find_var(self, name: str) -> Optional[Variable]:
        """The variable named `name` in any block (names are unique in a Program)."""
        v = self.var_index.get(name)
        b = v.block if v is not None else None
        if b is not None and b.idx < len(self.blocks) and self.blocks[b.idx] is b and \
                b.vars.get(name) is v:
            return v
        for b in self.blocks:        # the index may be stale after blocks were dropped/rebound
            v = b.vars.get(name)
            if v is not None:
                self.var_index[name] = v
                return v
        return None

    def global_block(self) -> Block:
        return self.blocks[0]

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    def list_vars(self) -> Iterator[Variable]:
        """Every variable of every block (Paddle's Program.list_vars)."""
        for b in self.blocks:
            yield from b.vars.values()

    def all_parameters(self) -> List[Tensor]:
        """The trainable parameters the program reads (Paddle's Program.all_parameters)."""
        return [t for t in self.persistables.values() if getattr(t, "trainable", False)]

    def state_dict(self, mode: str = "all") -> Dict[str, Tensor]:
        """name -> tensor of the persistables the program reads: "param" the trainable
        parameters, "opt" the rest (optimizer state, running statistics), "all" both."""
        if mode not in ("all", "param", "opt"):
            raise ValueError(f"state_dict: mode must be 'all', 'param' or 'opt', got {mode!r}")
        return {getattr(t, "name", None) or k: t for k, t in self.persistables.items()
                if mode == "all" or (mode == "param") == bool(getattr(t, "trainable", False))}

    def add_input(self, name: str, shape: Sequence[Optional[int]], dtype: DType) -> Variable:
        """A named feed of the program (None or -1 for unknown dims): static.data, to_static."""
        g = self.global_block()
        if name in g.vars:
            raise ValueError(f"the program already has a variable named {name!r}")
        var = g.create_var([-1 if s is None else int(s) for s in shape], dtype, name=name)
        self.feed_names.append(name)
        return var

    def block(self, idx: int) -> Block:
        return self.blocks[idx]

    def fresh_name(self, prefix: str) -> str:
        # a program read from a file has names but no counters: skip the names it already uses
        while True:
            n = self._counter.get(prefix, 0)
            self._counter[prefix] = n + 1
            name = f"{prefix}_{n}"
            if self.find_var(name) is None:
                return name

    def create_block(self, parent_idx: int) -> Block:
        block = Block(self, len(self.blocks), parent_idx)
        self.blocks.append(block)
        return block

    def capture_tensor(self, tensor: Tensor) -> Variable:
        """An eager tensor used in the graph: a persistable global var read at run time (or the
        value a branch being traced wrote into it)."""
        block = state.current_block()
        while block is not None and block.idx != 0 and block.program is self:
            pending = block.pending_writes.get(id(tensor)) if block.pending_writes else None
            if pending is not None:
                return pending[1]
            block = block.parent
        name = self._captured.get(id(tensor))
        if name is not None:
            return self.blocks[0].vars[name]
        base = tensor.name if tensor.persistable and tensor.name else "const"
        name = base if base not in self.blocks[0].vars and base != "const" else self.fresh_name(base)
        var = self.blocks[0].create_var(tensor._value.shape, tensor.dtype, persistable=True, name=name)
        self.persistables[name] = tensor
        self._captured[id(tensor)] = name
        return var

    def record_persistable_write(self, tensor: Tensor, value: Any) -> None:
        """After a run, `tensor` takes `value`; ops traced later read `value` in its place. A
        write inside a tensor `if` branch is pending until the branches merge (control_flow)."""
        # circle: runtime.ops.operands imports this module at import time (via runtime.ops -> runtime.ops.array)
        from .ops.operands import as_tensor, cast
        block = state.current_block()
        target = self.capture_tensor(tensor)
        value = as_tensor(value)
        if isinstance(value, Tensor):
            value = self.capture_tensor(value)
        if value.dtype != target.dtype:
            value = cast(value, target.dtype)
        if tuple(value._shape) != tuple(target._shape) and -1 not in value._shape:
            raise ValueError(f"cannot write a value of shape {list(value._shape)} into "
                             f"{target.name} of shape {list(target._shape)}")
        if block is not self.blocks[0]:
            if block.owner_kind == "while":
                raise ValueError(
                    f"{tensor.name or 'a persistable tensor'} is updated inside a tensor loop "
                    "body; update parameters, optimizer state and running statistics outside "
                    "converted loops")
            block.pending_writes[id(tensor)] = (tensor, block.local(value))
            return
        original = next((n for n, t in self.persistables.items() if t is tensor), target.name)
        self.persistable_writes[original] = value.name
        self.write_targets[original] = tensor
        self._captured[id(tensor)] = value.name

    def clone(self, for_test: bool = False) -> "Program":
        """A copy sharing the parameters; `for_test=True` gives the inference program (dropout
        off, batch_norm on its running statistics, no parameter updates)."""
        # circle: runtime.program_clone imports this module at import time
        from .program_clone import clone_program
        return clone_program(self, for_test)

    def num_ops(self) -> int:
        return sum(len(b.ops) for b in self.blocks)

    def __str__(self) -> str:
        # circle: runtime.printer imports this module at import time
        from .printer import program_to_text
        return program_to_text(self)

    def __repr__(self) -> str:
        return f"<Program: {len(self.blocks)} blocks, {self.num_ops()} ops>"


def is_to_static_trace(program: Program) -> bool:
    """Whether `program` is being traced from a to_static function (not built in static mode):
    its Python names follow eager objects and gradient calls follow eager semantics (the trace
    notes its inputs as `grad_inputs`: autograd/traced_inputs.py)."""
    return "grad_inputs" in program.__dict__


@contextlib.contextmanager
def program_guard(main_program: Program, startup_program: Optional[Program] = None) -> Iterator[Program]:
    """Ops created inside append to `main_program`. Parameters are created (initialised) at
    once; a `startup_program` with a random_seed gives them a stream of their own, which
    starts at the seed and continues in the next guard of the same startup program."""
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard expects a Program, got {type(main_program).__name__}")
    seeded = startup_program is not None and startup_program.random_seed != 0
    if seeded:
        if startup_program._init_rng is None:
            startup_program._init_rng = np.random.default_rng(startup_program.random_seed)
        outer_rng, config.rng = config.rng, startup_program._init_rng
    state.push_program(main_program)
    state.push_block(main_program.global_block())
    try:
        yield main_program
    finally:
        state.pop_block()
        state.pop_program()
        if seeded:
            config.rng = outer_rng


@contextlib.contextmanager
def block_guard(block: Block) -> Iterator[Block]:
    state.push_block(block)
    try:
        yield block
    finally:
        state.pop_block()


def new_sub_block() -> Block:
    parent = state.current_block()
    if parent is None:
        raise RuntimeError("sub-blocks can only be created while building a Program")
    return parent.program.create_block(parent.idx)


_default_main = {"program": None}


def default_main_program() -> Program:
    prog = state.current_program()
    if prog is not None:
        return prog
    if _default_main["program"] is None:
        _default_main["program"] = Program()
    return _default_main["program"]
