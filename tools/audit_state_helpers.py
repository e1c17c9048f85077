"""Module state for the audit round 5 cases in tools/audit_cases_state.py: globals, a class and
helpers that read them from another module than the converted function's."""
import dy2st as paddle

SCALE = 1.0
MODE = "tanh"
WEIGHTS = [1.0, 2.0]
TABLE = {"bias": 0.5}
ACT = paddle.tanh
CALLS = 0


class Config:
    gain = 2.0
    use_bias = True


def scaled(t):
    return t * SCALE


def activated(t):
    if MODE == "tanh":
        return paddle.tanh(t)
    return paddle.nn.functional.relu(t)


def weighted(t):
    out = t * 0.0
    for k, w in enumerate(WEIGHTS):
        out = out + t * w * float(k + 1)
    return out


def biased(t):
    return t + TABLE["bias"]


def configured(t):
    y = t * Config.gain
    if Config.use_bias:
        y = y + 1.0
    return y


def counted(t):
    global CALLS
    CALLS += 1
    return t * float(CALLS)


def through_act(t):
    return ACT(t) * 2.0
