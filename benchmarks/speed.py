"""Rewriter speed: ``retrace-fix --diff`` against a bare LibCST parse of every file.

Both sides run as fresh processes (interpreter start-up and imports included), on
the same file list (what ``retrace-fix`` discovers under TREE), with the same
number of worker processes, alternated ``--repeat`` times so that machine noise
hits both alike; the best of each side is compared.  Printed per ``--jobs`` value:
wall time of each side, the ratio, the ratio of CPU time (user + system of all the
processes of a side: what the work costs, steadier than wall time on a busy
machine), files per second, the peak resident memory of the largest process (a
worker, or the main process with ``--jobs 1``), and the scaling from the first to
the last ``--jobs`` value.  Also how many files the prefilter lets through to the
parser and how many of their lines LibCST is given (partial parsing).  The verdict
compares the wall-time ratios with ``--target`` (issue 16: 0.25 on a large tree of
many repositories, 0.4 on keras-team/keras alone).

``--each`` also measures every TREE on its own (a row per tree and ``--jobs``
value), then all of them together.

``--bulk`` measures the ways a bulk run is given its roots (each TREE a root,
``--jobs`` its last value), alternated ``--repeat`` times, the best of each kept:
the bare parse; one folder holding the trees (``--folder DIR``, else their common
parent when it holds nothing else, else left out); the trees as N paths; each tree
alone, summed (a process per tree); ``--repos FILE`` listing the trees as
``file://`` git URLs (each is a git checkout: cloned for the run, clone included);
and the same URLs on ``--scheduler local`` with ``--jobs`` Dask workers.  These two rows
are left out, with the reason, unless every TREE is the top of a git checkout whose files
are its commit's (``git status`` clean): a tree that cannot be cloned fails as a root, and
the row would be timed on less work than the others.  It prints
wall and CPU time of each, and the ratios of the issue 24 targets: N paths against
the bare parse, N paths against each alone summed, the Dask run against N paths.  Both sides run with compiled bytecode, as an
installed package does: the checkout is compiled first (``__pycache__``, which git
ignores) and ``PYTHONDONTWRITEBYTECODE`` is not passed on.  Nothing is asserted:
it prints.  Usage::

    python benchmarks/speed.py TREE [TREE...] [--jobs 1,2] [--repeat 3] [--each]
        [--bulk [--folder DIR]] [--target 0.25] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
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

# Runs a command; prints its exit code, wall time, the peak RSS (KiB) of the largest
# process it waited for, and the CPU time (user + system) of all of them.
MEASURE = r"""
import resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
print(proc.returncode, wall, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)
"""


def discover_files(trees: list[str]) -> list[Path]:
    from retrace_fix.sources.discovery import discover

    return discover(trees, []).files


def prefilter_counts(files: list[Path]) -> dict:
    """Files past the byte prefilter, files LibCST parses, lines of all files and the lines
    LibCST is given (blank lines of partial parsing not counted)."""
    from retrace_fix.engine.options import RunOptions, selected_codemods
    from retrace_fix.engine.prefilter import decode_source, might_contain_target, codemods_to_run

    options = RunOptions()
    codemods = selected_codemods(options)
    candidates = parsed = lines = parsed_lines = given_lines = 0
    for path in files:
        try:
            data = path.read_bytes()
            text = decode_source(data)[0]
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            continue
        lines += data.count(b"\n")
        if not might_contain_target(data, codemods, has_traces=False):
            continue
        candidates += 1
        to_run, _, outline = codemods_to_run(data, text, codemods, options, has_traces=False)
        if not to_run:
            continue
        parsed += 1
        parsed_lines += data.count(b"\n")
        pruned = None
        if outline is not None and not any(cls.NEEDS_WHOLE_MODULE for cls in to_run):
            pruned = outline.pruned_text()
        given_lines += data.count(b"\n") if pruned is None else sum(1 for line in pruned.splitlines() if line.strip())
    return {
        "files_past_byte_prefilter": candidates,
        "files_parsed_by_libcst": parsed,
        "lines": lines,
        "lines_of_parsed_files": parsed_lines,
        "lines_given_to_libcst": given_lines,
    }


def measure(command: list[str]) -> tuple[int, float, int, float]:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True
    )
    code, wall, peak, cpu = out.stdout.decode().split()
    return int(code), float(wall), int(peak), float(cpu)


def compare(trees: list[str], files: list[Path], jobs_values: list[int], repeat: int, tmp: Path) -> list[dict]:
    """One row per ``--jobs`` value: both sides, alternated ``repeat`` times."""
    listing = tmp / "files.txt"
    listing.write_text("\n".join(str(p) for p in files) + "\n", encoding="utf-8")
    bare_script = tmp / "bare_parse.py"
    bare_script.write_text(BARE_PARSE, encoding="utf-8")
    rows = []
    for jobs in jobs_values:
        bare_cmd = [sys.executable, str(bare_script), str(jobs), str(listing)]
        tool_cmd = [sys.executable, "-m", "retrace_fix", "--diff", "--quiet", "--jobs", str(jobs), *trees]
        bare, tool, codes = [], [], set()
        for _ in range(repeat):
            bare.append(measure(bare_cmd))
            run = measure(tool_cmd)
            tool.append(run)
            codes.add(run[0])
        bare_wall, tool_wall = min(r[1] for r in bare), min(r[1] for r in tool)
        bare_cpu, tool_cpu = min(r[3] for r in bare), min(r[3] for r in tool)
        rows.append(
            {
                "jobs": jobs,
                "bare_parse_s": round(bare_wall, 3),
                "retrace_fix_s": round(tool_wall, 3),
                "ratio": round(tool_wall / bare_wall, 3),
                "bare_parse_cpu_s": round(bare_cpu, 3),
                "retrace_fix_cpu_s": round(tool_cpu, 3),
                "cpu_ratio": round(tool_cpu / bare_cpu, 3) if bare_cpu else None,
                "files_per_s": round(len(files) / tool_wall, 1),
                "bare_files_per_s": round(len(files) / bare_wall, 1),
                "peak_rss_mib": round(max(r[2] for r in tool) / 1024, 1),
                "bare_peak_rss_mib": round(max(r[2] for r in bare) / 1024, 1),
                "exit_codes": sorted(codes),
                "bare_runs_s": [round(r[1], 3) for r in bare],
                "retrace_fix_runs_s": [round(r[1], 3) for r in tool],
            }
        )
    return rows


#: the ways a bulk run is given its roots, in the order they are run and printed
BULK_ROWS = ("bare parse", "one folder", "N paths", "each alone, summed", "--repos file:// URLs",
             "--scheduler local")
#: (label, numerator, denominator, target) of the ratios --bulk prints (issue 24)
BULK_RATIOS = (
    ("N paths / bare parse", "N paths", "bare parse", 0.15),
    ("N paths / each alone, summed", "N paths", "each alone, summed", 1.1),
    ("--scheduler local / N paths", "--scheduler local", "N paths", 1.3),
)


def one_folder(trees: list[str], folder: str | None) -> str | None:
    """The folder for the "one folder" row: ``folder``, else the trees' common parent when it holds
    exactly them (hidden entries aside), else None."""
    if folder:
        return folder
    parents = {Path(t).resolve().parent for t in trees}
    if len(parents) != 1:
        return None
    parent = parents.pop()
    inside = {p.resolve() for p in parent.iterdir() if not p.name.startswith(".")}
    return str(parent) if inside == {Path(t).resolve() for t in trees} else None


def checkout_problems(trees: list[str]) -> list[str]:
    """Why the ``file://`` URL rows would not do the work the path rows do: a TREE that is not the
    top of a git checkout cannot be cloned (its root then fails, and the row finishes sooner), and
    one whose files differ from its commit (changed, or untracked and not ignored) clones as
    other files."""
    problems = []
    for tree in trees:
        if not (Path(tree) / ".git").exists():
            problems.append(f"{tree}: not the top of a git checkout")
            continue
        status = subprocess.run(["git", "-C", tree, "status", "--porcelain"], capture_output=True, text=True,
                                check=False)
        if status.returncode != 0 or status.stdout.strip():
            problems.append(f"{tree}: its files differ from its commit (git status)")
    return problems


def bulk_commands(trees: list[str], files: list[Path], jobs: int, folder: str | None, tmp: Path,
                  clone_rows: bool = True) -> dict:
    """Each row's commands (a list: "each alone" is a process per tree, summed); ``clone_rows``: the
    rows that clone the trees from ``file://`` URLs too."""
    listing = tmp / "bulk_files.txt"
    listing.write_text("\n".join(str(p) for p in files) + "\n", encoding="utf-8")
    bare_script = tmp / "bare_parse.py"
    bare_script.write_text(BARE_PARSE, encoding="utf-8")
    urls = tmp / "urls.txt"
    urls.write_text("".join(Path(t).resolve().as_uri() + "\n" for t in trees), encoding="utf-8")
    tool = [sys.executable, "-m", "retrace_fix", "--diff", "--quiet", "--jobs", str(jobs)]
    commands = {
        "bare parse": [[sys.executable, str(bare_script), str(jobs), str(listing)]],
        "one folder": [[*tool, folder]] if folder else [],
        "N paths": [[*tool, *trees]],
        "each alone, summed": [[*tool, tree] for tree in trees],
        "--repos file:// URLs": [[*tool, "--repos", str(urls)]] if clone_rows else [],
        "--scheduler local": [[*tool, "--scheduler", "local", "--repos", str(urls)]] if clone_rows else [],
    }
    return {label: command for label, command in commands.items() if command}


def bulk_compare(commands: dict, repeat: int) -> dict:
    """Every row ``repeat`` times, alternated; per row the best wall and CPU (a row of several
    processes: their sums, per round), the exit codes, and every round's figures."""
    rounds: dict[str, list[tuple[float, float]]] = {label: [] for label in commands}
    codes: dict[str, set] = {label: set() for label in commands}
    for _ in range(repeat):
        for label, command_list in commands.items():
            wall = cpu = 0.0
            for command in command_list:
                code, run_wall, _, run_cpu = measure(command)
                wall, cpu = wall + run_wall, cpu + run_cpu
                codes[label].add(code)
            rounds[label].append((wall, cpu))
    rows = {}
    for label, figures in rounds.items():
        rows[label] = {
            "wall_s": round(min(w for w, _ in figures), 3),
            "cpu_s": round(min(c for _, c in figures), 3),
            "processes": len(commands[label]),
            "exit_codes": sorted(codes[label]),
            "rounds": [{"wall_s": round(w, 3), "cpu_s": round(c, 3)} for w, c in figures],
        }
    ratios = []
    for name, top, bottom, target in BULK_RATIOS:
        if top not in rows or bottom not in rows:
            continue
        wall = rows[top]["wall_s"] / rows[bottom]["wall_s"]
        cpu = rows[top]["cpu_s"] / rows[bottom]["cpu_s"] if rows[bottom]["cpu_s"] else float("nan")
        per_round = [a["wall_s"] / b["wall_s"] for a, b in zip(rows[top]["rounds"], rows[bottom]["rounds"])]
        ratios.append({"ratio": name, "wall": round(wall, 3), "cpu": round(cpu, 3), "target": target,
                       "wall_per_round": [round(r, 3) for r in per_round], "met": wall <= target})
    return {"rows": rows, "ratios": ratios}


def print_bulk(figures: dict, jobs: int, roots: int) -> None:
    print(f"\nbulk runs: {roots} roots, --jobs {jobs}, best of each row")
    print(f"{'run':<24} {'processes':>9}  {'wall':>9}  {'CPU':>9}  exit")
    for label, row in figures["rows"].items():
        print(f"{label:<24} {row['processes']:>9}  {row['wall_s']:>8.2f}s  {row['cpu_s']:>8.2f}s  "
              f"{','.join(map(str, row['exit_codes']))}")
    print(f"{'ratio':<32} {'wall':>6}  {'CPU':>6}  {'target':>6}  per round (wall)")
    for ratio in figures["ratios"]:
        rounds = " ".join(f"{r:.2f}" for r in ratio["wall_per_round"])
        print(f"{ratio['ratio']:<32} {ratio['wall']:>6.2f}  {ratio['cpu']:>6.2f}  <= {ratio['target']:<4g} "
              f"{'met' if ratio['met'] else 'NOT met':<8} {rounds}")


def print_rows(label: str, rows: list[dict]) -> None:
    for row in rows:
        print(f"{label:<28} {row['jobs']:>4}  {row['bare_parse_s']:>9.2f}s  {row['retrace_fix_s']:>10.2f}s  "
              f"{row['ratio']:>5.2f}  {row['cpu_ratio'] if row['cpu_ratio'] is not None else float('nan'):>9.2f}  "
              f"{row['files_per_s']:>8.0f}  {row['peak_rss_mib']:>6.0f} MiB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", help="directories (or files) to run on")
    parser.add_argument("--jobs", default="1,2", help="comma list of worker counts (default 1,2)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side per --jobs value")
    parser.add_argument("--each", action="store_true", help="also measure every TREE on its own")
    parser.add_argument("--bulk", action="store_true",
                        help="measure the ways a bulk run is given its roots (each TREE a root) instead")
    parser.add_argument("--folder", default=None, help="--bulk: the one folder holding every TREE")
    parser.add_argument("--target", type=float, default=0.25, help="the ratio to meet (default 0.25)")
    parser.add_argument("--json", dest="json_out", default=None, help="also write the figures here")
    options = parser.parse_args(argv)

    files = discover_files(options.trees)
    if not files:
        print("no Python files found", file=sys.stderr)
        return 2
    counts = prefilter_counts(files)
    os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    jobs_values = [int(j) for j in options.jobs.split(",")]
    if options.bulk:
        return main_bulk(options, files, counts, jobs_values[-1])
    per_tree: list[dict] = []
    print(f"{'tree':<28} {'jobs':>4}  {'bare parse':>10}  {'retrace-fix':>11}  {'ratio':>5}  "
          f"{'cpu ratio':>9}  {'files/s':>8}  {'peak RSS':>9}")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "retrace_fix"), str(ROOT / "codemods")],
                   stdout=subprocess.DEVNULL, check=False)
    with tempfile.TemporaryDirectory() as tmp:
        if options.each and len(options.trees) > 1:
            for index, tree in enumerate(options.trees):
                tree_files = discover_files([tree])
                if not tree_files:
                    continue
                folder = Path(tmp) / str(index)
                folder.mkdir()
                tree_rows = compare([tree], tree_files, jobs_values, options.repeat, folder)
                per_tree.append({"tree": tree, "files": len(tree_files), "runs": tree_rows})
                print_rows(Path(tree).name, tree_rows)
        rows = compare(options.trees, files, jobs_values, options.repeat, Path(tmp))
    label = "all" if len(options.trees) > 1 else Path(options.trees[0]).name
    print_rows(label, rows)
    summary = {"trees": options.trees, "files": len(files), **counts, "runs": rows, "target": options.target}
    if per_tree:
        summary["per_tree"] = per_tree
    if len(rows) > 1:
        summary["scaling"] = round(rows[0]["retrace_fix_s"] / rows[-1]["retrace_fix_s"], 2)
        summary["bare_scaling"] = round(rows[0]["bare_parse_s"] / rows[-1]["bare_parse_s"], 2)

    parsed = counts["files_parsed_by_libcst"]
    print(f"{len(files)} files, {counts['lines']} lines; {counts['files_past_byte_prefilter']} pass the byte "
          f"prefilter, LibCST parses {parsed} ({100 * parsed / len(files):.1f}%), given "
          f"{counts['lines_given_to_libcst']} of their {counts['lines_of_parsed_files']} lines")
    if "scaling" in summary:
        print(f"scaling jobs {rows[0]['jobs']} -> {rows[-1]['jobs']}: retrace-fix x{summary['scaling']}, "
              f"bare parse x{summary['bare_scaling']}")
    worst = max(row["ratio"] for row in rows)
    print(f"target ratio <= {options.target:g}: {'met' if worst <= options.target else 'NOT met'} "
          f"(worst {worst:.2f}, best {min(row['ratio'] for row in rows):.2f})")
    if options.json_out:
        Path(options.json_out).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


def main_bulk(options: argparse.Namespace, files: list[Path], counts: dict, jobs: int) -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "retrace_fix"), str(ROOT / "codemods")],
                   stdout=subprocess.DEVNULL, check=False)
    folder = one_folder(options.trees, options.folder)
    problems = checkout_problems(options.trees)
    with tempfile.TemporaryDirectory() as tmp:
        commands = bulk_commands(options.trees, files, jobs, folder, Path(tmp), clone_rows=not problems)
        figures = bulk_compare(commands, options.repeat)
    print_bulk(figures, jobs, len(options.trees))
    if folder is None:
        print("one folder: left out (the trees have no common parent holding only them; see --folder)")
    if problems:
        print(f"--repos and --scheduler rows: left out (they would not clone the files the other rows read: "
              f"{len(problems)} of the trees): " + "; ".join(problems[:5]) + (" ..." if len(problems) > 5 else ""))
    parsed = counts["files_parsed_by_libcst"]
    print(f"{len(files)} files, {counts['lines']} lines; LibCST parses {parsed} "
          f"({100 * parsed / len(files):.1f}%) in a run without traces")
    if options.json_out:
        summary = {"trees": options.trees, "files": len(files), **counts, "jobs": jobs, "repeat": options.repeat,
                   "folder": folder, **figures}
        Path(options.json_out).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
