"""Rewriter speed: ``retrace-fix --diff`` against a bare LibCST parse of every file.

Both sides run as fresh processes (interpreter start-up and imports included), on
the same file list (what ``retrace-fix`` discovers under TREE), with the same
number of worker processes, alternated ``--repeat`` times so that machine noise
hits both alike; the best of each side is compared.  Printed per ``--jobs`` value:
wall time of each side, the ratio (target: at most 0.5 on a typical TensorFlow
repository), files per second, the peak resident memory of the largest process
(a worker, or the main process with ``--jobs 1``), and the scaling from the first
to the last ``--jobs`` value.  Also how many files the prefilter lets through to
the parser.  Nothing is asserted: it prints.  Usage::

    python benchmarks/speed.py TREE [TREE...] [--jobs 1,2] [--repeat 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The bare side: read + decode (PEP 263) + LibCST parse of every listed file,
# in N worker processes (fork on Linux) chunked like the engine's pool.
BARE_PARSE = r"""
import io, multiprocessing, os, sys, tokenize
from concurrent.futures import ProcessPoolExecutor
import libcst as cst

def parse(path):
    try:
        data = open(path, "rb").read()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        cst.parse_module(data.decode(encoding))
        return 0
    except Exception:
        return 1

def main():
    jobs = int(sys.argv[1])
    paths = open(sys.argv[2], encoding="utf-8").read().splitlines()
    if jobs == 1:
        failures = sum(parse(p) for p in paths)
    else:
        ctx = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None
        chunksize = max(1, min(16, len(paths) // (jobs * 4) or 1))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
            failures = sum(pool.map(parse, paths, chunksize=chunksize))
    print(failures)

main()
"""

# Runs a command and prints the peak RSS (KiB) of the largest process it waited for.
MEASURE = r"""
import resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
print(proc.returncode, wall, peak)
"""


def discover_files(trees: list[str]) -> list[Path]:
    from retrace_fix.discovery import discover

    return discover(trees, []).files


def prefilter_counts(files: list[Path]) -> tuple[int, int, int]:
    """(files past the byte prefilter, files LibCST parses, lines of all files)."""
    from retrace_fix import engine

    options = engine.RunOptions()
    codemods = engine.selected_codemods(options)
    candidates = parsed = lines = 0
    for path in files:
        try:
            data = path.read_bytes()
            text = engine.decode_source(data)[0]
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            continue
        lines += data.count(b"\n")
        if not engine.might_contain_target(data, codemods, has_traces=False):
            continue
        candidates += 1
        parsed += bool(engine.plan_codemods(data, text, codemods, options, has_traces=False)[0])
    return candidates, parsed, lines


def measure(command: list[str]) -> tuple[int, float, int]:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True
    )
    code, wall, peak = out.stdout.decode().split()
    return int(code), float(wall), int(peak)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", help="directories (or files) to run on")
    parser.add_argument("--jobs", default="1,2", help="comma list of worker counts (default 1,2)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side per --jobs value")
    parser.add_argument("--json", dest="json_out", default=None, help="also write the figures here")
    options = parser.parse_args(argv)

    files = discover_files(options.trees)
    if not files:
        print("no Python files found", file=sys.stderr)
        return 2
    candidates, parsed, lines = prefilter_counts(files)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    os.environ.update(env)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "files.txt"
        listing.write_text("\n".join(str(p) for p in files) + "\n", encoding="utf-8")
        bare_script = Path(tmp) / "bare_parse.py"
        bare_script.write_text(BARE_PARSE, encoding="utf-8")
        for jobs in [int(j) for j in options.jobs.split(",")]:
            bare_cmd = [sys.executable, str(bare_script), str(jobs), str(listing)]
            tool_cmd = [sys.executable, "-m", "retrace_fix", "--diff", "--quiet", "--jobs", str(jobs), *options.trees]
            bare_times, tool_times, bare_rss, tool_rss, codes = [], [], [], [], set()
            for _ in range(options.repeat):
                _, wall, rss = measure(bare_cmd)
                bare_times.append(wall)
                bare_rss.append(rss)
                code, wall, rss = measure(tool_cmd)
                tool_times.append(wall)
                tool_rss.append(rss)
                codes.add(code)
            bare, tool = min(bare_times), min(tool_times)
            rows.append(
                {
                    "jobs": jobs,
                    "bare_parse_s": round(bare, 3),
                    "retrace_fix_s": round(tool, 3),
                    "ratio": round(tool / bare, 3),
                    "files_per_s": round(len(files) / tool, 1),
                    "bare_files_per_s": round(len(files) / bare, 1),
                    "peak_rss_mib": round(max(tool_rss) / 1024, 1),
                    "bare_peak_rss_mib": round(max(bare_rss) / 1024, 1),
                    "exit_codes": sorted(codes),
                    "bare_runs_s": [round(t, 3) for t in bare_times],
                    "retrace_fix_runs_s": [round(t, 3) for t in tool_times],
                }
            )
    summary = {
        "trees": options.trees,
        "files": len(files),
        "lines": lines,
        "files_past_byte_prefilter": candidates,
        "files_parsed_by_libcst": parsed,
        "runs": rows,
    }
    if len(rows) > 1:
        summary["scaling"] = round(rows[0]["retrace_fix_s"] / rows[-1]["retrace_fix_s"], 2)
        summary["bare_scaling"] = round(rows[0]["bare_parse_s"] / rows[-1]["bare_parse_s"], 2)

    print(f"{len(files)} files, {lines} lines; {candidates} pass the byte prefilter, LibCST parses {parsed} "
          f"({100 * parsed / len(files):.1f}%)")
    print(f"{'jobs':>4}  {'bare parse':>10}  {'retrace-fix':>11}  {'ratio':>5}  {'files/s':>8}  {'peak RSS':>9}")
    for row in rows:
        print(f"{row['jobs']:>4}  {row['bare_parse_s']:>9.2f}s  {row['retrace_fix_s']:>10.2f}s  "
              f"{row['ratio']:>5.2f}  {row['files_per_s']:>8.0f}  {row['peak_rss_mib']:>6.0f} MiB")
    if "scaling" in summary:
        print(f"scaling jobs {rows[0]['jobs']} -> {rows[-1]['jobs']}: retrace-fix x{summary['scaling']}, "
              f"bare parse x{summary['bare_scaling']}")
    best = min(row["ratio"] for row in rows)
    print(f"target ratio <= 0.5: {'met' if max(row['ratio'] for row in rows) <= 0.5 else 'NOT met'} "
          f"(best {best:.2f})")
    if options.json_out:
        Path(options.json_out).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
