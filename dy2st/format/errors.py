"""The one error a model file can cause, and how its messages name the faulty place."""
from __future__ import annotations


class ModelFormatError(ValueError):
    """A model file is missing, foreign, corrupt, too new, or disagrees with itself."""


def fail(where: str, problem: str) -> ModelFormatError:
    return ModelFormatError(f"{where}: {problem}")
