"""Paddle's static-graph mode switch: `enable_static()` makes every op build into the default
main Program (run it with `static.Executor`), `disable_static()` returns to eager execution."""
from __future__ import annotations

from ..runtime import state
from ..runtime.program import default_main_program
from . import convert_user_layers


def enable_static() -> None:
    """Build ops into `static.default_main_program()` instead of running them (this thread)."""
    if state.build_state.static_program is not None:
        return
    if state.build_state.blocks:
        raise RuntimeError("enable_static() inside a program_guard or a to_static trace; call it "
                           "at the top level")
    convert_user_layers()
    program = default_main_program()
    state.push_program(program)
    state.push_block(program.global_block())
    state.build_state.static_program = program


def disable_static(place: object = None) -> None:
    """Run ops eagerly again (the default main program keeps what was built)."""
    program = state.build_state.static_program
    if program is None:
        return
    if state.current_block() is not program.global_block() or \
            state.current_program() is not program:
        raise RuntimeError("disable_static() inside a program_guard; leave the guard first")
    state.pop_block()
    state.pop_program()
    state.build_state.static_program = None
