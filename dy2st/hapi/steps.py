"""One batch of Model training, evaluation and prediction, run eagerly or, for a Model with
`inputs` specs, as `jit.to_static` Programs (the whole train step, backward and update
included, is one Program per input signature)."""
from __future__ import annotations

from typing import Any, List, Tuple

from ..autograd import no_grad
from ..jit import to_static
from ..runtime import ops


def _as_list(value: Any) -> List[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def train_step(network: Any, loss_fn: Any, optimizer: Any, inputs: List[Any],
               labels: List[Any], update: bool) -> Tuple[Any, List[Any]]:
    """Forward, loss, backward and (when update) the optimizer step, as Paddle's Model."""
    outputs = network(*inputs)
    losses = loss_fn(*(_as_list(outputs) + list(labels)))
    losses = _as_list(losses)
    final_loss = ops.add_n(losses) if len(losses) > 1 else losses[0]
    final_loss.backward()
    if update:
        optimizer.step()
        optimizer.clear_grad()
    return outputs, losses


def forward_and_loss(network: Any, loss_fn: Any, inputs: List[Any], labels: List[Any]) -> Tuple[Any, List[Any]]:
    outputs = network(*inputs)
    losses: List[Any] = []
    if loss_fn is not None:
        losses = _as_list(loss_fn(*(_as_list(outputs) + list(labels))))
    return outputs, losses


def eval_step(network: Any, loss_fn: Any, inputs: List[Any], labels: List[Any]) -> Tuple[Any, List[Any]]:
    with no_grad():
        return forward_and_loss(network, loss_fn, inputs, labels)


def forward(network: Any, inputs: List[Any]) -> Any:
    return network(*inputs)


def predict_step(network: Any, inputs: List[Any]) -> Any:
    with no_grad():
        return forward(network, inputs)


class StepRunner:
    """The converted steps of one Model (each a StaticFunction caching its Programs)."""

    def __init__(self) -> None:
        self._train = to_static(train_step, full_graph=True)
        self._eval = to_static(forward_and_loss, full_graph=True)
        self._predict = to_static(forward, full_graph=True)

    def train(self, network: Any, loss_fn: Any, optimizer: Any, inputs: List[Any],
              labels: List[Any], update: bool) -> Tuple[Any, List[Any]]:
        outputs, losses = self._train(network, loss_fn, optimizer, inputs, labels, update)
        return outputs, _as_list(losses)

    def eval(self, network: Any, loss_fn: Any, inputs: List[Any], labels: List[Any]) -> Tuple[Any, List[Any]]:
        with no_grad():
            outputs, losses = self._eval(network, loss_fn, inputs, labels)
        return outputs, _as_list(losses)

    def predict(self, network: Any, inputs: List[Any]) -> Any:
        with no_grad():
            return self._predict(network, inputs)
