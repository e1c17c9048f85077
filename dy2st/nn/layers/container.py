"""Containers: Sequential, LayerList, LayerDict and ParameterList."""
from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from ...runtime.tensor import Parameter
from ..layer import Layer


def _index(i: Any, n: int, what: str) -> int:
    i = int(i)
    if not -n <= i < n:
        raise IndexError(f"{what} index {i} is out of range for length {n}")
    return i % n


class Sequential(Layer):
    """Calls its layers in order. Built from layers (named '0', '1', ...), (name, layer) pairs or a dict."""

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], Mapping):
            items = list(layers[0].items())
        elif layers and isinstance(layers[0], (list, tuple)):
            items = [tuple(pair) for pair in layers]
        else:
            items = [(str(i), layer) for i, layer in enumerate(layers)]
        for name, layer in items:
            self.add_sublayer(name, layer)

    def __getitem__(self, name: Union[int, str, slice]) -> Any:
        layers = list(self._sub_layers.values())
        if isinstance(name, slice):
            return type(self)(*layers[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        return layers[_index(name, len(layers), "Sequential")]

    def __setitem__(self, name: Union[int, str], layer: Layer) -> None:
        key = name if isinstance(name, str) else list(self._sub_layers)[_index(name, len(self), "Sequential")]
        self.add_sublayer(key, layer)

    def __delitem__(self, name: Union[int, str]) -> None:
        key = name if isinstance(name, str) else list(self._sub_layers)[_index(name, len(self), "Sequential")]
        del self._sub_layers[key]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self) -> Iterator[Layer]:
        return iter(self._sub_layers.values())

    def append(self, layer: Layer) -> "Sequential":
        # After a deletion str(len(self)) may already be taken; never overwrite a layer.
        n = len(self)
        while str(n) in self._sub_layers:
            n += 1
        self.add_sublayer(str(n), layer)
        return self

    def forward(self, input: Any) -> Any:
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers, registered as '0', '1', ... so their parameters are found."""

    def __init__(self, sublayers: Optional[Iterable[Layer]] = None) -> None:
        super().__init__()
        for layer in sublayers or []:
            self.append(layer)

    def _renumber(self, layers: list) -> None:
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self.add_sublayer(str(i), layer)

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return type(self)(layers[idx])
        return layers[_index(idx, len(layers), "LayerList")]

    def __setitem__(self, idx: int, layer: Layer) -> None:
        self.add_sublayer(str(_index(idx, len(self), "LayerList")), layer)

    def __delitem__(self, idx: Union[int, slice]) -> None:
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[_index(idx, len(layers), "LayerList")]
        self._renumber(layers)

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self) -> Iterator[Layer]:
        return iter(self._sub_layers.values())

    def append(self, sublayer: Layer) -> "LayerList":
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index: int, sublayer: Layer) -> None:
        layers = list(self._sub_layers.values())
        n = len(layers)
        if not -n <= index <= n:
            raise IndexError(f"LayerList.insert index {index} is out of range for length {n}")
        layers.insert(index, sublayer)
        self._renumber(layers)

    def extend(self, sublayers: Iterable[Layer]) -> "LayerList":
        for layer in sublayers:
            self.append(layer)
        return self

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("LayerList has no forward; iterate over it in the parent's forward")


class LayerDict(Layer):
    """A dict of sublayers, in insertion order."""

    def __init__(self, sublayers: Optional[Any] = None) -> None:
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key: str) -> Layer:
        return self._sub_layers[key]

    def __setitem__(self, key: str, sublayer: Layer) -> None:
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key: str) -> None:
        del self._sub_layers[key]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self) -> Iterator[str]:
        return iter(self._sub_layers)

    def __contains__(self, key: str) -> bool:
        return key in self._sub_layers

    def keys(self):
        return self._sub_layers.keys()

    def values(self):
        return self._sub_layers.values()

    def items(self):
        return self._sub_layers.items()

    def pop(self, key: str) -> Layer:
        return self._sub_layers.pop(key)

    def clear(self) -> None:
        self._sub_layers.clear()

    def update(self, sublayers: Any) -> None:
        items = sublayers.items() if isinstance(sublayers, Mapping) else sublayers
        for key, layer in items:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    """A list of Parameters, registered as '0', '1', ... so parameters() and state_dict() see them."""

    def __init__(self, parameters: Optional[Iterable[Parameter]] = None) -> None:
        super().__init__()
        for p in parameters or []:
            self.append(p)

    def __getitem__(self, idx: int) -> Parameter:
        params = list(self._parameters.values())
        return params[_index(idx, len(params), "ParameterList")]

    def __setitem__(self, idx: int, param: Parameter) -> None:
        self._parameters[str(_index(idx, len(self), "ParameterList"))] = self._checked(param)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._parameters.values())

    @staticmethod
    def _checked(param: Any) -> Parameter:
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterList holds Parameters, got {type(param).__name__}")
        return param

    def append(self, parameter: Parameter) -> "ParameterList":
        self._parameters[str(len(self))] = self._checked(parameter)
        return self

    def extend(self, parameters: Iterable[Parameter]) -> "ParameterList":
        for p in parameters:
            self.append(p)
        return self


class ParameterDict(Layer):
    """A dict of Parameters in insertion order; parameters() and state_dict() see them by key."""

    def __init__(self, parameters: Optional[Any] = None) -> None:
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, param: Parameter) -> None:
        self._parameters[str(key)] = ParameterList._checked(param)
        Layer.structure_epoch += 1

    def __delitem__(self, key: str) -> None:
        del self._parameters[key]
        Layer.structure_epoch += 1

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()

    def items(self):
        return self._parameters.items()

    def update(self, parameters: Any) -> None:
        items = parameters.items() if isinstance(parameters, Mapping) else parameters
        for key, param in items:
            self[key] = param
