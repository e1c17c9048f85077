"""dy2st.utils: helpers over nested structures (map_structure, flatten, pack_sequence_as)."""
from .nest import flatten, map_structure, pack_sequence_as

__all__ = ["map_structure", "flatten", "pack_sequence_as"]
