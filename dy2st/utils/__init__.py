"""dy2st.utils: helpers over nested structures (map_structure, flatten, pack_sequence_as) and
unique_name (paddle.utils.unique_name)."""
from ..runtime.nest import flatten, map_structure, pack_sequence_as
from . import unique_name

__all__ = ["map_structure", "flatten", "pack_sequence_as", "unique_name"]
