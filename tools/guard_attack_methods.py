"""Guard attack cases for builtin bound methods (`acc.append`, `d.get`, `s.union`, `name.upper`
read off attributes, globals, items and locals) and for reads the path scan cannot follow: an
attribute read off a builtin's result, locals of loop bodies assigned without a call after,
objects read back through a container the function fills. Run by tools/guard_attack.py."""
from __future__ import annotations

from typing import List

from tools.guard_attack_cases import Case

METHOD_HEADER = '''

VALS = {"a": 1.0, "b": 2.0}
NUMS = [1.0, 2.0]
TAGS = {"a"}
LISTS = [[1.0], [2.0, 2.0]]
WORD = "ab"


class Table(dict):
    pass


TAB = Table(a=1.0, b=3.0)
'''

METHOD_CASES: List[Case] = [
    # -- builtin bound methods -----------------------------------------------------------------
    Case("builtin_method_local_list", '''
def run(x, brk):
    acc = [CFG.k]
    acc.append(SCALE)
    if brk:
        gb(x)
    return x * sum(acc)
''', ["CFG.k = 2.0", "SCALE = 3.0", "CFG.k = 2.0", "SCALE = -1.0"]),
    Case("builtin_method_global_dict_get", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * VALS.get(NAME, 0.5)
''', ["VALS['a'] = 3.0", "NAME = 'b'", "VALS = {'b': 4.0}", "VALS = {'b': 4.0}"]),
    Case("builtin_method_attribute_dict_get", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.table = {"a": 1.0}

    def forward(self, x, brk):
        if brk:
            gb(x)
        return x * self.table.get(NAME, 0.25)


run = Net()
''', ["run.table['a'] = 2.0", "run.table = {'a': 5.0}", "NAME = 'b'", "run.table = {'b': 3.0}"]),
    Case("builtin_method_global_set", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * len(TAGS.union({NAME}))
''', ["TAGS.add('c')", "NAME = 'b'", "TAGS = {'b'}", "TAGS.discard('b')"]),
    Case("builtin_method_global_str", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * (2.0 if WORD.startswith(NAME) else 3.0)
''', ["WORD = 'ba'", "NAME = 'b'", "WORD = 'ab'", "WORD = 'b'"]),
    Case("builtin_method_item_of_list", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * LISTS[IDX].count(2.0)
''', ["IDX = 1", "LISTS[1].append(2.0)", "LISTS[1] = [2.0]", "LISTS.reverse()"]),
    Case("builtin_method_of_dict_subclass_patched", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * TAB.get(NAME, 0.5)
''', ["TAB['a'] = 2.0", "Table.get = lambda self, k, d=None: 7.0", "del Table.get",
      "NAME = 'b'"]),
    Case("method_monkey_patched_on_class", '''
def twice(self, h):
    return h * (self.k * 2.0)


def run(x, brk):
    if brk:
        gb(x)
    return CFG.scaled(x)
''', ["CFG.k = 2.0", "Cfg.scaled = twice", "CFG.k = 3.0", "Cfg.scaled = lambda self, h: h - self.k"]),
    Case("builtin_method_kept_as_attribute", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lookup = VALS.get

    def forward(self, x, brk):
        if brk:
            gb(x)
        return x * self.lookup("a", 0.5)


run = Net()
''', ["VALS['a'] = 3.0", "run.lookup = {'a': 4.0}.get", "run.lookup = VALS.get",
      "VALS.pop('a')"]),
    Case("builtin_method_of_local_from_attribute", '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.nums = [1.0, 2.0]

    def forward(self, x, brk):
        nums = self.nums
        if brk:
            gb(x)
        return x * nums.index(2.0)


run = Net()
''', ["run.nums.insert(0, 5.0)", "run.nums = [2.0]", "run.nums.insert(0, 2.0)",
      "run.nums = [3.0, 1.0, 2.0]"]),
    # -- a path read off a builtin's result ----------------------------------------------------
    Case("attribute_of_max_with_key", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * max(CFGS, key=lambda c: c.k).idx
''', ["CFGS[0].idx = 5", "CFGS[0].k = 9.0", "CFGS[2].idx = 4", "CFGS[2].k = 10.0"]),
    Case("attribute_of_min_with_key_function", '''
def key_k(c):
    return c.k


def run(x, brk):
    if brk:
        gb(x)
    return x * min(CFGS, key=key_k).k
''', ["CFGS[0].k = 5.0", "CFGS[1].k = -2.0", "CFGS[1].k = 3.0", "CFGS.append(Cfg(-4.0))"]),
    Case("attribute_of_sorted_item", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * sorted(TABLE.values(), key=lambda c: c.k)[0].k
''', ["TABLE['b'].k = 2.0", "TABLE['a'].k = 0.5", "TABLE['c'] = Cfg(-3.0)", "TABLE['c'].k = 9.0"]),
    Case("attribute_of_next_iter", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * next(iter(TABLE.values())).k
''', ["TABLE['a'].k = 2.0", "TABLE.pop('a')", "TABLE['b'].k = 3.0", "TABLE['a'] = Cfg(5.0)"]),
    Case("attribute_of_dict_get_result", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * TABLE.get(NAME).k
''', ["TABLE['a'].k = 2.0", "NAME = 'b'", "TABLE['b'] = Cfg(3.0)", "TABLE['b'].k = 4.0"]),
    Case("attribute_of_list_copy_item", '''
def run(x, brk):
    if brk:
        gb(x)
    return x * list(CFGS)[0].k + dict(TABLE)["a"].k
''', ["CFGS[0].k = 2.0", "TABLE['a'].k = 3.0", "CFGS.reverse()", "TABLE['a'] = Cfg(4.0)"]),
    Case("local_from_max", '''
def run(x, brk):
    c = max(CFGS, key=lambda c: c.k)
    if brk:
        gb(x)
    return x * c.idx
''', ["CFGS[2].idx = 2", "CFGS[0].k = 9.0", "CFGS[0].idx = 3", "CFGS[0].k = 0.0"]),
    # -- locals a loop body assigns and no call follows ----------------------------------------
    Case("local_from_display_in_loop", '''
def run(x, brk):
    for i in range(2):
        c = [CFGS[0], CFGS[1]][i]
        x = x * c.k
    if brk:
        gb(x)
    return x
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 3.0", "CFGS[0].k = -1.0", "CFGS[1].k = 0.5"]),
    Case("local_from_display_in_tensor_loop", '''
def run(x, brk):
    i = paddle.to_tensor(0)
    while i < 2:
        c = (CFGS[0], CFGS[1])[IDX]
        x = x * c.k
        i = i + 1
    if brk:
        gb(x)
    return x
''', ["CFGS[0].k = 2.0", "IDX = 1", "CFGS[1].k = 3.0", "IDX = 0"]),
    Case("local_from_display_in_helper_loop", '''
def helper(h):
    for i in range(2):
        c = [CFGS[0], CFGS[1]][i]
        h = h * c.k
    return h


def run(x, brk):
    if brk:
        gb(x)
    return helper(x)
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 3.0", "CFGS[0].k = 1.0", "CFGS[1].k = 5.0"]),
    Case("loop_local_rebound_after_the_loop", '''
def run(x, brk):
    for i in range(2):
        c = (CFGS[0], CFGS[1])[i]
        x = x * c.k
    if brk:
        gb(x)
    c = CFG
    return x + c.k
''', ["CFGS[0].k = 2.0", "CFGS[1].k = 3.0", "CFGS[0].k = -1.0", "CFG.k = 0.5"]),
    # -- objects read back through a container the function fills ----------------------------
    Case("object_through_local_list", '''
def run(x, brk):
    acc = []
    acc.append(CFG)
    acc.append(CFGS[1])
    if brk:
        gb(x)
    return x * acc[0].k + acc[1].k
''', ["CFG.k = 2.0", "CFGS[1].k = 3.0", "CFG.k = -1.0", "CFGS[1].k = 0.5"]),
    Case("object_through_local_dict", '''
def run(x, brk):
    seen = {}
    for c in CFGS:
        seen[c.name] = c
    if brk:
        gb(x)
    return x * seen["a"].k
''', ["CFGS[2].k = 2.0", "CFGS[0].name = 'b'", "CFGS[2].k = 4.0", "CFGS[1].k = -1.0"]),
    # -- an object a closure holds ----------------------------------------------------------
    Case("closure_object_from_call", '''
def make():
    box = pick(CFG)

    def inner(x, brk):
        c = box
        if brk:
            gb(x)
        return x * c.k
    return inner


run = make()
''', ["CFG.k = 2.0", "CFG.k = 3.0", "CFG.k = 1.0", "CFG.k = -1.0"]),
]
