"""dy2st.runtime.time_limit: the SIGALRM bound `dy2st run --timeout` and the fuzz minimizer use
(its error raised in the block, the previous handler and an enclosing limit kept)."""
import signal
import time

import pytest

from dy2st.runtime.time_limit import TIME_LIMIT_AVAILABLE, time_limit

pytestmark = pytest.mark.skipif(not TIME_LIMIT_AVAILABLE, reason="no SIGALRM on this platform")


class Late(Exception):
    pass


class Outer(Exception):
    pass


def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a_block_past_its_limit_gets_the_callers_error_and_the_timer_is_cleared():
    handler = signal.getsignal(signal.SIGALRM)
    start = time.monotonic()
    with pytest.raises(Late):
        with time_limit(0.05, Late):
            spin(5)
    assert time.monotonic() - start < 2
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    assert signal.getsignal(signal.SIGALRM) is handler


def test_a_block_within_its_limit_runs_to_the_end():
    with time_limit(5, Late):
        total = sum(range(1000))
    assert total == 499500
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_none_is_no_limit_and_a_bad_limit_is_refused():
    with time_limit(None, Late):
        assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="seconds > 0"):
            with time_limit(bad, Late):
                pass


def test_an_enclosing_limit_keeps_counting_and_one_ending_first_wins():
    with time_limit(30, Outer):
        with time_limit(0.05, Late):
            pass
        left = signal.getitimer(signal.ITIMER_REAL)[0]
        assert 25 < left <= 30
    with pytest.raises(Outer):
        with time_limit(0.05, Outer):
            with time_limit(30, Late):
                spin(5)
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
