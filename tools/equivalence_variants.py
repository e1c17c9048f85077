"""Variant programs for issue 24's rules (no_grad, Python values from tensors, late binding,
hooks, list-entry aliases, ...), each run eagerly, through to_static (full_graph True and False)
and through jit.save / jit.load by tools/equivalence.py, and compared with eager mode:
`python tools/equivalence_variants.py [-k NAME] [--item N] [-v] [--modes full_graph,breaks]`."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tools import variants_autograd_values, variants_containers_loops  # noqa: E402
from tools.equivalence import MODES, report  # noqa: E402

VARIANTS = variants_autograd_values.VARIANTS + variants_containers_loops.VARIANTS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-k", default="", help="only variants whose name contains this")
    parser.add_argument("--item", type=int, default=0)
    parser.add_argument("-v", action="store_true", help="print every outcome")
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    chosen = [v for v in VARIANTS if args.k in v.name and (not args.item or v.item == args.item)]
    rows = report(chosen, tuple(args.modes.split(",")), verbose=args.v)
    bad = [r for r in rows if r[3] != "agrees"]
    refused = [r for r in rows if r[3] == "agrees" and
               any(str(res).startswith("refused") for res in r[2].values())]
    print(f"{len(rows)} variants, {len(bad)} disagree, {len(refused)} of those that agree "
          f"refuse clearly in some mode ({', '.join(r[1] for r in refused)})")


if __name__ == "__main__":
    main()
