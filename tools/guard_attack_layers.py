"""Guard attack cases for Layers whose attributes change between calls (training mode, a
dropout's p, sublayers swapped or added to a LayerList/LayerDict/Sequential, parameters and
buffers replaced or set in place, counters, caches, hooks) and for arguments changed between
calls (a list, dict, object or ndarray mutated in place, an equal new object, a scalar changing
type). Run by tools/guard_attack.py."""
from __future__ import annotations

from typing import List

from tools.guard_attack_cases import Case

LAYER_HEADER = '''
nn = paddle.nn
ARG_LIST = [1.0, 2.0]
ARG_DICT = {"k": 1.0, "act": "tanh"}
ARG_OBJ = Cfg(1.0)
ARG_ARR = np.array([1.0, 2.0, 3.0], "float32")
ARG_NESTED = [[1.0], [2.0, 3.0]]
ARG_S = 1
ARG_N = np.float32(1.0)
ARG_F = lambda h: h * SCALE     # noqa: E731 - a lambda argument
ARG_G = lambda h: h * CFG.k     # noqa: E731


def new_param(v):
    p = paddle.create_parameter([3], "float32")
    p.set_value(np.full([3], v, "float32"))
    return p
'''


def _layer(name: str, init: str, forward: str, changes: List[str], **kw: object) -> Case:
    """A case whose `run` is a Layer: `init` and `forward` are the bodies of its methods
    (forward's last line returns; `brk` breaks the graph before it)."""
    body = f'''
class Net(nn.Layer):
    def __init__(self):
        super().__init__()
{init}
    def forward(self, x, brk):
        if brk:
            gb(x)
{forward}

run = Net()
'''
    return Case(name, body, changes, **kw)


def _arg(name: str, params: str, expr: str, args: str, changes: List[str]) -> Case:
    """A case whose `run(x, brk, <params>)` returns x times `expr`; `args` gives the
    arguments after x and brk on each call."""
    body = f'''
def run(x, brk, {params}):
    if brk:
        gb(x)
    return x * ({expr})
'''
    return Case(name, body, changes, args=args)


LAYER_CASES: List[Case] = [
    # -- Layer attributes ---------------------------------------------------------------------
    _layer("layer_training_branch", "        self.k = 2.0\n",
           "        return x * (self.k if self.training else 3.0)\n",
           ["run.eval()", "run.train()", "run.eval()", "run.k = 5.0"]),
    _layer("sublayer_training_flag", "        self.sub = nn.Linear(3, 3)\n",
           "        return x * (2.0 if self.sub.training else 3.0)\n",
           ["run.sub.eval()", "run.sub.train()", "run.eval()", "run.sub.train()"]),
    _layer("dropout_p_read_in_forward", "        self.drop = nn.Dropout(p=0.0)\n",
           "        return x * (1.0 - self.drop.p)\n",
           ["run.drop.p = 0.5", "run.drop.p = 0.25", "run.drop = nn.Dropout(p=0.75)",
            "run.drop.p = 0.0"]),
    _layer("dropout_p_in_eval", "        self.drop = nn.Dropout(p=0.0, mode='downscale_in_infer')\n"
           "        self.eval()\n",
           "        return self.drop(x)\n",
           ["run.drop.p = 0.5", "run.drop.p = 0.25", "run.drop.mode = 'upscale_in_train'",
            "run.drop.p = 0.75"]),
    _layer("leaky_relu_slope_changed", "        self.act = nn.LeakyReLU(0.1)\n",
           "        return self.act(x)\n",
           ["run.act._negative_slope = 0.5", "run.act._negative_slope = 0.25",
            "run.act = nn.LeakyReLU(0.3)", "run.act._negative_slope = 0.0"]),
    _layer("sublayer_swapped", "        self.act = nn.Tanh()\n",
           "        return self.act(x) * 2.0\n",
           ["run.act = nn.ReLU()", "run.act = nn.Sigmoid()", "run.act = nn.Tanh()",
            "run.act = nn.Identity()"]),
    _layer("layerlist_appended", "        self.layers = nn.LayerList([nn.Tanh()])\n",
           "        for layer in self.layers:\n            x = layer(x) * 2.0\n        return x\n",
           ["run.layers.append(nn.ReLU())", "run.layers.append(nn.Sigmoid())",
            "run.layers[0] = nn.Identity()", "run.layers.insert(0, nn.ReLU())"]),
    _layer("layerdict_added", "        self.heads = nn.LayerDict({'a': nn.Tanh()})\n",
           "        return self.heads[NAME](x) * 2.0\n",
           ["run.heads['b'] = nn.ReLU()", "NAME = 'b'", "run.heads['b'] = nn.Sigmoid()",
            "NAME = 'a'"]),
    _layer("sequential_grown", "        self.seq = nn.Sequential(nn.Tanh())\n",
           "        return self.seq(x) * 2.0\n",
           ["run.seq.add_sublayer('1', nn.ReLU())", "run.seq.add_sublayer('2', nn.Sigmoid())",
            "run.seq = nn.Sequential(nn.Identity())", "run.seq.add_sublayer('x', nn.Tanh())"]),
    _layer("parameter_set_value", "        self.w = new_param(1.0)\n",
           "        return x * self.w\n",
           ["run.w.set_value(np.full([3], 2.0, 'float32'))",
            "run.w.set_value(np.arange(3).astype('float32'))", "run.w = new_param(4.0)",
            "run.w.set_value(np.full([3], -1.0, 'float32'))"]),
    _layer("parameter_replaced", "        self.w = new_param(1.0)\n",
           "        return x * self.w\n",
           ["run.w = new_param(2.0)", "run.w = new_param(3.0)",
            "run.add_parameter('w', new_param(-1.0))", "run.w = new_param(0.5)"]),
    _layer("buffer_replaced", "        self.register_buffer('scale', paddle.to_tensor(np.ones(3, 'float32')))\n",
           "        return x * self.scale\n",
           ["run.register_buffer('scale', paddle.to_tensor(np.full(3, 2.0, 'float32')))",
            "run.scale = paddle.to_tensor(np.full(3, 3.0, 'float32'))",
            "run.scale.set_value(np.full(3, 4.0, 'float32'))",
            "run.register_buffer('scale', paddle.to_tensor(np.full(3, -1.0, 'float32')))"]),
    _layer("buffer_none_then_tensor", "        self.register_buffer('bias', None)\n",
           "        return x if self.bias is None else x + self.bias\n",
           ["run.register_buffer('bias', paddle.to_tensor(np.ones(3, 'float32')))",
            "run.bias = None", "run.bias = paddle.to_tensor(np.full(3, 2.0, 'float32'))",
            "run.bias = None"]),
    _layer("layer_step_counter", "        self.step = 0\n",
           "        self.step += 1\n        return x * self.step\n", ["", "", "", ""],
           volatile=True),
    _layer("layer_step_set_outside", "        self.step = 0\n",
           "        return x * (self.step + 1)\n",
           ["run.step += 1", "run.step += 1", "run.step = 10", "run.step = 0"]),
    _layer("layer_cache_length", "        self.cache = {}\n",
           "        return x * (len(self.cache) + 1.0)\n",
           ["run.cache['a'] = 1", "run.cache['b'] = Cfg()", "run.cache.clear()",
            "run.cache.update(x=1, y=2, z=3)"]),
    _layer("layer_cache_filled_in_forward", "        self.cache = []\n",
           "        self.cache.append(1.0)\n        return x * len(self.cache)\n",
           ["", "", "run.cache.clear()", ""], volatile=True),
    _layer("layer_act_name_getattr", "        self.tanh = nn.Tanh()\n        self.relu = nn.ReLU()\n"
           "        self.act_name = 'tanh'\n",
           "        return getattr(self, self.act_name)(x) * 2.0\n",
           ["run.act_name = 'relu'", "run.act_name = 'tanh'", "run.tanh = nn.Sigmoid()",
            "run.act_name = 'relu'"]),
    _layer("layer_property_from_state", "        self.base = 2.0\n",
           "        return x * self.scale\n\n    @property\n    def scale(self):\n"
           "        return self.base if self.training else self.base * 0.5\n",
           ["run.eval()", "run.base = 4.0", "run.train()", "run.base = -1.0"]),
    _layer("layer_forward_pre_hook_added", "        self.k = 2.0\n",
           "        return x * self.k\n",
           ["H = run.register_forward_pre_hook(lambda layer, inp: (inp[0] * 3.0, inp[1]))",
            "H.remove()", "run.k = 4.0",
            "H = run.register_forward_post_hook(lambda layer, inp, out: out + 1.0)"]),
    _layer("sublayer_hook_added", "        self.act = nn.Tanh()\n",
           "        return self.act(x) * 2.0\n",
           ["H = run.act.register_forward_post_hook(lambda layer, inp, out: out + 1.0)",
            "H.remove()", "H = run.act.register_forward_pre_hook(lambda layer, inp: inp[0] * 3.0)",
            "H.remove()"]),
    _layer("dropout_sublayer_eval_only", "        self.drop = nn.Dropout(p=0.5)\n"
           "        self.drop.eval()\n",
           "        return self.drop(x) if not self.drop.training else x * 0.0\n",
           ["run.drop.p = 0.75", "run.drop.mode = 'downscale_in_infer'", "run.drop.p = 0.25",
            "run.drop.mode = 'upscale_in_train'"]),
    _layer("library_layer_in_sequential_changed", "        self.seq = nn.Sequential(nn.LeakyReLU(0.1), nn.Tanh())\n",
           "        return self.seq(x)\n",
           ["run.seq[0]._negative_slope = 0.5", "run.seq[1] = nn.Identity()",
            "run.seq[0]._negative_slope = 0.2", "run.seq.eval()"]),
    _layer("layer_class_registry_by_kind", "        self.kind = 'a'\n",
           "        return x * type(self).SCALES[self.kind]\n\n    SCALES = {'a': 1.0, 'b': 2.0}\n",
           ["run.kind = 'b'", "Net.SCALES['b'] = 3.0", "Net.SCALES = {'a': 4.0, 'b': 5.0}",
            "run.kind = 'a'"]),
    _layer("layer_config_object_attribute", "        self.cfg = types.SimpleNamespace(k=1.0, use_act=True)\n",
           "        h = paddle.tanh(x) if self.cfg.use_act else x\n        return h * self.cfg.k\n",
           ["run.cfg.k = 2.0", "run.cfg.use_act = False",
            "run.cfg = types.SimpleNamespace(k=3.0, use_act=True)", "run.cfg.k = -1.0"]),
    _layer("layer_weight_via_parameters_list", "        self.w = new_param(1.0)\n",
           "        return x * self.parameters()[0]\n",
           ["run.w.set_value(np.full([3], 2.0, 'float32'))", "run.w = new_param(3.0)",
            "run.w.set_value(np.full([3], -1.0, 'float32'))", "run.w = new_param(0.5)"]),
    # -- arguments ----------------------------------------------------------------------------
    _arg("list_argument_mutated", "lst", "sum(lst)", "(ARG_LIST,)",
         ["ARG_LIST.append(2.0)", "ARG_LIST[0] = 3.0", "ARG_LIST.pop()", "ARG_LIST = [0.5]"]),
    _arg("dict_argument_mutated", "cfg", "cfg['k'] if cfg['act'] == 'tanh' else 3.0",
         "(ARG_DICT,)", ["ARG_DICT['k'] = 2.0", "ARG_DICT['act'] = 'relu'",
                         "ARG_DICT['act'] = 'tanh'", "ARG_DICT = {'k': 4.0, 'act': 'tanh'}"]),
    _arg("object_argument_mutated", "c", "c.k * c.p", "(ARG_OBJ,)",
         ["ARG_OBJ.k = 2.0", "ARG_OBJ._p = 3.0", "ARG_OBJ = Cfg(4.0)", "ARG_OBJ.k = -1.0"]),
    _arg("equal_new_object_argument", "c", "c.k", "(ARG_OBJ,)",
         ["ARG_OBJ = Cfg(1.0)", "ARG_OBJ = Cfg(1.0); ARG_OBJ.k = 2.0", "ARG_OBJ.k = 3.0",
          "ARG_OBJ = Cfg(1.0)"]),
    _arg("ndarray_argument_in_place", "a", "float(a.sum())", "(ARG_ARR,)",
         ["ARG_ARR *= 2.0", "ARG_ARR[0] = -5.0", "ARG_ARR = np.ones(3, 'float32')",
          "ARG_ARR += 1.0"]),
    Case("ndarray_argument_as_tensor", '''
def run(x, brk, a):
    if brk:
        gb(x)
    return x + paddle.to_tensor(a)
''', ["ARG_ARR *= 2.0", "ARG_ARR[0] = -5.0", "ARG_ARR = np.ones(3, 'float32')",
      "ARG_ARR += 1.0"], args="(ARG_ARR,)"),
    _arg("nested_list_argument", "rows", "sum(sum(r) for r in rows)", "(ARG_NESTED,)",
         ["ARG_NESTED[0].append(5.0)", "ARG_NESTED[1][0] = -1.0", "ARG_NESTED.append([0.5])",
          "ARG_NESTED[2][0] = 4.0"]),
    _arg("scalar_argument_changes_type", "s",
         "3.0 if isinstance(s, bool) else 2.0 if isinstance(s, float) else s", "(ARG_S,)",
         ["ARG_S = 1.0", "ARG_S = True", "ARG_S = 1", "ARG_S = False"]),
    Case("scalar_argument_type_sets_dtype", '''
def run(x, brk, s):
    if brk:
        gb(x)
    return x + paddle.to_tensor(s).astype("float32") + paddle.to_tensor([s / 3]).astype("float32")
''', ["ARG_S = 1.0", "ARG_S = True", "ARG_S = 2", "ARG_S = 2.0"], args="(ARG_S,)"),
    _arg("numpy_scalar_argument", "n", "float(n * 3) / 7.0 + float(type(n)(0.1)) * 10",
         "(ARG_N,)", ["ARG_N = np.float64(1.0)", "ARG_N = np.float32(2.0)",
                      "ARG_N = np.float16(2.0)", "ARG_N = np.float32(1.0)"]),
    _arg("tuple_of_objects_argument", "pair", "pair[0].k * pair[1].k", "((CFG, CFGS[1]),)",
         ["CFG.k = 2.0", "CFGS[1].k = 3.0", "CFGS.reverse()", "CFG.k = -1.0"]),
    Case("star_args_object_argument", '''
def run(x, brk, *objs):
    if brk:
        gb(x)
    return x * objs[0].k * objs[-1].k
''', ["CFG.k = 2.0", "CFGS[1].k = 3.0", "CFG.k = 1.0", "CFGS[1].k = -1.0"],
         args="(CFG, CFGS[1])"),
    _arg("bound_method_argument", "f", "f(2.0)", "(CFG.scaled,)",
         ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]),
    _arg("lambda_argument_over_global", "f", "f(2.0)", "(ARG_F,)",
         ["SCALE = 3.0", "SCALE = 4.0", "SCALE = 1.0", "SCALE = -1.0"]),
    _arg("lambda_argument_over_object", "f", "f(2.0)", "(ARG_G,)",
         ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]),
]
