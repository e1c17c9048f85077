"""The format's identity: its name and version, the writing dy2st's version, and the header check."""
from __future__ import annotations

from typing import Any

from ..runtime.version import __version__
from .errors import fail

FORMAT_NAME = "dy2st.model"
# 2: adds `input_structure` (an argument that is a list / tuple / dict of tensors); files
# without it are still written as version 1; 3: output leaves marked as Python numbers
# (`{"var": i, "number": "float"}`) and `persistable_writes` (buffers a call updates), written
# only by models that have them; 4: `new_leaves` (values `stop_gradient = False` makes leaves),
# written only by models that have them
FORMAT_VERSION = 4


def check_header(doc: Any, where: str) -> int:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT_NAME:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise fail(where, f"is not a dy2st model (format is {found!r}, expected {FORMAT_NAME!r})")
    version = doc.get("format_version")
    if type(version) is not int or version < 1:
        raise fail(where, f"has an invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise fail(where, f"uses model format version {version} (written by dy2st "
                           f"{doc.get('dy2st_version', '?')}), but this dy2st ({__version__}) "
                           f"reads format versions up to {FORMAT_VERSION}; upgrade dy2st to load it")
    return version
