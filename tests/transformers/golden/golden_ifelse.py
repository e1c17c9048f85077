def golden_ifelse(x):
    y = _jst.UndefinedVar('y')

    def true_fn_1():
        nonlocal y
        y = x * 2

    def false_fn_1():
        nonlocal y

        def true_fn_0():
            nonlocal y
            y = x - 1

        def false_fn_0():
            nonlocal y
            y = -x

        def get_args_0():
            return (y,)

        def set_args_0(__args):
            nonlocal y
            y, = __args
        _jst.IfElse(_jst.Call(x.mean)() > -1, true_fn_0, false_fn_0, get_args_0, set_args_0, ('y',), (0,))

    def get_args_1():
        return (y,)

    def set_args_1(__args):
        nonlocal y
        y, = __args
    _jst.IfElse(_jst.Call(x.mean)() > 0, true_fn_1, false_fn_1, get_args_1, set_args_1, ('y',), (0,))
    return y
