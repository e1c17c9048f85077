"""A BERT-like encoder (three embeddings, self-attention from matmul/softmax, a pooler through
paddle.slice, masked-token gather with an [N, 1] index) and a SimNet-like BOW matcher with
a hinge loss built from fill_constant, written as Paddle model code is."""
import numpy as np

import dy2st as paddle
import dy2st.nn.functional as F
from tests.support import check_model

HIDDEN, HEADS, VOCAB, SEQ = 8, 2, 17, 5


class SelfAttention(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.qkv = paddle.nn.Linear(HIDDEN, 3 * HIDDEN, bias_attr=False)
        self.proj = paddle.nn.Linear(HIDDEN, HIDDEN)
        self.norm = paddle.nn.LayerNorm(HIDDEN)

    def forward(self, x, bias):
        q, k, v = paddle.split(self.qkv(x), num_or_sections=3, axis=-1)
        heads = [paddle.transpose(paddle.reshape(t, [0, 0, HEADS, HIDDEN // HEADS]), [0, 2, 1, 3])
                 for t in (q, k, v)]
        scores = paddle.matmul(heads[0], heads[1], transpose_y=True)
        scores = paddle.scale(scores, scale=(HIDDEN // HEADS) ** -0.5) + bias
        ctx = paddle.matmul(F.softmax(scores), heads[2])
        ctx = paddle.reshape(paddle.transpose(ctx, [0, 2, 1, 3]), [0, 0, HIDDEN])
        return self.norm(x + self.proj(ctx))


class TinyBert(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        init = paddle.ParamAttr(initializer=paddle.nn.initializer.TruncatedNormal(std=0.5))
        self.words = paddle.nn.Embedding(VOCAB, HIDDEN, weight_attr=init)
        self.positions = paddle.nn.Embedding(SEQ, HIDDEN)
        self.segments = paddle.nn.Embedding(2, HIDDEN)
        self.layers = paddle.nn.LayerList([SelfAttention() for _ in range(2)])
        self.pooler = paddle.nn.Linear(HIDDEN, HIDDEN)
        self.lm_head = paddle.nn.Linear(HIDDEN, VOCAB)

    def forward(self, ids, segments, mask, masked_pos):
        pos = paddle.expand(paddle.unsqueeze(paddle.arange(SEQ, dtype="int64"), 0), [ids.shape[0], SEQ])
        x = self.words(ids) + self.positions(pos) + self.segments(segments)
        bias = paddle.scale(paddle.matmul(mask, mask, transpose_y=True), scale=1e4, bias=-1.0,
                            bias_after_scale=False)
        bias = paddle.stack([bias] * HEADS, axis=1)
        for layer in self.layers:
            x = layer(x, bias)
        first = paddle.slice(input=x, axes=[1], starts=[0], ends=[1])
        pooled = paddle.tanh(paddle.reshape(self.pooler(first), [-1, HIDDEN]))
        picked = paddle.gather(paddle.reshape(x, [-1, HIDDEN]), index=masked_pos)
        return pooled, self.lm_head(picked)


def bert_data(batch):
    rng = np.random.default_rng(batch)
    mask = np.ones((batch, SEQ, 1), "float32")
    mask[0, -2:] = 0.0
    return [rng.integers(0, VOCAB, (batch, SEQ)), rng.integers(0, 2, (batch, SEQ)), mask,
            np.array([[1], [SEQ + 2]], "int64")]


def test_bert_encoder_with_pooler(tmp_path):
    target = paddle.to_tensor(np.array([[3], [9]], "int64"))
    check_model(TinyBert, bert_data,
                [([None, SEQ], "int64"), ([None, SEQ], "int64"), ([None, SEQ, 1], "float32"),
                 ([None, 1], "int64")], tmp_path,
                loss_of=lambda o: paddle.mean(F.cross_entropy(o[1], target)) + paddle.mean(o[0] ** 2),
                optimizer=lambda ps: paddle.optimizer.Adam(0.01, parameters=ps))


class BowMatcher(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.embed = paddle.nn.Embedding(VOCAB, HIDDEN, padding_idx=0, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.XavierUniform()))
        self.fc = paddle.nn.Linear(HIDDEN, HIDDEN)

    def encode(self, words):
        return self.fc(F.softsign(paddle.sum(self.embed(words), axis=1)))

    def forward(self, left, right):
        return F.cosine_similarity(self.encode(left), self.encode(right))


def hinge(pos, neg, margin=0.1):
    shape = [paddle.shape(neg)[0], 1]
    zeros = paddle.tensor.fill_constant(shape, "float32", 0.0)
    margins = paddle.tensor.fill_constant(shape, "float32", margin)
    gap = paddle.add(paddle.subtract(paddle.reshape(neg, [-1, 1]), paddle.reshape(pos, [-1, 1])), margins)
    return paddle.mean(paddle.maximum(zeros, gap))


class PairwiseBow(BowMatcher):
    def forward(self, left, pos, neg):
        return super().forward(left, pos), super().forward(left, neg)


def bow_data(batch):
    rng = np.random.default_rng(batch + 5)
    return [rng.integers(0, VOCAB, (batch, 4)) for _ in range(3)]


def test_simnet_bow_with_hinge_loss(tmp_path):
    check_model(PairwiseBow, bow_data, [([None, 4], "int64")] * 3, tmp_path,
                loss_of=lambda o: hinge(*o))
    # a padding_idx row never changes
    paddle.seed(1)
    net = BowMatcher()
    opt = paddle.optimizer.SGD(0.5, parameters=net.parameters())
    step = paddle.jit.to_static(lambda a, b: -paddle.mean(net(a, b)))
    row0 = net.embed.weight.numpy()[0].copy()
    left, right = bow_data(2)[:2]
    left[:, 0] = 0
    loss = step(paddle.to_tensor(left), paddle.to_tensor(right))
    loss.backward()
    opt.step()
    np.testing.assert_array_equal(net.embed.weight.numpy()[0], row0)
