"""Recurrent layers: the cells (SimpleRNNCell, LSTMCell, GRUCell), the step loop (RNN, BiRNN)
and the multi-layer networks (SimpleRNN, LSTM, GRU), with Paddle 3.x's names and defaults.

The step loop is eagerly a Python loop, and in a static Program ONE `while` op over tensor arrays
(whether the sequence length is known or not). Everything is made of differentiable ops, so
gradients need no rules of their own."""
from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

from ...runtime import ops, state
from ...runtime.control_flow.while_loop import probe, while_loop
from ...runtime.dtype import dtype_name
from ...runtime.pytree import flatten, unflatten
from .. import functional as F
from ..functional.dims import known_dims
from ..functional.sequence import sequence_mask
from ..initializer import Uniform
from ..layer import Layer
from .container import LayerList

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN", "SimpleRNN",
           "LSTM", "GRU"]


def _dim(x: Any, axis: int) -> Any:
    """x.shape[axis] as a Python int when known, else as a symbolic int64 scalar."""
    return x.shape[axis]


class RNNCellBase(Layer):
    """A cell maps (input step, states) to (output step, new states); see get_initial_states."""

    def get_initial_states(self, batch_ref: Any, shape: Any = None, dtype: Any = None,
                           init_value: float = 0.0, batch_dim_idx: int = 0) -> Any:
        """States filled with init_value, batch size taken from batch_ref's batch_dim_idx dim."""
        ref = flatten(batch_ref)[0][0]
        batch = _dim(ref, batch_dim_idx)
        shape = self.state_shape if shape is None else shape
        dtype = dtype or (ref.dtype if ref.dtype.is_floating else self._dtype)

        def build(s: Any) -> Any:
            if isinstance(s, (list, tuple)) and s and all(isinstance(d, int) for d in s):
                return ops.full([batch] + [int(d) for d in s], init_value, dtype)
            return type(s)(build(t) for t in s)

        return build(shape)

    @property
    def state_shape(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define state_shape")

    def _create_weights(self, gates: int, input_size: int, hidden_size: int, weight_ih_attr: Any,
                        weight_hh_attr: Any, bias_ih_attr: Any, bias_hh_attr: Any,
                        recurrent_size: Optional[int] = None) -> None:
        if not (isinstance(input_size, int) and input_size > 0 and isinstance(hidden_size, int)
                and hidden_size > 0):
            raise ValueError(f"{type(self).__name__}: input_size and hidden_size must be positive "
                             f"ints, got {input_size!r} and {hidden_size!r}")
        self.input_size, self.hidden_size = input_size, hidden_size
        std = 1.0 / math.sqrt(hidden_size)
        init = Uniform(-std, std)
        rows = gates * hidden_size
        self.weight_ih = self.create_parameter([rows, input_size], weight_ih_attr, default_initializer=init)
        self.weight_hh = self.create_parameter([rows, recurrent_size or hidden_size], weight_hh_attr,
                                               default_initializer=init)
        self.bias_ih = self.create_parameter([rows], bias_ih_attr, is_bias=True, default_initializer=init)
        self.bias_hh = self.create_parameter([rows], bias_hh_attr, is_bias=True, default_initializer=init)



class GatedCell(RNNCellBase):
    """The built-in cells: gates from an input part x W_ih^T + b_ih and a recurrent part
    h W_hh^T + b_hh; forward(x, states) = forward_gates(input_gates(x), states)."""

    def input_gates(self, x: Any) -> Any:
        """x W_ih^T + b_ih: for a whole [time, batch, input] sequence at once too (run_cell
        computes it in one product before the loop, then steps with forward_gates)."""
        xg = ops.matmul(x, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            xg = xg + self.bias_ih
        return xg

    def _hidden_gates(self, h: Any) -> Any:
        hg = ops.matmul(h, self.weight_hh, transpose_y=True)
        if self.bias_hh is not None:
            hg = hg + self.bias_hh
        return hg

    def forward(self, inputs: Any, states: Any = None) -> Tuple[Any, Any]:
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        return self.forward_gates(self.input_gates(inputs), states)

    def forward_gates(self, xg: Any, states: Any) -> Tuple[Any, Any]:
        raise NotImplementedError(f"{type(self).__name__} must define forward_gates")


class SimpleRNNCell(GatedCell):
    """h = activation(x W_ih^T + b_ih + h W_hh^T + b_hh); returns (h, h)."""

    def __init__(self, input_size: int, hidden_size: int, activation: str = "tanh",
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, name: Optional[str] = None) -> None:
        super().__init__()
        if activation not in ("tanh", "relu"):
            raise ValueError(f"SimpleRNNCell: activation must be 'tanh' or 'relu', got {activation!r}")
        self.activation = activation
        self._create_weights(1, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                             bias_ih_attr, bias_hh_attr)

    def forward_gates(self, xg: Any, states: Any) -> Tuple[Any, Any]:
        """One step from the input gates xg = input_gates(x)."""
        hg = self._hidden_gates(states)
        h = ops.tanh(xg + hg) if self.activation == "tanh" else F.relu(xg + hg)
        return h, h

    @property
    def state_shape(self) -> Tuple[int]:
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        act = f", activation={self.activation}" if self.activation != "tanh" else ""
        return f"{self.input_size}, {self.hidden_size}{act}"


class LSTMCell(GatedCell):
    """Gates i, f, g, o from x W_ih^T + b_ih + h W_hh^T + b_hh; c = f c + i tanh(g),
    h = o tanh(c) (times weight_ho when proj_size > 0); returns (h, (h, c))."""

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None, bias_hh_attr: Any = None,
                 proj_size: int = 0, name: Optional[str] = None) -> None:
        super().__init__()
        if not isinstance(proj_size, int) or proj_size < 0 or (proj_size and proj_size >= hidden_size):
            raise ValueError(f"LSTMCell: proj_size must be 0 or in [1, hidden_size), got {proj_size!r}")
        self.proj_size = proj_size
        self._create_weights(4, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                             bias_ih_attr, bias_hh_attr, recurrent_size=proj_size or None)
        if proj_size:
            std = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter([hidden_size, proj_size], weight_hh_attr,
                                                   default_initializer=Uniform(-std, std))

    def forward_gates(self, xg: Any, states: Any) -> Tuple[Any, Any]:
        """One step from the input gates xg = input_gates(x)."""
        h, c = states
        hg = self._hidden_gates(h)
        i, f, g, o = ops.split(xg + hg, 4, axis=-1)
        c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
        h = ops.sigmoid(o) * ops.tanh(c)
        if self.proj_size:
            h = ops.matmul(h, self.weight_ho)
        return h, (h, c)

    @property
    def state_shape(self) -> Tuple[Tuple[int], Tuple[int]]:
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self) -> str:
        proj = f", proj_size={self.proj_size}" if self.proj_size else ""
        return f"{self.input_size}, {self.hidden_size}{proj}"


class GRUCell(GatedCell):
    """r, z from the summed input and hidden gates; c = tanh(x_c + r * h_c); h = (h - c) z + c;
    returns (h, h)."""

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None, bias_hh_attr: Any = None,
                 name: Optional[str] = None) -> None:
        super().__init__()
        self._create_weights(3, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                             bias_ih_attr, bias_hh_attr)

    def forward_gates(self, xg: Any, states: Any) -> Tuple[Any, Any]:
        """One step from the input gates xg = input_gates(x)."""
        hg = self._hidden_gates(states)
        x_r, x_z, x_c = ops.split(xg, 3, axis=-1)
        h_r, h_z, h_c = ops.split(hg, 3, axis=-1)
        r = ops.sigmoid(x_r + h_r)
        z = ops.sigmoid(x_z + h_z)
        c = ops.tanh(x_c + r * h_c)
        h = (states - c) * z + c
        return h, h

    @property
    def state_shape(self) -> Tuple[int]:
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"


def _time_major(x: Any) -> Any:
    return ops.transpose(x, [1, 0] + list(range(2, len(known_dims(x)))))


def run_cell(cell: Layer, inputs: Any, initial_states: Any = None, sequence_length: Any = None,
             time_major: bool = False, is_reverse: bool = False, **kwargs: Any) -> Tuple[Any, Any]:
    """Run cell over the time axis of inputs (a tensor or a nested structure of tensors).

    With sequence_length, steps at or past a sequence's length keep its states and give zero
    outputs; is_reverse runs from the last step (padding first, so states wait at their initial
    values until the sequence starts)."""
    flat_in, in_tree = flatten(inputs)
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=flat_in[0], batch_dim_idx=1 if time_major else 0)
    dims, expected = known_dims(flat_in[0]), getattr(cell, "input_size", None)
    if isinstance(expected, int) and (len(dims) != 3 or dims[-1] not in (-1, expected)):
        raise ValueError(f"{type(cell).__name__}: inputs must be [batch, time, {expected}] "
                         f"(time first when time_major), got shape {dims}")
    if len(dims) < 2:
        raise ValueError(f"RNN: inputs need batch and time dims, got shape {dims}")
    xs = flat_in if time_major else [_time_major(x) for x in flat_in]
    steps = _dim(xs[0], 0)
    mask = None
    if sequence_length is not None:
        mask = ops.transpose(sequence_mask(sequence_length, maxlen=steps, dtype=xs[0].dtype), [1, 0])
    if is_reverse:
        xs = [ops.flip(x, [0]) for x in xs]
        mask = None if mask is None else ops.flip(mask, [0])
    flat_states, state_tree = flatten(initial_states)
    out_tree: List[Any] = []

    if projects_ahead(cell, xs, kwargs):
        # x W_ih^T + b_ih for every step in one product before the loop: each step then runs
        # only the recurrent product (the cell's forward with its input part taken out)
        gates = cell.input_gates(xs[0])

        def call(i: Any, states: Any) -> Any:
            return cell.forward_gates(gates[i], states)
    else:
        def call(i: Any, states: Any) -> Any:
            return cell(unflatten(in_tree, [x[i] for x in xs]), states, **kwargs)

    def step(i: Any, states: List[Any]) -> Tuple[List[Any], List[Any]]:
        """The cell at step i: (flattened outputs, flattened new states), masked."""
        out, new_states = call(i, unflatten(state_tree, states))
        flat_out, tree = flatten(out)
        flat_new = flatten(new_states)[0]
        if mask is not None:
            m = ops.unsqueeze(mask[i], -1)
            flat_new = [n * m + s * (1.0 - m) for n, s in zip(flat_new, states)]
            flat_out = [y * m for y in flat_out]
        if not out_tree:
            out_tree.append(tree)
        return flat_out, flat_new

    if state.current_block() is None:
        # Eager: a Python loop; the outputs of every step are stacked by the differentiable `stack`.
        per_step, states = [], flat_states
        for i in range(steps):
            flat_out, states = step(i, states)
            per_step.append(flat_out)
        outs = [ops.stack(list(ys), 0) for ys in zip(*per_step)]
    else:
        states, outs = _static_steps(step, steps, flat_states,
                                     _output_dtypes(cell, xs, in_tree, flat_states, state_tree, kwargs))
    final_states = unflatten(state_tree, states)
    if is_reverse:
        outs = [ops.flip(y, [0]) for y in outs]
    if not time_major:
        outs = [_time_major(y) for y in outs]
    return unflatten(out_tree[0], outs), final_states


def projects_ahead(cell: Layer, xs: List[Any], kwargs: dict) -> bool:
    """Whether run_cell may compute the input gates of all steps first: one of our cells whose
    forward (and gate methods) a subclass did not replace, one input tensor, no extra args."""
    base = next((c for c in (SimpleRNNCell, LSTMCell, GRUCell) if isinstance(cell, c)), None)
    if base is None or len(xs) != 1 or kwargs:
        return False
    kind = type(cell)
    return all(getattr(kind, m) is getattr(base, m)
               for m in ("forward", "forward_gates", "input_gates", "_hidden_gates"))


def _static_steps(step: Any, steps: Any, flat_states: List[Any], dtypes: List[Any]) -> Tuple[List[Any], List[Any]]:
    """ONE `while` op over the steps, known in number or not: the counter is a tensor (so the
    Program holds one copy of the cell, not one per step) and each output goes to a tensor array."""
    n_states = len(flat_states)

    def cond(i: Any, *carry: Any) -> Any:
        return i < steps

    def body(i: Any, *carry: Any) -> List[Any]:
        flat_out, flat_new = step(i, list(carry[:n_states]))
        arrays = [ops.array_write(y, i, a) for y, a in zip(flat_out, carry[n_states:])]
        return [i + 1] + flat_new + arrays

    arrays = [ops.create_array(dtype_name(d)) for d in dtypes]
    result = while_loop(cond, body, [ops.full([], 0, "int64")] + flat_states + arrays)
    return result[1:1 + n_states], [ops.array_stack(a, 0) for a in result[1 + n_states:]]


def _output_dtypes(cell: Layer, xs: List[Any], in_tree: Any, flat_states: List[Any], state_tree: Any,
                  kwargs: dict) -> List[Any]:
    """The dtypes of the cell's flattened outputs (for the tensor arrays made before the loop):
    the input's for our cells, else from one probing call whose ops are thrown away."""
    if isinstance(cell, (SimpleRNNCell, LSTMCell, GRUCell)):
        return [xs[0].dtype]
    out = probe(lambda: cell(unflatten(in_tree, [x[0] for x in xs]), unflatten(state_tree, flat_states),
                             **kwargs)[0])
    return [y.dtype for y in flatten(out)[0]]


class RNN(Layer):
    """Runs a cell over a sequence: forward(inputs, initial_states=None, sequence_length=None)
    returns (outputs, final_states); outputs stack the cell's outputs along the time axis."""

    def __init__(self, cell: Layer, is_reverse: bool = False, time_major: bool = False) -> None:
        super().__init__()
        if not isinstance(cell, Layer):
            raise TypeError(f"RNN: cell must be a Layer (an RNN cell), got {type(cell).__name__}")
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs: Any, initial_states: Any = None, sequence_length: Any = None,
                **kwargs: Any) -> Tuple[Any, Any]:
        return run_cell(self.cell, inputs, initial_states, sequence_length, self.time_major,
                        self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a backward RNN over the same inputs; outputs concatenated on the last axis,
    final_states a (forward, backward) pair; initial_states likewise a pair."""

    def __init__(self, cell_fw: Layer, cell_bw: Layer, time_major: bool = False) -> None:
        super().__init__()
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major
        if getattr(cell_fw, "input_size", None) != getattr(cell_bw, "input_size", None):
            raise ValueError(f"BiRNN: cell_fw and cell_bw must take the same input_size, got "
                             f"{getattr(cell_fw, 'input_size', None)} and {getattr(cell_bw, 'input_size', None)}")

    def forward(self, inputs: Any, initial_states: Any = None, sequence_length: Any = None,
                **kwargs: Any) -> Tuple[Any, Any]:
        if initial_states is None:
            states_fw = states_bw = None
        elif isinstance(initial_states, (list, tuple)) and len(initial_states) == 2:
            states_fw, states_bw = initial_states
        else:
            raise ValueError("BiRNN: initial_states must be a (forward, backward) pair of states")
        out_fw, fin_fw = run_cell(self.cell_fw, inputs, states_fw, sequence_length, self.time_major,
                                  False, **kwargs)
        out_bw, fin_bw = run_cell(self.cell_bw, inputs, states_bw, sequence_length, self.time_major,
                                  True, **kwargs)
        outputs = unflatten(flatten(out_fw)[1], [ops.concat([a, b], axis=-1) for a, b in
                                                zip(flatten(out_fw)[0], flatten(out_bw)[0])])
        return outputs, (fin_fw, fin_bw)


class RNNBase(LayerList):
    """num_layers of RNN / BiRNN layers; states stacked as [num_layers * num_directions, batch,
    hidden]. Parameters are also reachable as Paddle names them: weight_ih_l0, bias_hh_l1_reverse."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 direction: str = "forward", time_major: bool = False, dropout: float = 0.0,
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, **cell_kwargs: Any) -> None:
        super().__init__()
        if direction not in ("forward", "bidirect", "bidirectional"):
            raise ValueError(f"{mode}: direction must be 'forward', 'bidirect' or 'bidirectional', "
                             f"got {direction!r}")
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"{mode}: num_layers must be a positive int, got {num_layers!r}")
        if not 0 <= dropout <= 1:
            raise ValueError(f"{mode}: dropout must be in [0, 1], got {dropout!r}")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.time_major, self.dropout = num_layers, time_major, dropout
        self.num_directions = 2 if direction != "forward" else 1
        self.direction = direction
        self.state_components = 2 if mode == "LSTM" else 1
        cell_cls = {"LSTM": LSTMCell, "GRU": GRUCell, "SimpleRNN": SimpleRNNCell}[mode]
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                     bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr, **cell_kwargs)
        out_size = cell_kwargs.get("proj_size") or hidden_size
        for layer in range(num_layers):
            size = input_size if layer == 0 else out_size * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(cell_cls(size, hidden_size, **attrs), False, time_major))
            else:
                self.append(BiRNN(cell_cls(size, hidden_size, **attrs), cell_cls(size, hidden_size, **attrs),
                                  time_major))
        for layer in range(num_layers):
            cells = [self[layer].cell] if self.num_directions == 1 else [self[layer].cell_fw, self[layer].cell_bw]
            for cell, suffix in zip(cells, ["", "_reverse"]):
                for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_ho"):
                    p = getattr(cell, kind, None)
                    if p is not None:
                        setattr(self, f"{kind}_l{layer}{suffix}", p)

    def forward(self, inputs: Any, initial_states: Any = None, sequence_length: Any = None) -> Tuple[Any, Any]:
        layers = self.num_layers * self.num_directions
        if initial_states is None:
            states = [None] * layers
        else:
            given = [initial_states] if self.state_components == 1 and not isinstance(
                initial_states, (list, tuple)) else list(initial_states)
            if len(given) != self.state_components:
                raise ValueError(f"{self.mode}: initial_states must be {self.state_components} "
                                 f"tensor(s) of shape [num_layers * num_directions, batch, hidden]")
            per = [ops.unbind(s, 0) if known_dims(s)[0] >= 0 else None for s in given]
            if any(p is None or len(p) != layers for p in per):
                raise ValueError(f"{self.mode}: initial states need dim 0 = num_layers * "
                                 f"num_directions = {layers}, got {[s.shape[0] for s in given]}")
            states = [per[0][k] if self.state_components == 1 else tuple(p[k] for p in per)
                      for k in range(layers)]
        finals: List[Any] = []
        x = inputs
        for i, rnn_layer in enumerate(self):
            if i > 0 and self.dropout > 0:
                x = F.dropout(x, self.dropout, training=self.training, mode="upscale_in_train")
            if self.num_directions == 1:
                x, fin = rnn_layer(x, states[i], sequence_length)
                finals.append(fin)
            else:
                x, (fw, bw) = rnn_layer(x, (states[2 * i], states[2 * i + 1]), sequence_length)
                finals += [fw, bw]
        if self.state_components == 1:
            return x, ops.stack(finals, 0)
        return x, tuple(ops.stack([f[k] for f in finals], 0) for k in range(self.state_components))

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.direction != "forward":
            s += f", direction={self.direction}"
        if self.time_major:
            s += ", time_major=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN; forward(inputs, initial_states=None, sequence_length=None) returns
    (outputs [batch, time, num_directions * hidden], final_states [layers * directions, batch, hidden])."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, direction: str = "forward",
                 time_major: bool = False, dropout: float = 0.0, activation: str = "tanh",
                 weight_ih_attr: Any = None, weight_hh_attr: Any = None, bias_ih_attr: Any = None,
                 bias_hh_attr: Any = None, name: Optional[str] = None) -> None:
        super().__init__("SimpleRNN", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, activation=activation)


class LSTM(RNNBase):
    """Multi-layer LSTM; final_states is (h, c), each [layers * directions, batch, hidden]."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, direction: str = "forward",
                 time_major: bool = False, dropout: float = 0.0, weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None, bias_hh_attr: Any = None,
                 proj_size: int = 0, name: Optional[str] = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, proj_size=proj_size)


class GRU(RNNBase):
    """Multi-layer GRU; final_states [layers * directions, batch, hidden]."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, direction: str = "forward",
                 time_major: bool = False, dropout: float = 0.0, weight_ih_attr: Any = None,
                 weight_hh_attr: Any = None, bias_ih_attr: Any = None, bias_hh_attr: Any = None,
                 name: Optional[str] = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
