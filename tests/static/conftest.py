"""The static-mode fixture the tests of paddle.static share."""
import pytest

import dy2st as paddle
from dy2st.runtime import program, state


@pytest.fixture
def static_mode():
    """enable_static() for one test; afterwards no program, block or default main is left."""
    paddle.enable_static()
    try:
        yield
    finally:
        state.reset()
        program._default_main["program"] = None
