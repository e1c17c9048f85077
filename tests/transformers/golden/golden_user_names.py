def golden_user_names(x, true_fn_0, break_0):

    def true_fn_1():
        nonlocal x
        x = x + break_0

    def false_fn_0():
        nonlocal x
        pass

    def get_args_0():
        return (x,)

    def set_args_0(__args):
        nonlocal x
        x, = __args
    _jst.IfElse(_jst.And(lambda: _jst.Call(x.sum)() > 0, lambda: true_fn_0, test=True), true_fn_1, false_fn_0, get_args_0, set_args_0, ('x',), (0,))
    _jst.Print(x)
    _jst.Assert(_jst.Call(x.sum)() != 1.5)
    return _jst.Int(_jst.Call(x.sum)())
