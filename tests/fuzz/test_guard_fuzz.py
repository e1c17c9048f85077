"""The guard fuzzer's fixed, seeded budget: random functions and Layers whose Python state is
changed between calls agree with eager on every call and in the state they leave
(tools/fuzz_guards.py; `--count 2000` is the long run)."""
import pytest

from tools import fuzz_guards

BUDGET = 120      # programs x 5 calls (about 10 s on the 2-core machine)


@pytest.mark.slow
def test_guard_fuzz_budget_agrees_with_eager():
    report = fuzz_guards.fuzz(seed=0, count=BUDGET, calls=5)
    assert report.programs == BUDGET
    assert report.calls == 5 * BUDGET
    assert not report.failures, "\n".join(report.failures[:3])


@pytest.mark.parametrize("seed", [3, 11])
def test_generated_programs_cover_every_kind_of_state(seed):
    sources = [fuzz_guards.generate(seed * 1000 + k).source for k in range(200)]
    body = "\n".join(s.split("cfg = Cfg()")[1] for s in sources)
    for read in ("K", "len(L)", "D['a']", "ARR", "T", "ACT(", "range(N)", "FLAG", "cfg.k",
                 "cfg.inner.m", "read_c", "deep_helper", "self.scale", "self.training",
                 "np.tanh(h.numpy())", "self.calls += 1", "LOG.append", "TOTAL = TOTAL",
                 "getattr(cfg, cfg.name)", "vars(cfg)", "c_ = cfg.inner", "CFGS[1].k",
                 "for c_ in CFGS", "FNS[0](h)", "bump(cfg)", "log_it(h)", "log_deep(h)",
                 "self.count_up()", "c_ = pick(cfg)", "pick(cfg).k2", "CFGS[IDX].k",
                 "CFGS[i_].k", "enumerate(CFGS)", "[c_.k for c_ in CFGS]", "type(cfg).K",
                 "cfg.K", "cfg.p", "P(h)", "BM(h)", "TABLE2[NAME2].k", "TABLE2.items()",
                 "self.get_cfg()", "self.cfgs[self.i].k"):
        assert read in body, read
    changes = {c for k in range(200) for call in fuzz_guards.generate(seed * 1000 + k).calls
               for c in call[0]}
    for change in ("K = K + 0.25", "cfg.k = cfg.k + 0.5", "net.scale = net.scale + 0.5",
                   "FNS.reverse()", "IDX = 1 - IDX", "CFGS.reverse()", "net.i = 1 - net.i",
                   "NAME2 = 'b' if NAME2 == 'a' else 'a'"):
        assert change in changes, change
    assert any(c.startswith("P.keywords") for c in changes)
    assert any(c.startswith("Cfg.K = ") for c in changes)


def test_a_stale_program_is_reported(monkeypatch):
    # the fuzzer itself: a to_static that ignores changed state is caught
    import dy2st as paddle
    monkeypatch.setattr(paddle.jit, "to_static", lambda f: _first_call_only(f))
    report = fuzz_guards.fuzz(seed=0, count=20, calls=5)
    assert report.failures
    counted = fuzz_guards.fuzz(seed=0, count=20, calls=5, every_call=True)
    assert counted.calls == 100
    assert len(report.failures) <= counted.stale_calls <= 80     # the first calls agree


def _first_call_only(fn):
    cache = {}

    def call(x, cfg):
        if "out" not in cache:
            cache["out"] = fn(x, cfg)
        return cache["out"]
    return call
