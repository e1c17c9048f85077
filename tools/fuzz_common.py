"""What the fuzzers share: the record of a program that disagrees, and the loader of a program
written to a file (to_static reads a function's source from its file)."""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Optional, Tuple


@dataclass
class Failure:
    """A disagreeing program: its seed and source, what differed, and its kind ("eager outcome
    -> other outcome", e.g. "value -> NameError"), by which a run counts its failures."""
    seed: int
    source: str
    detail: str
    kind: str = ""

    def __str__(self) -> str:
        return f"--- seed {self.seed}: {self.detail}\n{self.source}"


def load_program(source: str, directory: str, stem: str,
                 module_name: Optional[str] = None) -> Tuple[ModuleType, str]:
    """(module, path): `source` written to `directory`/`stem`.py and run as a module named
    `module_name` (default `stem`), without touching sys.modules (each call is a fresh copy)."""
    path = os.path.join(directory, f"{stem}.py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(module_name or stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path
