"""The examples of docs/graph_breaks.md run and their asserts hold (each block as a file of its
own, so that the converter reads its source)."""
import os
import re
import runpy

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "graph_breaks.md")


def _blocks():
    with open(DOC) as fh:
        text = fh.read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


BLOCKS = _blocks()


def test_the_doc_has_its_examples():
    assert len(BLOCKS) >= 4
    assert sum("assert" in b for b in BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_doc_example_runs(index, tmp_path, recwarn):
    path = tmp_path / f"graph_breaks_example_{index}.py"
    path.write_text(BLOCKS[index])
    runpy.run_path(str(path), run_name=f"graph_breaks_example_{index}")
