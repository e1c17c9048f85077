"""paddle.callbacks: the hooks Model.fit / evaluate / predict call (Callback, ProgBarLogger,
ModelCheckpoint, EarlyStopping, LRScheduler, ReduceLROnPlateau) and the list that dispatches
to them."""
from __future__ import annotations

import numbers
import os
import warnings
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ..optimizer.lr import LRScheduler as Scheduler
from .progressbar import ProgressBar

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "EarlyStopping", "LRScheduler",
           "ReduceLROnPlateau", "CallbackList", "config_callbacks"]

_MODES = ("train", "eval", "predict")


class Callback:
    """Base class: override any of the on_* hooks; `self.model` and `self.params` are set by
    the Model before the first hook runs."""

    def __init__(self) -> None:
        self.model: Any = None
        self.params: Dict[str, Any] = {}

    def set_params(self, params: Dict[str, Any]) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self.model = model

    def on_train_begin(self, logs: Optional[dict] = None) -> None: ...
    def on_train_end(self, logs: Optional[dict] = None) -> None: ...
    def on_eval_begin(self, logs: Optional[dict] = None) -> None: ...
    def on_eval_end(self, logs: Optional[dict] = None) -> None: ...
    def on_predict_begin(self, logs: Optional[dict] = None) -> None: ...
    def on_predict_end(self, logs: Optional[dict] = None) -> None: ...
    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None: ...
    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None: ...
    def on_train_batch_begin(self, step: int, logs: Optional[dict] = None) -> None: ...
    def on_train_batch_end(self, step: int, logs: Optional[dict] = None) -> None: ...
    def on_eval_batch_begin(self, step: int, logs: Optional[dict] = None) -> None: ...
    def on_eval_batch_end(self, step: int, logs: Optional[dict] = None) -> None: ...
    def on_predict_batch_begin(self, step: int, logs: Optional[dict] = None) -> None: ...
    def on_predict_batch_end(self, step: int, logs: Optional[dict] = None) -> None: ...


class CallbackList:
    """Calls one hook on every callback, in order (`on_begin('train')` -> `on_train_begin`)."""

    def __init__(self, callbacks: Optional[Sequence[Callback]] = None) -> None:
        self.callbacks = list(callbacks or [])
        self.params: Dict[str, Any] = {}
        self.model: Any = None

    def append(self, callback: Callback) -> None:
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params: Dict[str, Any]) -> None:
        self.params = params
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model: Any) -> None:
        self.model = model
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name: str, *args: Any) -> None:
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode: str) -> None:
        if mode not in _MODES:
            raise ValueError(f"callbacks: mode must be one of {_MODES}, got {mode!r}")

    def on_begin(self, mode: str, logs: Optional[dict] = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode: str, logs: Optional[dict] = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode: str, step: int, logs: Optional[dict] = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode: str, step: int, logs: Optional[dict] = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class _Pass:
    """Progress of one pass over the data (a training epoch, an evaluation, a prediction)."""

    def __init__(self, steps: Optional[int], metrics: Sequence[str], verbose: int) -> None:
        self.steps = steps
        self.metrics = list(metrics)
        self.step = 0
        self.samples = 0
        self.bar = ProgressBar(num=steps, verbose=verbose)


class ProgBarLogger(Callback):
    """Prints progress: with verbose=1 a bar redrawn in place, with verbose=2 one line every
    `log_freq` steps and at the end of each pass; verbose=0 prints nothing."""

    _TITLES = {"eval": ("Eval begin...", "Eval samples"),
               "predict": ("Predict begin...", "Predict samples")}

    def __init__(self, log_freq: int = 1, verbose: int = 2) -> None:
        super().__init__()
        self.epochs: Optional[int] = None
        self.verbose = verbose
        self.log_freq = log_freq
        self._passes: Dict[str, _Pass] = {}

    def _is_print(self) -> bool:
        return bool(self.verbose)

    def _show(self, run: _Pass, logs: dict) -> None:
        run.bar.update(run.step, [(k, logs[k]) for k in run.metrics if k in logs])

    def _begin(self, mode: str, steps: Optional[int], metrics: Sequence[str]) -> None:
        self._passes[mode] = _Pass(steps, metrics, self.verbose)
        if mode in self._TITLES and self._is_print():
            print(self._TITLES[mode][0])

    def _batch_end(self, mode: str, logs: Optional[dict]) -> None:
        logs = logs or {}
        run = self._passes[mode]
        run.step += 1
        run.samples += int(logs.get("batch_size", 0))
        if self._is_print() and run.step % self.log_freq == 0 \
                and (run.steps is None or run.step < run.steps):
            self._show(run, logs)

    def _end(self, mode: str, logs: Optional[dict]) -> None:
        run = self._passes[mode]
        if self._is_print() and run.steps is not None:
            self._show(run, logs or {})
            if mode in self._TITLES:
                print(f"{self._TITLES[mode][1]}: {run.samples}")

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.epochs = self.params.get("epochs")

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.epoch = epoch
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self._begin("train", self.params.get("steps"), self.params.get("metrics") or [])

    def on_train_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        self._batch_end("train", logs)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._end("train", logs)

    def on_eval_begin(self, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        self._begin("eval", logs.get("steps"), logs.get("metrics", []))

    def on_eval_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        self._batch_end("eval", logs)

    def on_eval_end(self, logs: Optional[dict] = None) -> None:
        self._end("eval", logs)

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        self._begin("predict", (logs or {}).get("steps"), [])

    def on_predict_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        self._batch_end("predict", logs)

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        self._end("predict", logs)


class ModelCheckpoint(Callback):
    """Saves the model (`model.save(f"{save_dir}/{epoch}")`) every `save_freq` epochs and as
    `{save_dir}/final` when training ends; nothing when save_dir is None."""

    def __init__(self, save_freq: int = 1, save_dir: Optional[str] = None) -> None:
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir
        self.epoch = 0

    def on_epoch_begin(self, epoch: Optional[int] = None, logs: Optional[dict] = None) -> None:
        self.epoch = epoch

    def _is_save(self) -> bool:
        return bool(self.model and self.save_dir)

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self._is_save() and self.epoch % self.save_freq == 0:
            path = f"{self.save_dir}/{epoch}"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self._is_save():
            path = f"{self.save_dir}/final"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (by_step=True, the
    default) or after every epoch (by_epoch=True)."""

    def __init__(self, by_step: bool = True, by_epoch: bool = False) -> None:
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("LRScheduler: by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step(self) -> None:
        optimizer = getattr(self.model, "_optimizer", None)
        scheduler = getattr(optimizer, "_learning_rate", None)
        if isinstance(scheduler, Scheduler):
            scheduler.step()

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step: int, logs: Optional[dict] = None) -> None:
        if self.by_step:
            self._step()


class EarlyStopping(Callback):
    """Stops training when the monitored eval value has not improved by more than `min_delta`
    for more than `patience` evaluations; with save_best_model, saves `{save_dir}/best_model`."""

    def __init__(self, monitor: str = "loss", mode: str = "auto", patience: int = 0,
                 verbose: int = 1, min_delta: float = 0, baseline: Optional[float] = None,
                 save_best_model: bool = True) -> None:
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir: Optional[str] = None        # set by config_callbacks from fit's save_dir
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        if mode == "min" or (mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = np.less
            self.min_delta *= -1
        else:
            self.monitor_op = np.greater

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs: Optional[dict] = None) -> None:
        current = _monitored(logs, self.monitor, "EarlyStopping")
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch > self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    best = os.path.abspath(os.path.join(self.save_dir, "best_model"))
                    print(f"Best checkpoint has been saved at {best}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by `factor` when the monitored eval value has not
    improved by more than min_delta for `patience` evaluations (then waits `cooldown`
    evaluations); never below min_lr. An optimizer driven by a scheduler is left alone."""

    def __init__(self, monitor: str = "loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 1, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0) -> None:
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = mode
        self.epoch = 0
        self._reset()

    def _reset(self) -> None:
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to "
                          f"auto mode.")
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._reset()

    def on_eval_end(self, logs: Optional[dict] = None) -> None:
        current = _monitored(logs, self.monitor, "ReduceLROnPlateau")
        if current is None:
            return
        optimizer = getattr(self.model, "_optimizer", None)
        lr = getattr(optimizer, "_learning_rate", None)
        if not isinstance(lr, float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(lr)}.")
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    optimizer.set_lr(new_lr)
                    if self.verbose > 0:
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


def config_callbacks(callbacks: Any = None, model: Any = None, batch_size: Optional[int] = None,
                     epochs: Optional[int] = None, steps: Optional[int] = None,
                     log_freq: int = 2, verbose: int = 2, save_freq: int = 1,
                     save_dir: Optional[str] = None, metrics: Optional[List[str]] = None,
                     mode: str = "train") -> CallbackList:
    """The user's callbacks plus the defaults Paddle adds when missing: a ProgBarLogger (when
    verbose), a ModelCheckpoint and an LRScheduler stepping per batch."""
    cbks = callbacks or []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"callbacks: expected paddle.callbacks.Callback objects, got "
                            f"{type(c).__name__}")
    if verbose and not any(isinstance(k, ProgBarLogger) for k in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    params = {"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
              "metrics": (metrics or []) if mode != "test" else []}
    cbk_list.set_params(params)
    return cbk_list


def _monitored(logs: Optional[dict], monitor: str, who: str) -> Optional[float]:
    """The monitored eval value in `logs` (a metric's first value), or None (with Paddle's
    warning when it is missing)."""
    if logs is None or monitor not in logs:
        warnings.warn(f"Monitor of {who} should be loss or metric name.")
        return None
    current = logs[monitor]
    if isinstance(current, (list, tuple)):
        return current[0]
    return current if isinstance(current, (numbers.Number, np.number)) else None
