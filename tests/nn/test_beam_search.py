"""BeamSearchDecoder + dynamic_decode against a beam search written in numpy, eagerly, under
to_static (one `while` op over an unknown number of steps) and after jit.save/jit.load."""
import numpy as np
import pytest

import dy2st as paddle
from dy2st import nn
from dy2st.static import InputSpec
from tests.support import randn

VOCAB, HIDDEN, BEAM, START, END = 6, 5, 3, 0, 1


class TanhCell(nn.Layer):
    """h' = tanh(x W + h U); the output is h'."""

    def __init__(self):
        super().__init__()
        self.w = nn.Linear(HIDDEN, HIDDEN)
        self.u = nn.Linear(HIDDEN, HIDDEN, bias_attr=False)

    def forward(self, inputs, states):
        h = paddle.tanh(self.w(inputs) + self.u(states))
        return h, h


class Decoder(nn.Layer):
    def __init__(self, max_step_num=7):
        super().__init__()
        self.cell = TanhCell()
        self.emb = nn.Embedding(VOCAB, HIDDEN)
        self.out = nn.Linear(HIDDEN, VOCAB)
        self.max_step_num = max_step_num

    def forward(self, h):
        dec = nn.BeamSearchDecoder(self.cell, START, END, BEAM, embedding_fn=self.emb, output_fn=self.out)
        ids, states, lengths = nn.dynamic_decode(dec, inits=h, max_step_num=self.max_step_num, return_length=True)
        return ids, states.log_probs, lengths


def np_beam_search(model, h, max_step_num):
    """Straightforward numpy beam search with the model's weights: (ids [B, T, beam],
    final log probs [B, beam], lengths [B, beam])."""
    W, bw = model.cell.w.weight.numpy(), model.cell.w.bias.numpy()
    U = model.cell.u.weight.numpy()
    E = model.emb.weight.numpy()
    O, bo = model.out.weight.numpy(), model.out.bias.numpy()
    b = h.shape[0]
    state = np.repeat(h[:, None], BEAM, 1)
    log_probs = np.tile([[0.0] + [-1e9] * (BEAM - 1)], [b, 1])
    finished = np.zeros((b, BEAM), bool)
    lengths = np.zeros((b, BEAM), "int64")
    tokens = np.full((b, BEAM), START)
    steps_ids, steps_parents = [], []
    step = 0
    while True:
        state = np.tanh(E[tokens] @ W + bw + state @ U)
        logits = state @ O + bo
        step_lp = logits - np.log(np.exp(logits - logits.max(-1, keepdims=True)).sum(-1, keepdims=True)) \
            - logits.max(-1, keepdims=True)
        noend = np.full(VOCAB, -1e9)
        noend[END] = 0.0
        step_lp = np.where(finished[..., None], noend, step_lp)
        total = (step_lp + log_probs[..., None]).reshape(b, -1)
        top = np.argsort(-total, axis=1, kind="stable")[:, :BEAM]
        parent, token = top // VOCAB, top % VOCAB
        rows = np.arange(b)[:, None]
        log_probs = total[rows, top]
        state = state[rows, parent]
        lengths = lengths[rows, parent] + ~finished[rows, parent]
        finished = finished[rows, parent] | (token == END)
        tokens = token
        steps_ids.append(token)
        steps_parents.append(parent)
        step += 1
        if finished.all() or step > max_step_num:
            break
    # walk the parents back from the last step
    t_max = len(steps_ids)
    out = np.zeros((t_max, b, BEAM), "int64")
    beam = np.tile(np.arange(BEAM), [b, 1])
    for t in range(t_max - 1, -1, -1):
        out[t] = np.take_along_axis(steps_ids[t], beam, 1)
        beam = np.take_along_axis(steps_parents[t], beam, 1)
    return out.transpose(1, 0, 2), log_probs, lengths


def make_model(end_bias):
    paddle.seed(11)
    model = Decoder()
    bias = model.out.bias.numpy()
    bias[END] = end_bias                   # how soon beams end: controls the number of steps
    model.out.bias.set_value(bias)
    return model


@pytest.mark.parametrize("end_bias", [-3.0, 1.5, 4.0])
def test_eager_beam_search_matches_numpy(end_bias):
    model = make_model(end_bias)
    h = randn(1, 4, HIDDEN, scale=2.0)
    ids, log_probs, lengths = model(paddle.to_tensor(h))
    want_ids, want_lp, want_len = np_beam_search(model, h, 7)
    np.testing.assert_array_equal(ids.numpy(), want_ids)
    np.testing.assert_allclose(log_probs.numpy(), want_lp, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(lengths.numpy(), want_len)


def test_static_and_saved_decoder_run_a_data_dependent_number_of_steps(tmp_path):
    model = make_model(2.0)
    static = paddle.jit.to_static(model, full_graph=True)
    paddle.jit.save(static, str(tmp_path / "decoder"), input_spec=[InputSpec([None, HIDDEN], "float32")])
    loaded = paddle.jit.load(str(tmp_path / "decoder"))
    step_counts = set()
    for seed, batch in [(2, 1), (3, 4), (4, 2), (5, 3)]:
        h = randn(seed, batch, HIDDEN, scale=3.0)
        want_ids, want_lp, want_len = np_beam_search(model, h, 7)
        step_counts.add(want_ids.shape[1])
        for run in (model, static, loaded):
            ids, lp, lengths = run(paddle.to_tensor(h))
            np.testing.assert_array_equal(ids.numpy(), want_ids)
            np.testing.assert_allclose(lp.numpy(), want_lp, rtol=1e-4, atol=1e-4)
            np.testing.assert_array_equal(lengths.numpy(), want_len)
    assert len(step_counts) > 1, step_counts       # the inputs really took different trip counts
    # one `while` op in the saved program: the steps are not unrolled
    assert '"while"' in (tmp_path / "decoder.json").read_text()


def test_tile_beam_merge_with_batch():
    x = np.arange(6, dtype="float32").reshape(2, 3)
    got = nn.BeamSearchDecoder.tile_beam_merge_with_batch(paddle.to_tensor(x), 2).numpy()
    np.testing.assert_array_equal(got, np.repeat(x, 2, axis=0))


def test_output_time_major_and_max_step_num():
    model = make_model(-5.0)                 # the end token is never likely: runs to max_step_num
    dec = nn.BeamSearchDecoder(model.cell, START, END, BEAM, embedding_fn=model.emb, output_fn=model.out)
    h = paddle.to_tensor(randn(6, 2, HIDDEN))
    ids, _ = nn.dynamic_decode(dec, inits=h, max_step_num=3, output_time_major=True)
    assert ids.shape == [4, 2, BEAM]
