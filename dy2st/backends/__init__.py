"""Execution backends for Programs: each compiles a Program for given feeds and fetches into a
callable (arrays in feed order -> arrays in fetch order). numpy is the default; xla is optional."""
from .base import (Backend, DEFAULT_ENV, KNOWN_BACKENDS, compile_for, get_backend,  # noqa: F401
                   resolve_backend)
