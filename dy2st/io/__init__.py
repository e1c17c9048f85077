"""dy2st.io: saving and loading state dicts (paddle.save / paddle.load)."""
from .serialization import load, save

__all__ = ["save", "load"]
