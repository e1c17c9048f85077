"""A module whose global a helper changes (`global CALLS; CALLS += 1`), called from converted code
in tests/jit/test_side_effects_library_and_defaults.py as `helpers.counted(x)`."""
CALLS = 0


def counted(t):
    global CALLS
    CALLS += 1
    return t * float(CALLS)
