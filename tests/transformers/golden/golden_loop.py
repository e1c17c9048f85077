def golden_loop(x, n):
    s = x * 0
    i = _jst.Call(paddle.zeros)([], 'int64')

    def while_cond_0():
        return i < n

    def while_body_0():
        nonlocal i, s
        t = x * 2
        s = s + t
        i = i + 1

    def get_args_0():
        return (i, s)

    def set_args_0(__args):
        nonlocal i, s
        i, s = __args
    _jst.While(while_cond_0, while_body_0, get_args_0, set_args_0, ('i', 's'))

    def for_body_0(__item):
        nonlocal s
        k = __item
        s = s + 1

    def get_args_1():
        return (s,)

    def set_args_1(__args):
        nonlocal s
        s, = __args
    _jst.For(_jst.Range(n), for_body_0, get_args_1, set_args_1, ('s',), None)
    return s
