"""The differential fuzzer's fixed, seeded budget: random programs run eagerly, through to_static
and through jit.save / jit.load must agree (tools/fuzz.py; `--count 5000` is the long run)."""
import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _fuzz_module():
    spec = importlib.util.spec_from_file_location("dy2st_tools_fuzz",
                                                  os.path.join(ROOT, "tools", "fuzz.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # (dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


fuzz = _fuzz_module()

BUDGET = 300      # programs, each on 5 inputs in 3 modes (about 20 s on the 2-core machine)


def test_generated_programs_agree_in_every_mode():
    report = fuzz.fuzz(seed=0, count=BUDGET)
    assert report.programs == BUDGET
    assert report.runs >= 4 * BUDGET        # most programs reach every input
    shown = "\n".join(str(f) for f in report.failures[:3])
    assert not report.failures, (f"{len(report.failures)} of {BUDGET} programs disagree "
                                 f"(reproduce one with `python tools/fuzz.py --program-seed "
                                 f"SEED`):\n{shown}")


def test_generator_covers_the_constructs_it_promises():
    sources = "\n".join(fuzz.generate(s) for s in range(200))
    for construct in ("for i", "in range(x.shape[0])", "in enumerate(x)", "in zip(x,", "while ",
                      "break", "continue", "return ", " and ", " or ", "not (", "elif ", "else:",
                      "+=", "] = ", "acc.append(", "d['a']", "helper(", "scale2(", ".add_(",
                      "if FLAG", "z = "):
        assert construct in sources, construct


def test_a_disagreement_is_reported_with_its_seed_and_source(tmp_path, monkeypatch):
    """A program whose static result differs (a broken comparison) fails with seed and source."""
    monkeypatch.setattr(fuzz, "_agree", lambda a, b: False)
    runs, failure = fuzz.check_program(5, str(tmp_path))
    assert failure is not None and failure.seed == 5
    text = str(failure)
    assert "seed 5" in text and "def f(x):" in text and fuzz.generate(5) in text


def test_outcomes_compare_values_and_error_lines():
    import numpy as np
    a = fuzz.Outcome(value=np.array([1.0, np.nan]))
    assert fuzz._agree(a, fuzz.Outcome(value=np.array([1.0 + 1e-7, np.nan])))
    assert not fuzz._agree(a, fuzz.Outcome(value=np.array([1.1, np.nan])))
    assert not fuzz._agree(a, fuzz.Outcome(error=("ValueError", 3)))
    assert fuzz._agree(fuzz.Outcome(error=("UnboundLocalError", 7)),
                       fuzz.Outcome(error=("UnboundLocalError", 7)))
    assert not fuzz._agree(fuzz.Outcome(error=("UnboundLocalError", 7)),
                           fuzz.Outcome(error=("UnboundLocalError", 8)))
