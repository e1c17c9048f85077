"""The lookup tables the passes share (facts.py) answer exactly what program.find_var and the
per-op checks answer, and the batched renames equal renaming after each removal."""
import numpy as np
from random_programs import build_program, random_program

import dy2st as paddle
from dy2st import static
from dy2st.runtime.dtype import DTYPES
from dy2st.runtime.passes.effects import UNTOUCHABLE, Renames, is_pure, rename_captures
from dy2st.runtime.passes.facts import Facts, resolve_vars
from dy2st.runtime.program import Operator
from dy2st.runtime.registry import OPS


def _is_pure_by_lookup(program, op):
    """What is_pure answers, asked of program.find_var and the op itself each time."""
    if op.type in UNTOUCHABLE or op.sub_blocks() or op.type not in OPS or not op.outputs:
        return False
    return all((v := program.find_var(n)) is not None and v.kind == "dense"
               for n in list(op.inputs) + list(op.outputs))


def _rename_after(block, start, mapping):
    """Rename the reads of block.ops[start:] and its sub-blocks' captures right away."""
    for op in block.ops[start:]:
        op.inputs = [mapping.get(n, n) for n in op.inputs]
    rename_captures(block, mapping)


def _all_names(program):
    return {n for b in program.blocks for n in b.vars} | {"no_such_name"}


def test_resolved_vars_are_what_find_var_gives():
    with_sub_blocks = 0
    for seed in range(30):
        main, _, _ = random_program(seed)
        table = resolve_vars(main)
        with_sub_blocks += len(main.blocks) > 1
        for name in _all_names(main):
            assert table.get(name) is main.find_var(name)
    assert with_sub_blocks >= 5


def test_a_name_in_two_blocks_resolves_like_find_var():
    main, _, _ = random_program(3)
    sub = main.create_block(0)
    g = main.global_block()
    shared = next(iter(g.vars))
    twin = sub.create_var([1], DTYPES["int64"], name=shared)   # indexed last: find_var prefers it
    assert main.find_var(shared) is twin
    assert resolve_vars(main)[shared] is twin
    del main.var_index[shared]                                  # stale index: first block wins
    assert resolve_vars(main)[shared] is main.find_var(shared) is g.vars[shared]


def test_facts_match_the_variables():
    main, _, _ = random_program(5)
    facts = Facts(main)
    for name in _all_names(main):
        var = main.find_var(name)
        assert (name in facts.dense) == (var is not None and var.kind == "dense")
        want = np.dtype(var.dtype.np) if name in facts.dense else None
        assert facts.float_dtypes.get(name) == (want if want is not None and want.kind == "f" else None)
    for op in [op for b in main.blocks for op in b.ops]:
        assert is_pure(main, op, facts) == _is_pure_by_lookup(main, op)
    some = next(iter(facts.dense))
    facts.forget(some)
    assert some not in facts.vars and some not in facts.dense and some not in facts.float_dtypes


def test_int64_values_have_no_float_dtype():
    main = build_program(lambda x: paddle.cast(x, "int64") + 1)
    facts = Facts(main)
    ints = [n for n, v in facts.vars.items() if v.dtype == "int64"]
    assert ints and all(n in facts.dense and n not in facts.float_dtypes for n in ints)


def test_batched_renames_equal_renaming_after_each_removal():
    # removals at ops 0, 1, 2 with mappings whose targets are renamed later (a -> b, then b -> c)
    steps = [(0, {"r0": "a"}), (1, {"a": "b"}), (2, {"r2": "r0"})]

    def ops():
        return [Operator("id", ["x"], ["r0"], {}), Operator("id", ["r0"], ["r1"], {}),
                Operator("id", ["r0"], ["r2"], {}), Operator("f", ["r0", "a", "r2", "b"], ["y"], {})]
    main = static.Program()
    eager = main.global_block()
    eager.ops = ops()
    for i, mapping in steps:
        _rename_after(eager, i + 1, mapping)
    batched = ops()
    renames = Renames()
    for i, op in enumerate(batched):
        renames.apply(op)
        for j, mapping in steps:
            if j == i:
                renames.add(mapping)
    assert [op.inputs for op in batched] == [op.inputs for op in eager.ops]
    assert batched[3].inputs == ["b", "b", "r0", "b"]
