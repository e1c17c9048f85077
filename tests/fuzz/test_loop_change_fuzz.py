"""The fuzzer's generators of tensor loops whose loop variables change (tools/fuzz_loops.py): they
are drawn, every snippet appears, and programs holding them agree in every mode."""
import os

import dy2st as paddle
from tools import fuzz, fuzz_loops as loops


def _programs_with_snippets(count):
    found = []
    seed = 0
    while len(found) < count:
        source = fuzz.generate(seed)
        if "8 = " in source:
            found.append((seed, source))
        seed += 1
    return found


def test_every_snippet_is_drawn():
    sources = "\n".join(s for _, s in _programs_with_snippets(80))
    for snippet in loops.SNIPPETS:
        assert snippet[-1] in sources, snippet
    for count in loops.COUNTS:
        assert count in sources, count


def test_trip_counts_include_zero_and_several():
    # each count is 0 on some fuzzer input and above 1 on another
    for count in loops.COUNTS:
        values = {_count(count, x) for seed in range(3) for x in fuzz.inputs(seed)}
        assert 0 in values and max(values) > 1, (count, values)


def _count(text, x):
    return int(eval(text, {"x": paddle.to_tensor(x)}))  # noqa: S307 - the generator's own text


def test_programs_with_changing_loop_variables_agree(tmp_path):
    for seed, source in _programs_with_snippets(4):
        runs, failure = fuzz.check_source(source, seed, str(tmp_path), name=seed)
        assert failure is None, str(failure)
        assert runs == len(fuzz.inputs(seed))
    assert os.listdir(tmp_path)


def test_programs_with_graph_breaks_get_snippets_too():
    # they were kept out for a wrong gradient across a break, fixed since regions keep object
    # identity; the other programs are generated as before (the stream is drawn the same)
    seeds = fuzz.program_seeds(60, 400, breaks_only=True)
    assert any("8 = " in fuzz.generate(s) for s in seeds)
