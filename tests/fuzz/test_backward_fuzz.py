"""The fuzzer's generator of gradients taken inside converted code (tools/fuzz_backward.py): its
snippets are drawn into tools/fuzz.py's programs, every kind appears, and programs holding them
agree with eager, `.grad` after each call included."""
import sys

from tools import fuzz, fuzz_backward as backward


def _programs_with_snippets(count):
    found = []
    seed = 0
    while len(found) < count:
        source = fuzz.generate(seed)
        if "7" in source and ("W7" in source or "last7(" in source or "Holder7" in source):
            found.append((seed, source))
        seed += 1
    return found


def test_every_snippet_is_drawn():
    sources = "\n".join(s for _, s in _programs_with_snippets(60))
    for snippet in backward.BACKWARD + backward.NO_BACKWARD:
        assert snippet[-1] in sources, snippet
    assert "class Holder7" in sources
    assert "GRADIENT = False" in sources    # f runs a backward: no outer gradient compared


def test_programs_with_a_backward_inside_agree_after_each_call(tmp_path):
    sys.path.insert(0, str(tmp_path))
    try:
        with_backward = [(seed, s) for seed, s in _programs_with_snippets(12) if "W7" in s][:2]
        assert with_backward
        for seed, _ in with_backward:
            assert backward.check_after(seed, str(tmp_path)) is None
    finally:
        sys.path.remove(str(tmp_path))


def test_minimize_keeps_a_failure_of_the_checks_after_the_call(tmp_path, monkeypatch):
    # --program-seed N --minimize shrinks f while check_source_after fails the same way
    def check_source_after(source, seed, directory, name=None, gradient=True):
        fails = "    g = g * 3.0\n" in source and "    h = g + 1.0\n" in source
        return fuzz.Failure(seed, source, "differs", "after the call: value -> value") \
            if fails else None

    monkeypatch.setattr(backward, "check_source_after", check_source_after)
    source = ("def f(x):\n    h = x.mean(axis=0)\n    g = h * 2.0\n    if FLAG:\n"
              "        g = g * 3.0\n    s = g.sum()\n    h = g + 1.0\n    return h\n")
    small = backward.minimize(source, 0, str(tmp_path), seconds=5.0)
    assert small == "def f(x):\n    g = g * 3.0\n    h = g + 1.0\n"
