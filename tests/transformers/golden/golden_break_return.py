def golden_break_return(x, n):
    return_flag_0 = False
    return_value_0 = _jst.UndefinedVar('return_value_0')
    break_0 = False

    def for_body_0(__item):
        nonlocal break_0, x
        k = __item

        def true_fn_0():
            nonlocal break_0
            break_0 = True

        def false_fn_0():
            nonlocal break_0
            pass

        def get_args_1():
            return (break_0,)

        def set_args_1(__args):
            nonlocal break_0
            break_0, = __args
        _jst.IfElse(_jst.Call(x.sum)() > 10, true_fn_0, false_fn_0, get_args_1, set_args_1, ('break_0',), (0,))

        def true_fn_1():
            nonlocal x
            x = x + 1

        def false_fn_1():
            nonlocal x
            pass

        def get_args_2():
            return (x,)

        def set_args_2(__args):
            nonlocal x
            x, = __args
        _jst.IfElse(_jst.Not(break_0), true_fn_1, false_fn_1, get_args_2, set_args_2, ('x',), (0,))

    def get_args_0():
        return (break_0, x)

    def set_args_0(__args):
        nonlocal break_0, x
        break_0, x = __args
    _jst.For(_jst.Range(n), for_body_0, get_args_0, set_args_0, ('break_0', 'x'), lambda: _jst.Not(break_0))

    def true_fn_2():
        nonlocal return_flag_0, return_value_0
        return_flag_0 = True
        return_value_0 = x

    def false_fn_2():
        nonlocal return_flag_0, return_value_0
        pass

    def get_args_3():
        return (return_flag_0, return_value_0)

    def set_args_3(__args):
        nonlocal return_flag_0, return_value_0
        return_flag_0, return_value_0 = __args
    _jst.IfElse(_jst.Call(x.sum)() > 0, true_fn_2, false_fn_2, get_args_3, set_args_3, ('return_flag_0', 'return_value_0'), (0, 1))

    def true_fn_3():
        nonlocal return_flag_0, return_value_0
        return_flag_0 = True
        return_value_0 = -x

    def false_fn_3():
        nonlocal return_flag_0, return_value_0
        pass

    def get_args_4():
        return (return_flag_0, return_value_0)

    def set_args_4(__args):
        nonlocal return_flag_0, return_value_0
        return_flag_0, return_value_0 = __args
    _jst.IfElse(_jst.Not(return_flag_0), true_fn_3, false_fn_3, get_args_4, set_args_4, ('return_flag_0', 'return_value_0'), (1,))
    return _jst.ReturnValue(return_value_0)
