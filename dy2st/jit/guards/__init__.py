"""Guards: every Python value a traced program read (globals, closure cells, attributes of
`self` and of argument objects, container entries) is checked before a cached program is reused
(see docs/graph_breaks.md, "What is guarded")."""
from .guard_set import Guard, GuardSet, build_guards
from .recorder import note_call, note_function, recording
from .reads import CodeReads, reads_of

__all__ = ["Guard", "GuardSet", "build_guards", "note_call", "note_function", "recording",
           "CodeReads", "reads_of"]
