"""TranslatedLayer: a saved model loaded back as a callable layer, without the user's source."""
from __future__ import annotations

import collections
import copy
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ..autograd.mode import is_grad_enabled
from ..backends import compile_for, resolve_backend
from ..format.concrete import ConcreteProgram
from ..format.input_spec import InputSpec
from ..runtime.dtype import dtype_name
from ..runtime.passes.detach import drop_detach
from ..runtime.program import Program, Variable
from ..runtime.program_clone import clone_program
from ..runtime.python_value import as_numbers
from ..runtime.pytree import LEAF, describe, unflatten
from ..runtime.tensor import Tensor
from .translated_training import call_with_grad, wants_grad

try:
    from ..nn import Layer as _Base
except ImportError:        # dy2st.nn is optional here: the same surface on a plain class
    _Base = object

_MISSING = object()


class InputMismatchError(TypeError, ValueError):
    """A call does not fit the saved InputSpecs (a TypeError and a ValueError, catch either)."""


def _same_value(a: Any, b: Any) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - values with odd __eq__ are not the same
        return False


def _value_text(v: Any) -> str:
    if isinstance(v, (list, tuple)):
        return f"a {type(v).__name__} of {len(v)} items"
    return type(v).__name__


def spec_text(spec: InputSpec) -> str:
    return f"{dtype_name(spec.dtype)}[{', '.join('None' if d is None else str(d) for d in spec.shape)}]"


def _array_text(a: np.ndarray) -> str:
    return f"{a.dtype.name}[{', '.join(str(d) for d in a.shape)}]"


class TranslatedLayer(_Base):
    """A loaded model: call it with Tensors or numpy arrays in input-spec order (or by name).

    The saved graph is the eval-mode graph; `train()` / `eval()` only flip `training`."""

    def __init__(self, concrete: ConcreteProgram, extra: Optional[Dict[str, Any]] = None,
                 source: str = "", backend: Optional[str] = None) -> None:
        if _Base is not object:
            super().__init__()
        setattr_ = object.__setattr__     # Layer.__setattr__ would file Tensors as parameters
        setattr_(self, "training", False)
        setattr_(self, "_concrete", concrete)
        setattr_(self, "_extra", dict(extra or {}))
        setattr_(self, "_source", source)
        setattr_(self, "_compiled", None)
        setattr_(self, "_backend", resolve_backend(backend))
        names = [s.name or feed for s, feed in zip(concrete.inputs, concrete.program.feed_names)]
        setattr_(self, "_input_names", names)
        setattr_(self, "_input_index", {n: i for i, n in enumerate(names)})

    # ----------------------------------------------------------------------------- calling
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        values = self._bind(args, kwargs)
        feeds = [v._value if isinstance(v, Tensor) else v for v in values]
        if is_grad_enabled() and wants_grad(self, values):
            # fine-tuning: one tape node whose backward runs the saved program's gradient
            out = call_with_grad(self, values, feeds)
        else:
            compiled = self._compiled
            if compiled is None:
                # a copy without the detach ops (they copy their input, and no gradient is
                # built from this run): fine-tuning reads the saved program, which keeps them
                p = clone_program(self._concrete.program)
                drop_detach(p)
                compiled = compile_for(self._backend, p, p.feed_names, p.fetch_names)
                object.__setattr__(self, "_compiled", compiled)
            outs = compiled(feeds)
            out = self._rebuild(outs, feeds)
            self._write_back(outs)
        c = self._concrete
        # numbers read by .item() / float() / .tolist(): Python numbers, as eager code returns
        return as_numbers(out, c.output_tree, c.number_leaves) if c.number_leaves else out

    if _Base is object:
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return self.forward(*args, **kwargs)

    def _bind(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> List[Any]:
        """Per feed, the Tensor given for it (kept for gradients) or the array it becomes."""
        if self._concrete.input_structure is not None and not self._flat_call(args, kwargs):
            return self._bind_structured(args, kwargs)
        specs = self._concrete.inputs
        names = self._input_names
        if len(args) > len(specs):
            raise InputMismatchError(f"the model takes {len(specs)} input(s) "
                                     f"({self._signature()}), got {len(args)}")
        values = list(args) + [_MISSING] * (len(specs) - len(args))
        for key, v in kwargs.items():
            i = self._input_index.get(key)
            if i is None:
                raise InputMismatchError(f"the model has no input named {key!r}; its inputs are "
                                         f"{self._signature()}")
            if values[i] is not _MISSING:
                raise InputMismatchError(f"input {key!r} is given twice")
            values[i] = v
        missing = [f"'{names[i]}' ({spec_text(specs[i])})" for i, v in enumerate(values)
                   if v is _MISSING]
        if missing:
            raise InputMismatchError(f"the model takes {len(specs)} input(s) ({self._signature()}), "
                                     f"missing {', '.join(missing)}")
        return [self._convert(names[i], specs[i], v) for i, v in enumerate(values)]

    def _flat_call(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> bool:
        """Whether a model saved with list / dict arguments is called as Paddle's loaded models
        are, with its tensors flattened in input-spec order: `m(x1, x2, x3)`."""
        names, tree, _ = self._concrete.input_structure
        if kwargs or len(args) != len(self._concrete.inputs):
            return False
        if not all(isinstance(a, (Tensor, np.ndarray)) for a in args):
            return False
        return len(names) != len(args) or any(sub is not LEAF for sub in tree[1])

    def _bind_structured(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> List[Any]:
        """The arrays of a call whose arguments have the structure the saved function took (a
        list of tensors is passed as a list); Python values fixed when saving may be left out."""
        names, tree, leaves = self._concrete.input_structure
        specs = self._concrete.inputs
        if len(args) > len(names):
            raise InputMismatchError(f"the model takes {len(names)} argument(s) "
                                     f"({self._structure_text()}), or its {len(specs)} "
                                     f"tensor(s) flattened in that order, got {len(args)}")
        values = list(args) + [_MISSING] * (len(names) - len(args))
        for key, v in kwargs.items():
            if key not in names:
                raise InputMismatchError(f"the model has no argument named {key!r}; its "
                                         f"arguments are {self._structure_text()}")
            i = names.index(key)
            if values[i] is not _MISSING:
                raise InputMismatchError(f"argument {key!r} is given twice")
            values[i] = v
        arrays: List[Any] = [None] * len(specs)
        it = iter(leaves)

        def walk(value: Any, sub: Any, where: str) -> None:
            if sub is LEAF:
                kind, v = next(it)
                if kind == "var":
                    if value is _MISSING:
                        raise InputMismatchError(f"missing `{where}` ({spec_text(specs[v])}); the "
                                                 f"model takes {self._structure_text()}")
                    arrays[v] = self._convert(where, specs[v], value)
                elif value is not _MISSING and not _same_value(value, v):
                    raise InputMismatchError(f"`{where}` was {v!r} when the model was saved and is "
                                             f"fixed in its program; got {value!r}")
                return
            kind, items = sub
            if value is _MISSING:
                for k, s in (items if kind == "dict" else enumerate(items)):
                    walk(_MISSING, s, f"{where}[{k!r}]")
                return
            if kind == "dict":
                if not isinstance(value, dict) or set(value) != {k for k, _ in items}:
                    raise InputMismatchError(f"`{where}` must be a dict with the keys "
                                             f"{[k for k, _ in items]}, got {_value_text(value)}")
                for k, s in items:
                    walk(value[k], s, f"{where}[{k!r}]")
                return
            if not isinstance(value, (list, tuple)) or len(value) != len(items):
                raise InputMismatchError(f"`{where}` must be a {kind} of {len(items)} items, got "
                                         f"{_value_text(value)}")
            for i, s in enumerate(items):
                walk(value[i], s, f"{where}[{i}]")

        for name, value, sub in zip(names, values, tree[1]):
            walk(value, sub, name)
        return arrays

    def _structure_text(self) -> str:
        names, tree, leaves = self._concrete.input_structure
        specs = self._concrete.inputs
        it = iter(leaves)

        def text(sub: Any) -> str:
            if sub is LEAF:
                kind, v = next(it)
                return spec_text(specs[v]) if kind == "var" else repr(v)
            kind, items = sub
            if kind == "dict":
                return "{" + ", ".join(f"{k!r}: {text(s)}" for k, s in items) + "}"
            inner = ", ".join(text(s) for s in items)
            return f"[{inner}]" if kind == "list" else f"({inner}{',' if len(items) == 1 else ''})"
        return "(" + ", ".join(f"{n}: {text(s)}" for n, s in zip(names, tree[1])) + ")"

    def _convert(self, name: str, spec: InputSpec, v: Any) -> Any:
        """v checked against spec: a Tensor is returned as it is (its gradient may be asked
        for), anything else as the array fed."""
        expects = f"input '{name}' expects {spec_text(spec)}"
        if isinstance(v, Tensor):
            arr = v._value
        elif isinstance(v, (np.ndarray, np.generic)):
            arr = np.asarray(v)
        elif isinstance(v, (bool, int, float, complex)):
            arr = self._scalar(expects, spec, v)
        elif isinstance(v, Variable):
            raise InputMismatchError(f"{expects}, got the symbolic tensor {v.name}: a loaded model "
                                     "runs on concrete values only")
        else:
            raise InputMismatchError(f"{expects}, got {type(v).__name__} (pass a Tensor or a "
                                     "numpy array)")
        if arr.dtype.name != dtype_name(spec.dtype):
            raise InputMismatchError(f"{expects}, got {_array_text(arr)} (dtypes are not cast; "
                                     f"convert with .astype('{dtype_name(spec.dtype)}'))")
        if not spec.matches(arr.shape, spec.dtype):
            raise InputMismatchError(f"{expects}, got {_array_text(arr)}")
        return v if isinstance(v, Tensor) else arr

    @staticmethod
    def _scalar(expects: str, spec: InputSpec, v: Any) -> np.ndarray:
        """A Python scalar becomes an array of the spec's dtype when no value is lost (an int
        or a float also fits a complex spec; a complex fits only a complex one)."""
        d = spec.dtype
        if isinstance(v, bool):
            fits = d == "bool"
        elif isinstance(v, int):
            fits = d.is_integer or d.is_inexact
        elif isinstance(v, float):
            fits = d.is_inexact
        else:
            fits = d.is_complex
        if not fits:
            raise InputMismatchError(f"{expects}, got the Python {type(v).__name__} {v!r}")
        try:
            return np.array(v, dtype=d.np)
        except OverflowError:
            raise InputMismatchError(f"{expects}, got {v!r}, which does not fit "
                                     f"{dtype_name(d)}") from None

    def _write_back(self, outs: List[Any]) -> None:
        """The buffers the call updated (`persistable_writes`) take their new values, as after
        an eager call (a fine-tuning call's gradient program writes them itself)."""
        p = self._concrete.program
        for param, value in p.persistable_writes.items():
            p.write_targets[param]._value = np.array(outs[p.fetch_names.index(value)])

    def _rebuild(self, outs: List[Any], inputs: List[np.ndarray]) -> Any:
        # An output may be an input or a parameter passed straight through: copy it so that
        # changing the result cannot change the caller's array or the model's weights.
        shared = {id(a) for a in inputs} | {id(t._value) for t in
                                            self._concrete.program.persistables.values()}

        def wrap(a: Any) -> Any:
            if isinstance(a, list):                         # a tensor array
                return [wrap(x) for x in a]
            a = np.asarray(a)
            return Tensor(a.copy() if id(a) in shared else a)

        leaves = [wrap(outs[v]) if kind == "var" else copy.deepcopy(v)
                  for kind, v in self._concrete.output_leaves]
        return unflatten(self._concrete.output_tree, leaves)

    # ----------------------------------------------------------------------------- description
    @property
    def input_spec(self) -> List[Any]:
        """The InputSpecs, in the structure of the arguments (a list argument is a list)."""
        specs = [InputSpec(s.shape, s.dtype, s.name) for s in self._concrete.inputs]
        if self._concrete.input_structure is None:
            return specs
        _, tree, leaves = self._concrete.input_structure
        return list(unflatten(tree, [specs[v] if kind == "var" else v for kind, v in leaves]))

    @property
    def concrete_program(self) -> ConcreteProgram:
        return self._concrete

    @property
    def extra(self) -> Dict[str, Any]:
        """Extra metadata stored by the saver."""
        return dict(self._extra)

    def program(self, method_name: str = "forward") -> Program:
        """The loaded Program (print it to read the graph)."""
        if method_name != "forward":
            raise ValueError(f"a loaded model only has 'forward', not {method_name!r}")
        return self._concrete.program

    def _signature(self) -> str:
        return ", ".join(f"{n}: {spec_text(s)}" for n, s in zip(self._input_names,
                                                                self._concrete.inputs))

    def __repr__(self) -> str:
        c = self._concrete
        where = f"{self._source!r}, " if self._source else ""
        return (f"TranslatedLayer({where}inputs=({self._signature()}), "
                f"outputs={describe(c.output_tree)}, parameters={len(c.program.persistables)}, "
                f"ops={c.program.num_ops()})")

    # ----------------------------------------------------------------------------- state
    def train(self) -> "TranslatedLayer":
        object.__setattr__(self, "training", True)
        return self

    def eval(self) -> "TranslatedLayer":
        object.__setattr__(self, "training", False)
        return self

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True
                         ) -> Iterator[Tuple[str, Tensor]]:
        for name, t in self._concrete.program.persistables.items():
            yield (f"{prefix}.{name}" if prefix else name), t

    def parameters(self, include_sublayers: bool = True) -> List[Tensor]:
        return [t for _, t in self.named_parameters()]

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True
                      ) -> Iterator[Tuple[str, Tensor]]:
        return iter(())               # every persistable of the graph is listed as a parameter

    def buffers(self, include_sublayers: bool = True) -> List[Tensor]:
        return []

    def state_dict(self, *args: Any, **kwargs: Any) -> "collections.OrderedDict[str, Tensor]":
        return collections.OrderedDict(self.named_parameters())

    def set_state_dict(self, state_dict: Dict[str, Any], use_structured_name: bool = True
                       ) -> Tuple[List[str], List[str]]:
        """Copy values into the parameters (same shape and dtype); returns (missing, unexpected)."""
        params = self._concrete.program.persistables
        for name, value in state_dict.items():
            if name in params:
                arr = np.asarray(value._value if isinstance(value, Tensor) else value)
                old = params[name]._value
                if arr.shape != old.shape or arr.dtype != old.dtype:
                    raise ValueError(f"set_state_dict: {name!r} is {_array_text(old)}, got "
                                     f"{_array_text(arr)}")
                params[name]._value = arr.copy()
        return ([n for n in params if n not in state_dict],
                [n for n in state_dict if n not in params])

    set_dict = set_state_dict
