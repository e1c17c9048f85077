"""The Layers a trace called through `Layer.__call__`: their forward hooks, and for layers whose
forward runs as library code (dy2st's own: Dropout, LeakyReLU, Sequential) their attributes,
mode and sublayers, checked as one guard that compares them only after some layer attribute,
mode or hook changed (Layer.state_epoch) or a layer got new parts (Layer.structure_epoch)."""
from __future__ import annotations

from typing import Any, List, Tuple

from .values import matches, snapshot

# tables of a Layer that other guards cover (parameters and buffers: the structure epoch and
# the owned-tensor check of StaticFunction) or that are compared apart (sublayers, hooks)
_APART = frozenset(("_parameters", "_buffers", "_sub_layers", "_forward_pre_hooks",
                    "_forward_post_hooks", "_non_persistable_buffer_names_set"))


def layer_state(layer: Any, library: bool) -> Any:
    """What decides what calling `layer` does beyond its parameters and its own converted code:
    its hooks; for a library layer also its attributes and its sublayers (by identity)."""
    d = layer.__dict__
    hooks = (tuple(d.get("_forward_pre_hooks", {}).values()),
             tuple(d.get("_forward_post_hooks", {}).values()))
    if not library:
        return hooks
    attrs = {k: v for k, v in d.items() if k not in _APART}
    return hooks, attrs, dict(d.get("_sub_layers") or {})


class LayerStates:
    """One guard over the layers of a trace: `holds()` is True while none of them changed."""

    __slots__ = ("layers", "snaps", "owner", "epochs")

    def __init__(self, layers: List[Tuple[Any, bool]]) -> None:
        self.layers = layers
        self.snaps = [snapshot(layer_state(layer, library)) for layer, library in layers]
        # the class holding the epochs (nn.Layer; found from a layer: jit does not import nn)
        self.owner = next(k for k in type(layers[0][0]).__mro__ if "state_epoch" in k.__dict__)
        self.epochs = self._epochs()

    def _epochs(self) -> Tuple[int, int]:
        return self.owner.state_epoch, self.owner.structure_epoch

    def holds(self) -> bool:
        epochs = self._epochs()
        if epochs == self.epochs:
            return True
        for (layer, library), snap in zip(self.layers, self.snaps):
            if not matches(snap, layer_state(layer, library)):
                return False
        self.epochs = epochs        # compared: nothing that matters here changed
        return True

    def changed(self) -> str:
        for (layer, library), snap in zip(self.layers, self.snaps):
            if not matches(snap, layer_state(layer, library)):
                what = "attributes or hooks" if library else "hooks"
                return f"the {what} of the {type(layer).__name__} layer called"
        return "the layers called"
