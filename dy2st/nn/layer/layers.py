"""nn.Layer: the base class of models; owns parameters, buffers and sublayers, runs forward hooks.

`__call__` looks `self.forward` up on every call, so jit.to_static can replace an instance's forward."""
from __future__ import annotations

import collections
import copy
import functools
import inspect
import warnings
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from ...runtime.config import get_default_dtype
from ...runtime.dtype import convert_dtype, dtype_name
from ...runtime.errors import ConversionError
from ...runtime.persistable import write_persistable
from ...runtime.registry import hooks as _hooks
from ...runtime.state import build_state
from ...runtime.tensor import Parameter, Tensor, TensorLike
from .. import naming
from ..hooks import HookRemoveHelper
from ..initializer import Constant, Initializer, XavierUniform
from ..param_attr import WeightNormParamAttr, to_param_attr
from ..weight_norm_attr import weight_norm_parameter

_BOOKKEEPING = ("_parameters", "_sub_layers", "_buffers")


def _remembering_name(init: Callable[..., None]) -> Callable[..., None]:
    """Wrap a built-in layer's __init__ that takes `name` so the instance keeps it as `_name`,
    as each of Paddle's layers does itself."""
    try:
        sig = inspect.signature(init)
    except (TypeError, ValueError):
        return init
    if "name" not in sig.parameters:
        return init

    @functools.wraps(init)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if "_name" not in self.__dict__:
            try:
                name = sig.bind(self, *args, **kwargs).arguments.get("name")
            except TypeError:
                name = None
            object.__setattr__(self, "_name", name)
    return wrapped



def _state_changed() -> None:
    Layer.state_epoch += 1


class ParameterInTraceError(ConversionError, RuntimeError):
    """A parameter made while to_static traces a program that later calls reuse (a Layer built
    inside the converted function): eager code would make new ones on every call."""


class Layer:
    """Base class of all layers (Paddle's `paddle.nn.Layer`)."""

    # Bumped whenever any layer gets a new parameter, buffer or sublayer object: programs traced
    # before hold the old tensors, so StaticFunction checks its cache when this moves.
    structure_epoch = 0
    # Bumped whenever an attribute of any layer is set or deleted, a mode changes or a forward
    # hook is added or removed: a traced program checks the attributes of dy2st's own layers it
    # called (their forward reads them as library code, jit/guards/layer_states.py) only then.
    state_epoch = 0

    training: bool

    # The `name` argument of Paddle's built-in layers (None when not given); model zoos read it.
    _name: Optional[str] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("dy2st.") and "__init__" in cls.__dict__:
            cls.__init__ = _remembering_name(cls.__dict__["__init__"])

    def __init__(self, name_scope: Optional[str] = None, dtype: Any = "float32") -> None:
        # Bookkeeping dicts go straight into __dict__: our __setattr__ relies on them existing.
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_full_name", naming.generate(name_scope or naming.camel_to_snake(type(self).__name__)))
        setattr_(self, "_dtype", dtype_name(dtype))
        setattr_(self, "_parameters", collections.OrderedDict())
        setattr_(self, "_sub_layers", collections.OrderedDict())
        setattr_(self, "_buffers", collections.OrderedDict())
        setattr_(self, "_non_persistable_buffer_names_set", set())
        setattr_(self, "_forward_pre_hooks", collections.OrderedDict())
        setattr_(self, "_forward_post_hooks", collections.OrderedDict())

    # ----------------------------------------------------------------------------- calling
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        self._check_initialized("__call__")
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        forward = self.forward
        if build_state.blocks and _hooks.layer_forward is not None:
            # While a program is traced, a user Layer's forward runs converted, whoever calls
            # it (the user's code, nn.Sequential, a hook); jit registers the converter.
            forward = _hooks.layer_forward(self) or forward
        outputs = forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            result = hook(self, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs

    def register_forward_pre_hook(self, hook: Callable) -> HookRemoveHelper:
        """`hook(layer, inputs)` runs before forward; a non-None result replaces the inputs."""
        handle = HookRemoveHelper(self._forward_pre_hooks, _state_changed)
        self._forward_pre_hooks[handle._hook_id] = hook
        _state_changed()
        return handle

    def register_forward_post_hook(self, hook: Callable) -> HookRemoveHelper:
        """`hook(layer, inputs, outputs)` runs after forward; a non-None result replaces the outputs."""
        handle = HookRemoveHelper(self._forward_post_hooks, _state_changed)
        self._forward_post_hooks[handle._hook_id] = hook
        _state_changed()
        return handle

    # ----------------------------------------------------------------------------- names, modes
    def full_name(self) -> str:
        return self._full_name

    def train(self) -> "Layer":
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", True)
        _state_changed()
        return self

    def eval(self) -> "Layer":
        for layer in self.sublayers(include_self=True):
            object.__setattr__(layer, "training", False)
        _state_changed()
        return self

    def apply(self, fn: Callable[["Layer"], Any]) -> "Layer":
        """Call fn on every sublayer (children first) and then on self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # ----------------------------------------------------------------------------- parameters
    def create_parameter(self, shape: Sequence[int], attr: Any = None, dtype: Any = None,
                         is_bias: bool = False, default_initializer: Optional[Initializer] = None) -> Optional[Parameter]:
        """A new Parameter named `<layer>.w_N` / `<layer>.b_N`; attr=False means no parameter (None)."""
        pattr = to_param_attr(attr)
        if pattr is None:
            return None
        if build_state.reused_trace and build_state.blocks:
            raise ParameterInTraceError(
                f"{self._maker()} makes a parameter inside a function that to_static compiles: "
                "eager code makes new parameters, with new initial values, on every call, but a "
                "compiled program would keep the ones made while tracing. Build the Layer once "
                "outside the function (in `__init__`, or pass it in), or run the function with "
                "full_graph=False, where this statement runs as Python on every call")
        shape = [int(d) for d in shape]
        if any(d < 0 for d in shape):
            raise ValueError(f"create_parameter: every dim must be known and >= 0, got {shape}")
        d = convert_dtype(dtype if dtype is not None else get_default_dtype())
        init = pattr.initializer or default_initializer or (Constant(0.0) if is_bias else XavierUniform())
        name = pattr.name or naming.generate(f"{self._full_name}.{'b' if is_bias else 'w'}")
        if isinstance(pattr, WeightNormParamAttr):
            return weight_norm_parameter(pattr, init.generate(shape, d), name)
        return Parameter(init.generate(shape, d), name=name, trainable=pattr.trainable)

    def _maker(self) -> str:
        """How an error names what makes a parameter: the Layer, or paddle.create_parameter."""
        return "paddle.create_parameter" if type(self) is Layer else \
            f"building the Layer `{type(self).__name__}`"

    def add_parameter(self, name: str, parameter: Optional[Parameter]) -> Optional[Parameter]:
        self._check_initialized("add_parameter")
        self._check_new_name(name, "_parameters")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"add_parameter({name!r}): expected a Parameter, got {type(parameter).__name__}")
        self._parameters[name] = parameter
        Layer.structure_epoch += 1
        return parameter

    def parameters(self, include_sublayers: bool = True) -> List[Parameter]:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[Tuple[str, Parameter]]:
        """(dotted name, parameter) pairs: own parameters first, then each sublayer's, depth first."""
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for key, p in layer._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{layer_prefix}.{key}" if layer_prefix else key), p

    # ----------------------------------------------------------------------------- sublayers
    def add_sublayer(self, name: str, sublayer: Optional["Layer"]) -> Optional["Layer"]:
        self._check_initialized("add_sublayer")
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError(f"add_sublayer({name!r}): expected a Layer, got {type(sublayer).__name__}")
        self._sub_layers[str(name)] = sublayer
        Layer.structure_epoch += 1
        return sublayer

    def named_sublayers(self, prefix: str = "", include_self: bool = False,
                        layers_set: Optional[set] = None) -> Iterator[Tuple[str, "Layer"]]:
        """(dotted name, layer) pairs in depth-first pre-order; a shared layer appears once."""
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            sub_prefix = f"{prefix}.{key}" if prefix else key
            yield from layer.named_sublayers(prefix=sub_prefix, include_self=True, layers_set=layers_set)

    def sublayers(self, include_self: bool = False) -> List["Layer"]:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self) -> Iterator[Tuple[str, "Layer"]]:
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self) -> Iterator["Layer"]:
        for _, layer in self.named_children():
            yield layer

    # ----------------------------------------------------------------------------- buffers
    def register_buffer(self, name: str, tensor: Optional[Tensor], persistable: bool = True) -> None:
        """A tensor that is part of the layer's state but not a parameter (e.g. running statistics)."""
        self._check_initialized("register_buffer")
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"register_buffer: the name must be a non-empty string without '.', got {name!r}")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"register_buffer: attribute {name!r} already exists")
        if tensor is not None and not isinstance(tensor, TensorLike):
            raise TypeError(f"register_buffer({name!r}): expected a Tensor or None, got {type(tensor).__name__}")
        if isinstance(tensor, Tensor):
            # A persistable, named buffer becomes a readable persistable variable when captured.
            tensor.name = tensor.name or f"{self._full_name}.{name}"
            tensor.persistable = persistable
        self._buffers[name] = tensor
        Layer.structure_epoch += 1
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[Tuple[str, Tensor]]:
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for key, b in layer._buffers.items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield (f"{layer_prefix}.{key}" if layer_prefix else key), b

    def buffers(self, include_sublayers: bool = True) -> List[Tensor]:
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    # ----------------------------------------------------------------------------- state
    def state_dict(self, destination: Optional[Dict[str, Any]] = None, include_sublayers: bool = True,
                   structured_name_prefix: str = "", use_hook: bool = True) -> "collections.OrderedDict[str, Tensor]":
        """Parameters and persistable buffers by dotted name (the tensors themselves, not copies)."""
        out = collections.OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                out[structured_name_prefix + name] = p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistable_buffer_names_set:
                out[structured_name_prefix + name] = b
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    layer.state_dict(out, True, f"{structured_name_prefix}{name}.")
        return out

    def set_state_dict(self, state_dict: Dict[str, Any], use_structured_name: bool = True) -> Tuple[List[str], List[str]]:
        """Copy values (tensors or numpy arrays) into this layer's state; returns (missing, unexpected) keys.

        All shapes are checked before anything is copied, so a mismatch leaves the layer unchanged."""
        own = self.state_dict()
        if not use_structured_name:
            own = collections.OrderedDict((t.name, t) for t in own.values())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        updates, errors = [], []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            arr = np.asarray(value.numpy() if isinstance(value, TensorLike) else value)
            if list(arr.shape) != list(target.shape):
                errors.append(f"{key}: the given value has shape {list(arr.shape)}, "
                              f"but the layer expects shape {list(target.shape)}")
            else:
                updates.append((target, arr))
        if errors:
            raise ValueError("set_state_dict: shape mismatch\n  " + "\n  ".join(errors))
        for key in missing:
            warnings.warn(f"set_state_dict: {key} is not found in the provided dict; it keeps its value")
        for target, arr in updates:
            target.set_value(arr)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        """Zero (or, with set_to_zero=False, drop) the gradient of every trainable parameter."""
        for p in self.parameters():
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    def to(self, device: Any = None, dtype: Any = None, blocking: Any = None) -> "Layer":
        """Only CPU exists, so `device` is ignored; `dtype` casts floating parameters and buffers in place."""
        if dtype is not None:
            d = convert_dtype(dtype)
            for t in list(self.parameters()) + list(self.buffers()):
                if isinstance(t, Tensor) and t.dtype.is_floating:
                    t._value = t._value.astype(d.np)
            for layer in self.sublayers(include_self=True):
                object.__setattr__(layer, "_dtype", dtype_name(d))
        return self

    def float(self) -> "Layer":
        return self.to(dtype="float32")

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Layer":
        # Tensor.__deepcopy__ returns a plain Tensor even for a Parameter, so copy parameters
        # ourselves first (through memo, so a parameter shared by two sublayers stays shared).
        for layer in self.sublayers(include_self=True):
            for p in layer._parameters.values():
                if p is not None and id(p) not in memo:
                    q = Parameter(p._value.copy(), name=p.name, trainable=p.trainable)
                    q.stop_gradient = p.stop_gradient
                    memo[id(p)] = q
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            new.__dict__[key] = copy.deepcopy(value, memo)
        return new

    # ----------------------------------------------------------------------------- attributes
    def _check_initialized(self, what: str) -> None:
        if "_parameters" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}.{what}: call super().__init__() in __init__ "
                               "before assigning parameters or sublayers")

    def _check_new_name(self, name: str, where: str) -> None:
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"the name must be a non-empty string without '.', got {name!r}")
        if hasattr(self, name) and name not in self.__dict__[where]:
            raise KeyError(f"attribute {name!r} already exists")

    def _remove_everywhere(self, name: str) -> None:
        for where in _BOOKKEEPING:
            self.__dict__[where].pop(name, None)
        self.__dict__.pop(name, None)

    def __setattr__(self, name: str, value: Any) -> None:
        Layer.state_epoch += 1
        if isinstance(value, Parameter):
            self._check_initialized(f"__setattr__({name!r})")
            self._remove_everywhere(name)
            self._parameters[name] = value
            Layer.structure_epoch += 1
        elif isinstance(value, Layer):
            self._check_initialized(f"__setattr__({name!r})")
            self._remove_everywhere(name)
            self._sub_layers[name] = value
            Layer.structure_epoch += 1
        elif "_parameters" in self.__dict__ and name in self._parameters:
            if value is not None:
                raise TypeError(f"{name} is a parameter of {type(self).__name__}: assign a Parameter "
                                f"or None, not {type(value).__name__} (use set_value to change its values)")
            self._parameters[name] = None
            Layer.structure_epoch += 1
        elif "_sub_layers" in self.__dict__ and name in self._sub_layers:
            if value is not None:
                raise TypeError(f"{name} is a sublayer of {type(self).__name__}: assign a Layer or "
                                f"None, not {type(value).__name__}")
            self._sub_layers[name] = None
            Layer.structure_epoch += 1
        elif "_buffers" in self.__dict__ and name in self._buffers:
            if value is not None and not isinstance(value, TensorLike):
                raise TypeError(f"{name} is a buffer of {type(self).__name__}: assign a Tensor or "
                                f"None, not {type(value).__name__}")
            current = self._buffers[name]
            if build_state.blocks and type(current) is Tensor and value is not None and \
                    not isinstance(value, Tensor):
                # `self.steps = self.steps + 1` while a program is built: the program writes the
                # buffer when it runs (a new symbolic value kept here would be read by no later
                # call: every call then started from the buffer of before the trace)
                write_persistable(current, value)
                return
            self._buffers[name] = value
            Layer.structure_epoch += 1
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails; read __dict__ directly to avoid recursion.
        d = self.__dict__
        for where in _BOOKKEEPING:
            table = d.get(where)
            if table is not None and name in table:
                return table[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        Layer.state_epoch += 1
        for where in _BOOKKEEPING:
            table = self.__dict__.get(where)
            if table is not None and name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def __dir__(self) -> List[str]:
        keys = list(super().__dir__())
        for where in _BOOKKEEPING:
            keys.extend(self.__dict__.get(where, {}))
        return sorted(set(keys))

    # ----------------------------------------------------------------------------- repr
    def extra_repr(self) -> str:
        """Extra text shown inside this layer's repr parentheses (override in subclasses)."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        children = []
        for name, layer in self._sub_layers.items():
            text = repr(layer).replace("\n", "\n  ")
            children.append(f"  ({name}): {text}")
        if not children:
            return f"{type(self).__name__}({extra})"
        lines = ([f"  {line}" for line in extra.split("\n")] if extra else []) + children
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"
