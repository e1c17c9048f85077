"""Beam search decoding: BeamSearchDecoder (one beam-search step around an RNN cell) and
dynamic_decode (steps a decoder until every sequence finishes or max_step_num is reached).
The loop is a while_loop, so under to_static it becomes one `while` op over an unknown number
of steps; step outputs are gathered by concatenation along time."""
from __future__ import annotations

import collections
from typing import Any, Callable, Optional, Tuple

import numpy as np

from ...runtime import ops
from ...runtime.control_flow.while_loop import while_loop
from ...runtime.dtype import dtype_name
from ...runtime.nest import map_structure
from ...runtime.ops.operands import as_tensor
from .. import functional as F
from ..functional.dims import known_dims

__all__ = ["BeamSearchDecoder", "dynamic_decode"]

_KINF = 1e9    # Paddle's stand-in for infinity in beam scores


def _rest_dims(x: Any, skip: int, what: str) -> list:
    rest = known_dims(x)[skip:]
    if any(d < 0 for d in rest):
        raise ValueError(f"BeamSearchDecoder: {what} needs known trailing dims, got shape {known_dims(x)}")
    return rest


class BeamSearchDecoder:
    """Beam search around `cell` (an RNNCellBase-like layer: cell(inputs, states) -> (outputs,
    new_states)); output_fn maps cell outputs to vocabulary logits, embedding_fn token ids to the
    next inputs."""

    OutputWrapper = collections.namedtuple("OutputWrapper", ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper", ("cell_states", "log_probs", "finished", "lengths"))
    tracks_own_finished = True

    def __init__(self, cell: Any, start_token: int, end_token: int, beam_size: int,
                 embedding_fn: Optional[Callable] = None, output_fn: Optional[Callable] = None) -> None:
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token, self.beam_size = int(start_token), int(end_token), int(beam_size)

    # ------------------------------------------------------------------ reshaping helpers
    @staticmethod
    def tile_beam_merge_with_batch(x: Any, beam_size: int) -> Any:
        """[B, ...] -> [B * beam_size, ...], each row repeated beam_size times in a row."""
        x = as_tensor(x)
        rest = _rest_dims(x, 1, "tile_beam_merge_with_batch")
        tiled = ops.tile(ops.unsqueeze(x, 1), [1, int(beam_size)] + [1] * len(rest))
        return ops.reshape(tiled, [-1] + rest)

    def _split_batch_beams(self, x: Any) -> Any:
        return ops.reshape(x, [-1, self.beam_size] + _rest_dims(x, 1, "a cell output"))

    def _merge_batch_beams(self, x: Any) -> Any:
        return ops.reshape(x, [-1] + _rest_dims(x, 2, "a beam input"))

    def _expand_to_beam_size(self, x: Any) -> Any:
        x = as_tensor(x)
        return ops.tile(ops.unsqueeze(x, 1), [1, self.beam_size] + [1] * (x.ndim - 1))

    @staticmethod
    def _gather(x: Any, indices: Any) -> Any:
        """x [B, beam, ...] at beam `indices` [B, beam] of each batch row."""
        idx = indices
        for _ in range(as_tensor(x).ndim - 2):
            idx = ops.unsqueeze(idx, -1)
        return ops.take_along_axis(x, idx, axis=1)

    # ------------------------------------------------------------------ decoder protocol
    def initialize(self, initial_cell_states: Any) -> Tuple[Any, Any, Any]:
        cell_states = map_structure(self._expand_to_beam_size, initial_cell_states)
        first = ops.flatten(_first_leaf(cell_states), 1)[:, :1]                    # [B, 1]
        ids = ops.cast(ops.zeros_like(ops.tile(first, [1, self.beam_size])), "int64")   # [B, beam]
        init_inputs = ops.add(ids, self.start_token)
        row = np.array([[0.0] + [-_KINF] * (self.beam_size - 1)], dtype=dtype_name(first.dtype))
        log_probs = ops.add(ops.cast(ops.zeros_like(init_inputs), first.dtype), ops.to_tensor(row))
        finished = ops.cast(ops.zeros_like(init_inputs), "bool")
        lengths = ops.zeros_like(init_inputs)
        if self.embedding_fn is not None:
            init_inputs = self.embedding_fn(init_inputs)
        return init_inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _mask_probs(self, log_probs: Any, finished: Any, vocab: int) -> Any:
        """A finished beam may only emit end_token, at no cost."""
        noend = np.full([vocab], -_KINF, dtype=dtype_name(log_probs.dtype))
        noend[self.end_token] = 0.0
        done = ops.unsqueeze(ops.cast(finished, log_probs.dtype), -1)
        return ops.add(ops.multiply(log_probs, ops.subtract(1.0, done)),
                       ops.multiply(done, ops.to_tensor(noend)))

    def _beam_search_step(self, logits: Any, next_cell_states: Any, beam_state: Any) -> Tuple[Any, Any]:
        vocab = known_dims(logits)[-1]
        if vocab < 0:
            raise ValueError("BeamSearchDecoder: the vocabulary size (logits.shape[-1]) must be known")
        step_log_probs = self._mask_probs(F.log_softmax(logits, axis=-1), beam_state.finished, vocab)
        log_probs = ops.add(step_log_probs, ops.unsqueeze(beam_state.log_probs, -1))
        scores = ops.reshape(log_probs, [-1, self.beam_size * vocab])
        topk_scores, topk_indices = ops.topk(scores, k=self.beam_size)
        beam_indices = ops.floor_divide(topk_indices, ops.full_like(topk_indices, vocab))
        token_indices = ops.remainder(topk_indices, ops.full_like(topk_indices, vocab))
        next_log_probs = ops.take_along_axis(scores, topk_indices, axis=1)
        next_cell_states = map_structure(lambda s: self._gather(s, beam_indices), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices)
        next_lengths = self._gather(beam_state.lengths, beam_indices)
        next_lengths = ops.add(next_lengths, ops.cast(ops.logical_not(next_finished), next_lengths.dtype))
        next_finished = ops.logical_or(next_finished,
                                       ops.equal(token_indices, ops.full_like(token_indices, self.end_token)))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time: Any, inputs: Any, states: Any, **kwargs: Any) -> Tuple[Any, Any, Any, Any]:
        inputs = map_structure(self._merge_batch_beams, inputs)
        cell_states = map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(cell_outputs, next_cell_states, states)
        sample_ids = output.predicted_ids
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn is not None else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs: Any, final_states: Any, sequence_lengths: Any) -> Tuple[Any, Any]:
        """Whole beams from the time-major step ids and parent beams."""
        return F.gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states


def _first_leaf(obj: Any) -> Any:
    while isinstance(obj, (list, tuple)):
        obj = obj[0]
    if isinstance(obj, dict):
        return _first_leaf(next(iter(obj.values())))
    return obj


def dynamic_decode(decoder: Any, inits: Any = None, max_step_num: Optional[int] = None,
                   output_time_major: bool = False, impute_finished: bool = False, is_test: bool = False,
                   return_length: bool = False, **kwargs: Any) -> Any:
    """Run decoder.step until all sequences are finished or more than max_step_num steps ran;
    returns (outputs, final_states[, sequence_lengths]), outputs batch-major unless
    output_time_major."""
    inputs, states, finished = decoder.initialize(inits)
    lengths = ops.cast(ops.zeros_like(finished), "int64")
    tracks = getattr(decoder, "tracks_own_finished", False)

    def advance(step, inputs, states, finished, lengths):
        out, next_states, next_inputs, next_finished = decoder.step(step, inputs, states, **kwargs)
        if tracks:
            next_lengths = getattr(next_states, "lengths", lengths)
        else:
            next_finished = ops.logical_or(next_finished, finished)
            next_lengths = ops.add(lengths, ops.cast(ops.logical_not(finished), lengths.dtype))
            if impute_finished:
                keep = finished
                next_states = map_structure(lambda old, new: _keep_finished(old, new, keep), states, next_states)
        return out, next_inputs, next_states, next_finished, next_lengths

    # the first step runs before the loop: it fixes the outputs' structure and starts their buffers
    step = ops.zeros([1], "int64")
    out, inputs, states, finished, lengths = advance(step, inputs, states, finished, lengths)
    buffers = map_structure(lambda o: ops.unsqueeze(o, 0), out)
    step = ops.add(step, 1)

    def cond(step, inputs, states, finished, lengths, buffers):
        going = ops.logical_not(ops.all(finished))
        if max_step_num is not None:
            going = ops.logical_and(going, ops.reshape(ops.less_equal(step, ops.full_like(step, int(max_step_num))), []))
        return going

    def body(step, inputs, states, finished, lengths, buffers):
        o, i, s, f, ln = advance(step, inputs, states, finished, lengths)
        buffers = map_structure(lambda b, x: ops.concat([b, ops.unsqueeze(x, 0)], axis=0), buffers, o)
        return [ops.add(step, 1), i, s, f, ln, buffers]

    _, inputs, states, finished, lengths, buffers = while_loop(
        cond, body, [step, inputs, states, finished, lengths, buffers])
    outputs = buffers
    try:
        outputs, states = decoder.finalize(outputs, states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        outputs = map_structure(lambda x: ops.transpose(x, [1, 0] + list(range(2, as_tensor(x).ndim))), outputs)
    return (outputs, states, lengths) if return_length else (outputs, states)


def _keep_finished(old: Any, new: Any, finished: Any) -> Any:
    """new where the sequence is still running, old where it had already finished."""
    mask = ops.cast(finished, new.dtype)
    while mask.ndim < new.ndim:
        mask = ops.unsqueeze(mask, -1)
    return ops.add(ops.multiply(old, mask), ops.multiply(new, ops.subtract(1.0, mask)))
