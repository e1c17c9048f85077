"""paddle.Model: Paddle's high-level training API (prepare / fit / evaluate / predict / save /
load) over a Layer. With `inputs` InputSpecs each batch step runs as one `jit.to_static`
Program (Paddle runs such a Model as a static graph); without them it runs eagerly."""
from __future__ import annotations

import inspect
import os
import warnings
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..format.input_spec import InputSpec
from ..io import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    SequenceSampler,
    load as load_file,
    save as save_file,
)
from ..jit import save as jit_save
from ..metric import Metric
from ..nn.layer import Layer
from ..runtime import ops
from ..runtime.tensor import Tensor
from . import steps
from .callbacks import EarlyStopping, config_callbacks
from .sampler import EpochShuffleSampler
from .summary import summary as summary_table


def to_list(value: Any) -> List[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _flatten(nested: Any) -> List[Any]:
    if isinstance(nested, (list, tuple)):
        return [leaf for item in nested for leaf in _flatten(item)]
    return [nested]


def _to_numpy(value: Any) -> np.ndarray:
    return np.asarray(value.numpy() if isinstance(value, Tensor) else value)


def _to_tensor(value: Any) -> Any:
    return value if isinstance(value, Tensor) else ops.to_tensor(np.asarray(value))


def _first_value(loss: np.ndarray) -> Any:
    return np.asarray(loss).reshape(-1)[0]


def _forward_arg_names(network: Layer) -> List[str]:
    params = inspect.signature(network.forward).parameters.values()
    return [p.name for p in params
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _verify_specs(specs: Any, what: str, network: Layer) -> Optional[List[InputSpec]]:
    """None, one InputSpec, a list of them, or a dict of them by forward argument name."""
    if specs is None:
        return None
    if isinstance(specs, dict):
        names = _forward_arg_names(network)
        missing = [n for n in specs if n not in names]
        if missing:
            raise ValueError(f"Model: {what} names {missing} are not arguments of "
                             f"{type(network).__name__}.forward {names}")
        specs = [specs[n] for n in names if n in specs]
    specs = to_list(specs)
    for s in specs:
        if not isinstance(s, InputSpec):
            raise TypeError(f"Model: {what} must be paddle.static.InputSpec objects, got "
                            f"{type(s).__name__}")
    return specs


def _check_against_specs(values: List[Any], specs: Optional[List[InputSpec]], what: str) -> None:
    """The static-graph check Paddle makes when data is fed: rank and each known dim."""
    if specs is None:
        return
    for k, (v, spec) in enumerate(zip(values, specs)):
        shape = list(v.shape)
        name = spec.name or f"{what}[{k}]"
        if len(shape) != len(spec.shape) or any(
                d is not None and d != s for d, s in zip(spec.shape, shape)):
            raise ValueError(f"Model: {what} {name!r} has shape {shape}, its InputSpec says "
                             f"{[-1 if d is None else d for d in spec.shape]}")


class Model:
    """Paddle's `paddle.Model(network, inputs=None, labels=None)`."""

    def __init__(self, network: Layer, inputs: Any = None, labels: Any = None) -> None:
        if not isinstance(network, Layer):
            raise TypeError(f"Model: network must be a paddle.nn.Layer, got "
                            f"{type(network).__name__}")
        self.network = network
        self._inputs = _verify_specs(inputs, "inputs", network)
        self._labels = _verify_specs(labels, "labels", network)
        self._loss: Any = None
        self._optimizer: Any = None
        self._metrics: List[Metric] = []
        self._accumulate = 1
        self._input_info: Optional[Tuple[List[List[int]], List[Any]]] = None
        self._steps = steps.StepRunner() if self._inputs is not None else None
        self.stop_training = False
        self.mode = "train"

    # ------------------------------------------------------------------------- setup
    def prepare(self, optimizer: Any = None, loss: Any = None, metrics: Any = None,
                amp_configs: Any = None) -> None:
        """Sets the optimizer, the loss (a Layer or any callable of outputs + labels) and the
        metrics (paddle.metric.Metric objects)."""
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable "
                            "function.")
        metrics = to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"{type(m).__name__} is not sub class of paddle.metric.Metric")
        if amp_configs not in (None, "O0") and not (isinstance(amp_configs, dict)
                                                     and amp_configs.get("level", "O0") == "O0"):
            raise ValueError(f"Model.prepare: amp_configs={amp_configs!r} asks for automatic "
                             f"mixed precision, which dy2st (numpy on the CPU) does not run; "
                             f"use None or 'O0'")
        self._optimizer = optimizer
        self._loss = loss
        self._metrics = metrics

    def parameters(self, *args: Any, **kwargs: Any) -> List[Any]:
        return self.network.parameters(*args, **kwargs)

    def _metrics_name(self) -> List[str]:
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(to_list(m.name()))
        return names

    # ------------------------------------------------------------------------- one batch
    def _batch(self, inputs: Any, labels: Any) -> Tuple[List[Any], List[Any]]:
        inputs = [_to_tensor(x) for x in to_list(inputs)]
        labels = [_to_tensor(y) for y in to_list(labels)]
        _check_against_specs(inputs, self._inputs, "input")
        _check_against_specs(labels, self._labels, "label")
        self._input_info = ([list(x.shape) for x in inputs], [x.dtype for x in inputs])
        return inputs, labels

    def _update_metrics(self, outputs: Any, labels: List[Any]) -> List[Any]:
        results = []
        for metric in self._metrics:
            metric_outs = metric.compute(*(to_list(outputs) + labels))
            results.append(metric.update(*[_to_numpy(m) for m in to_list(metric_outs)]))
        return results

    def train_batch(self, inputs: Any, labels: Any = None, update: bool = True) -> Any:
        """One optimisation step: the losses (numpy arrays), and the metrics' update() results
        when there are metrics. update=False only accumulates the gradients."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.train_batch: model not ready, please call "
                               "`model.prepare()` with an optimizer and a loss first")
        self.network.train()
        self.mode = "train"
        inputs, labels = self._batch(inputs, labels)
        run = self._steps.train if self._steps else steps.train_step
        outputs, losses = run(self.network, self._loss, self._optimizer, inputs, labels,
                              bool(update))
        metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(l) for l in losses]
        return (losses, metrics) if metrics else losses

    def eval_batch(self, inputs: Any, labels: Any = None) -> Any:
        """The losses (when a loss is set) and the metrics' update() results on one batch."""
        self.network.eval()
        self.mode = "eval"
        inputs, labels = self._batch(inputs, labels)
        run = self._steps.eval if self._steps else steps.eval_step
        outputs, losses = run(self.network, self._loss, inputs, labels)
        metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(l) for l in losses]
        if self._loss and metrics:
            return losses, metrics
        return losses if self._loss else metrics

    def predict_batch(self, inputs: Any) -> List[np.ndarray]:
        """The network's outputs on one batch, as numpy arrays."""
        self.network.eval()
        self.mode = "test"
        inputs, _ = self._batch(inputs, None)
        run = self._steps.predict if self._steps else steps.predict_step
        return [_to_numpy(o) for o in to_list(run(self.network, inputs))]

    # ------------------------------------------------------------------------- loops
    def _loader(self, data: Any, batch_size: int, shuffle: bool, drop_last: bool,
                num_workers: int) -> Any:
        if not isinstance(data, Dataset):
            return data
        if isinstance(data, IterableDataset):
            return DataLoader(data, batch_size=batch_size, drop_last=drop_last,
                              num_workers=num_workers, return_list=True)
        order = EpochShuffleSampler(data) if shuffle else SequenceSampler(data)
        batches = BatchSampler(sampler=order, batch_size=batch_size, drop_last=drop_last)
        return DataLoader(data, batch_sampler=batches, num_workers=num_workers,
                          return_list=True)

    @staticmethod
    def _len_data_loader(loader: Any) -> Optional[int]:
        try:
            return len(loader)
        except TypeError:
            return None

    def _n_inputs(self) -> int:
        if self._inputs is not None:
            return len(self._inputs)
        return len(_forward_arg_names(self.network))

    def _run_one_epoch(self, data_loader: Any, callbacks: Any, mode: str) -> Any:
        logs: Dict[str, Any] = {}
        outputs = []
        n_in = self._n_inputs()
        n_steps = self._len_data_loader(data_loader)
        for step, data in enumerate(data_loader):
            data = _flatten(data)
            callbacks.on_batch_begin(mode, step, logs)
            if mode != "predict":
                args: List[Any] = [data[:n_in], data[n_in:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == n_steps)
                outs = getattr(self, mode + "_batch")(*args)
                if self._metrics and self._loss:
                    values: List[Any] = [[_first_value(l) for l in outs[0]]]
                elif self._loss:
                    values = [[_first_value(l) for l in outs]]
                else:
                    values = []
                for metric in self._metrics:
                    values.extend(to_list(metric.accumulate()))
                logs.update(zip(self._metrics_name(), values))
            else:
                outputs.append(self.predict_batch(data[:n_in]))
            logs["step"] = step
            logs["batch_size"] = int(data[0].shape[0]) if data and data[0].shape else 1
            callbacks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        for metric in self._metrics:
            metric.reset()
        if mode == "predict":
            return logs, outputs
        return logs

    def fit(self, train_data: Any = None, eval_data: Any = None, batch_size: int = 1,
            epochs: int = 1, eval_freq: int = 1, log_freq: int = 10,
            save_dir: Optional[str] = None, save_freq: int = 1, verbose: int = 2,
            drop_last: bool = False, shuffle: bool = True, num_workers: int = 0,
            callbacks: Any = None, accumulate_grad_batches: int = 1,
            num_iters: Optional[int] = None) -> None:
        """Trains for `epochs` epochs over train_data (a Dataset or any iterable of batches),
        evaluating on eval_data every `eval_freq` epochs."""
        if train_data is None:
            raise ValueError("Model.fit: train_data must be given!")
        if not isinstance(accumulate_grad_batches, int) or accumulate_grad_batches < 1:
            raise ValueError(f"Model.fit: accumulate_grad_batches must be an int >= 1, got "
                             f"{accumulate_grad_batches!r}")
        train_loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        eval_loader = None if eval_data is None else self._loader(eval_data, batch_size, False,
                                                                  False, num_workers)
        do_eval = eval_loader is not None
        self._accumulate = accumulate_grad_batches
        steps_per_epoch = self._len_data_loader(train_loader)
        self.num_iters = num_iters
        if num_iters is not None:
            if not isinstance(num_iters, int) or num_iters <= 0:
                raise ValueError(f"Model.fit: num_iters must be a positive int, got {num_iters!r}")
            if steps_per_epoch:
                epochs = num_iters // steps_per_epoch + 1
                steps_per_epoch = min(num_iters, steps_per_epoch)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps_per_epoch,
                                log_freq=log_freq, save_freq=save_freq, save_dir=save_dir,
                                verbose=verbose, metrics=self._metrics_name())
        if any(isinstance(k, EarlyStopping) for k in cbks) and not do_eval:
            warnings.warn("EarlyStopping needs validation data.")
        self.stop_training = False
        cbks.on_begin("train")
        logs: Dict[str, Any] = {}
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if do_eval and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len_data_loader(eval_loader),
                                       "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self.__dict__.pop("num_iters", None)

    def evaluate(self, eval_data: Any, batch_size: int = 1, log_freq: int = 10,
                 verbose: int = 2, num_workers: int = 0, callbacks: Any = None,
                 num_iters: Optional[int] = None) -> Dict[str, Any]:
        """{'loss': [value], metric name: value, ...} over eval_data."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        eval_steps = self._len_data_loader(loader)
        self.num_iters = num_iters
        if num_iters is not None and eval_steps is not None:
            eval_steps = min(num_iters, eval_steps)
        cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self.__dict__.pop("num_iters", None)
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data: Any, batch_size: int = 1, num_workers: int = 0,
                stack_outputs: bool = False, verbose: int = 1, callbacks: Any = None) -> List[Any]:
        """The outputs over test_data: one list per network output, holding a numpy array per
        batch (or, with stack_outputs, the batches stacked into one array)."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        logs: Dict[str, Any] = {"steps": self._len_data_loader(loader)}
        cbks.on_begin("predict", logs)
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(o) for o in outputs]
        else:
            outputs = [list(o) for o in outputs]
        cbks.on_end("predict", logs)
        return outputs

    # ------------------------------------------------------------------------- save / load
    def save(self, path: str, training: bool = True) -> None:
        """training=True: `path.pdparams` (and `path.pdopt` with the optimizer state) by
        paddle.save; training=False: an inference model by paddle.jit.save."""
        if not isinstance(path, str) or not path:
            raise ValueError(f"Model.save: path must be a non-empty string, got {path!r}")
        if os.path.dirname(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        if not training:
            self._save_inference_model(path)
            return
        save_file(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            state = self._optimizer.state_dict()
            if state:
                save_file(state, path + ".pdopt")

    def _save_inference_model(self, path: str) -> None:
        specs = self._inputs
        if specs is None:
            if self._input_info is None:
                raise RuntimeError("Model.save(training=False): saving an inference model needs "
                                   "'inputs' (InputSpecs) in Model(...) or a batch run before "
                                   "saving, to know the input shapes")
            warnings.warn("Model.save(training=False): no 'inputs' were given; the shapes of "
                          "the last batch are used for the exported model")
            names = _forward_arg_names(self.network)
            shapes, dtypes = self._input_info
            specs = [InputSpec(s, d, names[k] if k < len(names) else None)
                     for k, (s, d) in enumerate(zip(shapes, dtypes))]
        jit_save(self.network, path, input_spec=specs)

    def load(self, path: str, skip_mismatch: bool = False, reset_optimizer: bool = False) -> None:
        """Loads `path.pdparams` (and `path.pdopt` unless reset_optimizer). A missing key or a
        shape mismatch raises, or with skip_mismatch is skipped with a warning (and the
        optimizer state is then not loaded)."""
        base, ext = os.path.splitext(path)
        if ext not in ("", ".pdparams", ".pdopt", ".pdmodel"):
            base = path
        if not os.path.exists(base + ".pdparams"):
            raise FileNotFoundError(f"Model.load: failed to load parameters, "
                                    f"{base + '.pdparams'} does not exist")
        saved = load_file(base + ".pdparams")
        if not isinstance(saved, dict):
            raise ValueError(f"Model.load: {base + '.pdparams'} does not hold a state dict")
        matched: Dict[str, Any] = {}
        for key, param in self.network.state_dict().items():
            value = saved.get(key)
            problem = None
            if value is None:
                problem = f"{key} is not found in the providing file."
            elif list(np.shape(_to_numpy(value))) != list(param.shape):
                problem = (f"{key} receives a shape {list(np.shape(_to_numpy(value)))}, but the "
                           f"expected shape is {list(param.shape)}.")
            if problem is None:
                matched[key] = value
            elif skip_mismatch:
                warnings.warn(f"Skip loading for {key}. {problem}")
                reset_optimizer = True
            else:
                raise ValueError(problem)
        self.network.set_state_dict(matched)
        if not reset_optimizer and self._optimizer is not None \
                and os.path.exists(base + ".pdopt"):
            self._optimizer.set_state_dict(load_file(base + ".pdopt"))

    # ------------------------------------------------------------------------- summary
    def summary(self, input_size: Any = None, dtype: Any = None) -> Dict[str, int]:
        """paddle.summary of the network, on input_size or the Model's `inputs` specs."""
        if input_size is None and self._inputs is None:
            raise ValueError("Model.summary: 'input_size' or the Model's 'inputs' must be set")
        return summary_table(self.network, input_size if input_size is not None
                             else self._inputs, dtypes=dtype)
