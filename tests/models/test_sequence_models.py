"""Recurrent model families at tiny sizes: a PTB-style LSTM language model whose step loop runs
over an unknown sequence length (one `while` op), a BiGRU sentiment classifier, and a seq2seq
model with attention whose beam-search decoder loops on a tensor bound, stops early when every
beam has finished and backtracks with F.gather_tree."""
import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from tests.support import check_model

VOCAB, HID = 11, 6


class LstmLanguageModel(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        scale = paddle.nn.initializer.Uniform(low=-0.3, high=0.3)
        self.embed = paddle.nn.Embedding(VOCAB, HID, weight_attr=paddle.ParamAttr(initializer=scale))
        self.gates = self.create_parameter([2 * HID, 4 * HID], default_initializer=scale)
        self.gate_bias = self.create_parameter([4 * HID], is_bias=True)
        self.proj = paddle.nn.Linear(HID, VOCAB)

    def forward(self, words, h, c):
        x = self.embed(words)
        outputs = []
        for t in range(words.shape[1]):
            step = paddle.add(paddle.matmul(paddle.concat([x[:, t, :], h], 1), self.gates), self.gate_bias)
            i, j, f, o = paddle.split(step, num_or_sections=4, axis=-1)
            c = c * F.sigmoid(f) + F.sigmoid(i) * paddle.tanh(j)
            h = paddle.tanh(c) * F.sigmoid(o)
            outputs.append(h)
        hidden = paddle.transpose(paddle.stack(outputs), [1, 0, 2])
        return self.proj(hidden), h, c


def lm_data(batch, steps=4):
    rng = np.random.default_rng(batch)
    return [rng.integers(0, VOCAB, (batch, steps)), np.zeros((batch, HID), "float32"),
            rng.standard_normal((batch, HID)).astype("float32") * 0.1]


def test_ptb_lstm_language_model(tmp_path):
    targets = paddle.to_tensor(np.random.default_rng(0).integers(0, VOCAB, (2, 4, 1)))
    check_model(LstmLanguageModel, lm_data,
                [([None, None], "int64"), ([None, HID], "float32"), ([None, HID], "float32")],
                tmp_path, loss_of=lambda o: paddle.sum(paddle.mean(
                    F.softmax_with_cross_entropy(logits=o[0], label=targets), axis=[0])))
    # the saved loop runs as many steps as the input has, like the eager one
    paddle.seed(11)
    model = LstmLanguageModel()
    model.eval()
    path = str(tmp_path / "lm")
    paddle.jit.save(model, path, input_spec=[paddle.static.InputSpec([None, None], "int64"),
                                             paddle.static.InputSpec([None, HID], "float32"),
                                             paddle.static.InputSpec([None, HID], "float32")])
    loaded = paddle.jit.load(path)
    for steps in (1, 7):
        args = [paddle.to_tensor(a) for a in lm_data(2, steps)]
        for got, want in zip(loaded(*args), model(*args)):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


class BiGruSentiment(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.embed = paddle.nn.Embedding(VOCAB + 1, HID, padding_idx=VOCAB)
        self.gru = paddle.nn.GRU(HID, HID, direction="bidirect")
        self.fc = paddle.nn.Linear(2 * HID, 2)

    def forward(self, words, lengths):
        encoded, _ = self.gru(self.embed(words), sequence_length=lengths)
        return F.softmax(self.fc(paddle.max(paddle.tanh(encoded), axis=1)))


def sentiment_data(batch):
    rng = np.random.default_rng(batch + 2)
    lengths = np.array([5, 3, 4][:batch], "int64")
    words = rng.integers(0, VOCAB, (batch, 5))
    for row, n in enumerate(lengths):
        words[row, n:] = VOCAB
    return [words, lengths]


def test_sentiment_bigru(tmp_path):
    labels = paddle.to_tensor(np.array([[1], [0]], "int64"))
    check_model(BiGruSentiment, sentiment_data, [([None, 5], "int64"), ([None], "int64")], tmp_path,
                loss_of=lambda p: paddle.mean(F.cross_entropy(p, labels, use_softmax=False)),
                optimizer=lambda ps: paddle.optimizer.Adagrad(0.1, parameters=ps))


BOS, EOS, BEAM = 0, 1, 3


class AttentionSeq2Seq(paddle.nn.Layer):
    def __init__(self, max_steps=5):
        super().__init__()
        self.max_steps = max_steps
        self.src_embed = paddle.nn.Embedding(VOCAB, HID)
        self.trg_embed = paddle.nn.Embedding(VOCAB, HID)
        self.encoder = paddle.nn.LSTMCell(HID, HID)
        self.decoder = paddle.nn.LSTMCell(HID, HID)
        self.attn = paddle.nn.Linear(HID, HID, bias_attr=False)
        self.out = paddle.nn.Linear(2 * HID, VOCAB)

    def encode(self, src):
        x = self.src_embed(src)
        h = paddle.zeros_like(x[:, 0, :])
        c = paddle.zeros_like(h)
        states = []
        for t in range(src.shape[1]):
            h, (h, c) = self.encoder(x[:, t, :], (h, c))
            states.append(h)
        return paddle.stack(states, axis=1), h, c

    def attend(self, query, memory):
        # query [B, Q, H], memory [B, S, H] -> context [B, Q, H]
        weights = F.softmax(paddle.matmul(query, self.attn(memory), transpose_y=True))
        return paddle.matmul(weights, memory)

    def step(self, words, h, c, memory):
        h, (h, c) = self.decoder(self.trg_embed(words), (h, c))
        query = paddle.unsqueeze(h, [1])
        ctx = paddle.squeeze(self.attend(query, memory), [1])
        return self.out(paddle.concat([h, ctx], axis=-1)), h, c

    def forward(self, src, trg):
        memory, h, c = self.encode(src)
        logits = []
        for t in range(trg.shape[1]):
            logit, h, c = self.step(trg[:, t], h, c, memory)
            logits.append(logit)
        logits = paddle.stack(logits, axis=1)
        if self.training:
            return logits
        return logits, self.beam_search(memory, h, c)

    def beam_search(self, memory, h, c):
        def tile(x):        # [B, ...] -> [B * BEAM, ...]
            x = paddle.unsqueeze(x, [1])
            x = paddle.expand(x, [-1, BEAM] + [-1] * (len(x.shape) - 2))
            return paddle.reshape(x, [-1] + list(x.shape[2:]))

        zero_row = paddle.sum(h, axis=1) * 0.0                          # [B]
        batch_pos = paddle.cast(paddle.cumsum(zero_row + 1.0) - 1.0, "int64")
        batch_pos = paddle.expand(paddle.unsqueeze(batch_pos, [1]), [-1, BEAM])
        first = paddle.to_tensor([0.0] + [-1e9] * (BEAM - 1))
        scores = paddle.unsqueeze(zero_row, [1]) + first                  # [B, BEAM]
        finished = paddle.cast(scores * 0.0, "bool")
        words = paddle.cast(scores * 0.0, "int64") + BOS
        vocab = paddle.tensor.fill_constant([1], "int64", VOCAB)
        only_eos = paddle.to_tensor(np.where(np.arange(VOCAB) == EOS, 0.0, -1e9).astype("float32"))
        memory, h, c = tile(memory), tile(h), tile(c)
        token_ids, parent_ids = [], []
        for _ in range(paddle.to_tensor(self.max_steps)):
            logit, h, c = self.step(paddle.reshape(words, [-1]), h, c, memory)
            log_probs = paddle.reshape(F.log_softmax(logit), [-1, BEAM, VOCAB])
            done = paddle.expand(paddle.unsqueeze(finished, [2]), [-1, -1, VOCAB])
            log_probs = paddle.where(done, paddle.zeros_like(log_probs) + only_eos, log_probs)
            total = paddle.reshape(paddle.unsqueeze(scores, [2]) + log_probs, [-1, BEAM * VOCAB])
            scores, flat = paddle.topk(total, k=BEAM)
            parents = paddle.floor_divide(flat, vocab)
            words = paddle.remainder(flat, vocab)
            where = paddle.stack([batch_pos, parents], axis=2)
            h = paddle.reshape(paddle.gather_nd(paddle.reshape(h, [-1, BEAM, HID]), where), [-1, HID])
            c = paddle.reshape(paddle.gather_nd(paddle.reshape(c, [-1, BEAM, HID]), where), [-1, HID])
            finished = paddle.logical_or(paddle.gather_nd(finished, where), words == EOS)
            token_ids.append(words)
            parent_ids.append(parents)
            if paddle.all(finished):
                break
        return F.gather_tree(paddle.stack(token_ids), paddle.stack(parent_ids))


def seq2seq_data(batch):
    rng = np.random.default_rng(batch + 9)
    return [rng.integers(2, VOCAB, (batch, 4)), rng.integers(0, VOCAB, (batch, 3))]


def test_seq2seq_attention_with_beam_search(tmp_path):
    labels = paddle.to_tensor(np.random.default_rng(3).integers(0, VOCAB, (2, 3, 1)))
    check_model(AttentionSeq2Seq, seq2seq_data, [([None, 4], "int64"), ([None, 3], "int64")], tmp_path,
                loss_of=lambda logits: paddle.mean(F.cross_entropy(logits, labels)),
                optimizer=lambda ps: paddle.optimizer.Adam(0.05, parameters=ps))


def test_beam_search_stops_early_like_eager():
    paddle.seed(4)
    model = AttentionSeq2Seq(max_steps=6)
    model.eval()
    # make EOS overwhelmingly likely: the best beam ends at step 1, the other two (forced to
    # other words by topk) at step 2, so the loop stops after 2 of its 6 steps
    bias = model.out.bias.numpy()
    bias[EOS] = 50.0
    model.out.bias.set_value(bias)
    args = [paddle.to_tensor(a) for a in seq2seq_data(2)]
    eager_ids = model(*args)[1].numpy()
    static_ids = paddle.jit.to_static(model)(*args)[1].numpy()
    assert eager_ids.shape[0] == 2
    np.testing.assert_array_equal(static_ids, eager_ids)
