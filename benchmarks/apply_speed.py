"""How long do hunks that match nowhere take, against hunks that match?  (issue 14, item 2)

A patch made for another version of a file has hunks whose context is found
nowhere.  ``patch``-style offset search looks for them further and further
away; done naively that is a pass over the whole file per hunk (100 such hunks
on a 100,000-line file took over a minute).  This script applies, to the same
generated file, a patch of N hunks that all match where they say (the
baseline: the least any apply must do) and a patch of N hunks that match
nowhere, and prints both times and their ratio::

    python benchmarks/apply_speed.py [--lines 100000] [--hunks 100] [--repeat 3] [--max-ratio 20]

Exit status 1 when the ratio is above ``--max-ratio``.  Timings are only ever
compared within one run, on one machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retrace_fix.patch.apply_text import apply_hunks  # noqa: E402
from retrace_fix.patch.parse import parse_patch  # noqa: E402


def file_text(lines: int) -> str:
    return "".join(f"value_{i} = {i} * 2\n" for i in range(lines))


def patch_text(lines: int, hunks: int, matching: bool) -> str:
    out = ["--- a/big.py\n", "+++ b/big.py\n"]
    step = max(4, lines // hunks)
    for h in range(hunks):
        start = h * step + 2  # 1-based line of the first context line
        i = start - 1
        removed = f"value_{i + 1} = {i + 1} * 2\n" if matching else f"value_{i + 1} = 'drifted {h}'\n"
        out += [f"@@ -{start},3 +{start},3 @@\n", f" value_{i} = {i} * 2\n", f"-{removed}",
                f"+value_{i + 1} = 0\n", f" value_{i + 2} = {i + 2} * 2\n"]
    return "".join(out)


def best_time(text: str, patch: str, repeat: int) -> tuple[float, bool]:
    hunks = parse_patch(patch)[0].hunks
    best, ok = float("inf"), False
    for _ in range(repeat):
        started = time.perf_counter()
        ok = apply_hunks(text, hunks).ok
        best = min(best, time.perf_counter() - started)
    return best, ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--hunks", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--max-ratio", type=float, default=20.0)
    args = parser.parse_args(argv)
    text = file_text(args.lines)
    matching, ok = best_time(text, patch_text(args.lines, args.hunks, True), args.repeat)
    assert ok, "the matching patch must apply"
    nowhere, ok = best_time(text, patch_text(args.lines, args.hunks, False), args.repeat)
    assert not ok, "the drifted patch must not apply"
    ratio = nowhere / matching if matching else float("inf")
    print(f"{args.hunks} hunks on a {args.lines:,}-line file: matching {matching:.3f} s, "
          f"matching nowhere {nowhere:.3f} s, ratio {ratio:.2f} (target: at most {args.max_ratio:g})")
    return 0 if ratio <= args.max_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
