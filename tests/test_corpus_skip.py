"""A fresh clone has no conformance corpus: the tests that read it skip with one reason, and
DY2ST_REQUIRE_CORPUS (set by CI) turns that skip into an error."""
import pytest

from tests import shared_cases


def test_a_missing_corpus_skips_with_the_shared_reason(monkeypatch, tmp_path):
    monkeypatch.setattr(shared_cases, "CONFORMANCE", tmp_path / "conformance")
    monkeypatch.delenv("DY2ST_REQUIRE_CORPUS", raising=False)
    with pytest.raises(pytest.skip.Exception) as info:
        shared_cases.require_corpus()
    assert str(info.value) == shared_cases.MISSING_REASON
    assert "DY2ST_SHARED" in shared_cases.MISSING_REASON


@pytest.mark.parametrize("value", ["1", "yes", "true"])
def test_require_corpus_makes_a_missing_corpus_an_error(monkeypatch, tmp_path, value):
    monkeypatch.setattr(shared_cases, "CONFORMANCE", tmp_path / "conformance")
    monkeypatch.setenv("DY2ST_REQUIRE_CORPUS", value)
    with pytest.raises(FileNotFoundError, match="conformance corpus is not at"):
        shared_cases.require_corpus()


@pytest.mark.parametrize("value", ["", "0"])
def test_a_false_require_value_still_skips(monkeypatch, tmp_path, value):
    monkeypatch.setattr(shared_cases, "CONFORMANCE", tmp_path / "conformance")
    monkeypatch.setenv("DY2ST_REQUIRE_CORPUS", value)
    with pytest.raises(pytest.skip.Exception):
        shared_cases.require_corpus()


def test_a_present_corpus_is_returned(monkeypatch, tmp_path):
    (tmp_path / "conformance" / "cases").mkdir(parents=True)
    monkeypatch.setattr(shared_cases, "CONFORMANCE", tmp_path / "conformance")
    assert shared_cases.require_corpus() == tmp_path / "conformance"
