"""The ``retrace-fix`` command line (typer): parse the arguments, call the command's module.

``retrace-fix [OPTIONS] PATH...`` is the fix command; the first argument picks a
subcommand only when it is one of :data:`SUBCOMMANDS`, so
``retrace-fix --diff path/`` works exactly as written.  Every command's options
are declared here; its work is one module of :mod:`retrace_fix.commands`,
imported only when that command runs: ``retrace-fix --check`` never imports
bench's or apply's modules, ``--help`` and ``--version`` import none of them
(a process pays only for the command it runs: pre-commit hooks, editors).

Exit codes (ruff's): 0 nothing to change / all applied; 1 ``--diff`` or
``--check`` found something; 2 an error (unparseable or unreadable file, bad
arguments, bad trace file).
"""

from __future__ import annotations

import atexit
import enum
import functools
import gc
import os
import signal
import sys
import threading
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Iterator, List, Optional

import typer

try:  # typer >= 0.24 vendors its own click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer on top of click
    from click import exceptions as click_exceptions

from retrace_fix import __version__
from retrace_fix.sources.writes import forget_swept_directories

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C

app = typer.Typer(
    name="retrace-fix",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Find and fix TensorFlow tf.function retracing. "
    "`retrace-fix PATH...` fixes in place; --diff shows a diff; --check lists findings.",
)


class OutputFormat(str, enum.Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


class ReportFormat(str, enum.Enum):
    text = "text"
    json = "json"


#: what ``retrace-fix`` alone prints (on stderr, exit 2) instead of an error and the whole help
USAGE_LINE = "usage: retrace-fix [--diff|--check|-i] [OPTIONS] PATH... (or a COMMAND; see retrace-fix --help)"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"retrace-fix {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Show the version and exit.", is_eager=True, callback=_show_version,
    ),
) -> None:
    """The options before a command (the app's help text is given to typer.Typer above)."""


def _fail(message: str) -> typer.Exit:
    typer.echo(f"retrace-fix: error: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def _split_codes(values: Optional[List[str]]) -> list[str]:
    codes: list[str] = []
    for value in values or []:
        codes.extend(c.strip().upper() for c in value.split(",") if c.strip())
    return codes


@app.command(
    "fix",
    short_help="Fix PATHs in place (the default command; also --diff, --check, -i, --verify ... -- CMD).",
    help="Fix PATHs in place (the default command; also --diff, --check, -i, --verify ... -- CMD). "
    "PATH `-` reads the source from standard input (name it with --stdin-filename).",
)
def fix_command(
    ctx: typer.Context,
    paths: List[str] = typer.Argument(None, metavar="PATH", help="files or directories; `-` reads standard input", show_default=False),
    diff: bool = typer.Option(False, "--diff", help="print a unified diff, write nothing (exit 1 if there is one)"),
    check: bool = typer.Option(False, "--check", help="list findings, write nothing (exit 1 if any)"),
    interactive: bool = typer.Option(False, "-i", "--interactive", help="show each hunk and ask before applying it"),
    traces: Optional[List[str]] = typer.Option(
        None, "--traces", metavar="FILE",
        help="recorded trace file, or ROOT=FILE for one root (repeatable; merged); applies only to the project it was recorded in",
    ),
    unsafe_fixes: Optional[bool] = typer.Option(None, "--unsafe-fixes/--no-unsafe-fixes", help="also apply fixes of the unsafe tier"),
    check_syntax: Optional[bool] = typer.Option(None, "--check-syntax/--no-check-syntax", help="also report syntax errors in files that cannot hold a target (never parsed otherwise)"),
    select: Optional[List[str]] = typer.Option(None, "--select", metavar="CODES", help="only these codes (comma list, prefixes allowed)"),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", metavar="CODES", help="all but these codes"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, metavar="N", help="worker processes (default: CPU count)"),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", metavar="GLOB", help="extra gitignore-style exclude pattern (repeatable)"),
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--format", help="findings output format"),
    patch_dir: Optional[Path] = typer.Option(None, "--patch-dir", metavar="DIR", help="write one .patch per repository root instead of touching files"),
    config: Optional[Path] = typer.Option(None, "--config", metavar="FILE", help="pyproject.toml to read [tool.retrace-fix] from"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no summary line, no hint"),
    stdin_filename: Optional[str] = typer.Option(None, "--stdin-filename", metavar="NAME", help="the file name of the source read from standard input (PATH `-`): it decides config, excludes and traces, and names it in the output"),
    show_fixes: bool = typer.Option(False, "--show-fixes", help="fix mode: also list every fix applied (path:line:col: CODE [*] ...)"),
    repos: Optional[str] = typer.Option(None, "--repos", metavar="FILE", help="file listing more roots, one per line: paths or git URLs with an optional @REV (# comments; '-' = stdin)"),
    summary: Optional[Path] = typer.Option(None, "--summary", metavar="FILE.md", help="write a per-root Markdown summary to FILE.md"),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", metavar="ADDRESS|local", help="run each root as a task on a Dask cluster (local: a LocalCluster of --jobs workers); needs the distributed package (the [dask] extra)"),
    shard: Optional[str] = typer.Option(None, "--shard", metavar="K/N", help="only the K-th of N slices of the roots (CI matrices)"),
    branch: Optional[str] = typer.Option(None, "--branch", metavar="NAME", help="commit the fixes to a new branch NAME in each changed git repository; files and the current branch are left alone"),
    verify: bool = typer.Option(False, "--verify", help="... PATH... -- CMD [ARGS...]: run CMD on a copy of the project before and after the fixes (recording its traces) and keep only the fixes the runs prove"),
    compare: Optional[List[str]] = typer.Option(None, "--compare", metavar="PATH", help="with --verify: a results file CMD writes (.npy/.npz/.json/text), compared with tolerance (repeatable)"),
    compare_stdout: Optional[str] = typer.Option(None, "--compare-stdout", metavar="REGEX", help="with --verify: compare only the stdout lines matching REGEX (default: all of stdout)"),
    rtol: float = typer.Option(1e-5, "--rtol", metavar="X", help="with --verify: relative tolerance for numbers"),
    atol: float = typer.Option(1e-8, "--atol", metavar="X", help="with --verify: absolute tolerance for numbers"),
    timeout: Optional[float] = typer.Option(None, "--timeout", metavar="SECONDS", help="with --verify: seconds per run of CMD before it is killed"),
    rounds: int = typer.Option(3, "--rounds", metavar="N", help="with --verify: fix rounds at most (each from the traces of the last proven run)"),
    max_runs: int = typer.Option(25, "--max-runs", metavar="N", help="with --verify: runs of CMD at most, the original's included"),
) -> None:
    from retrace_fix.commands.fix import run_fix_command
    from retrace_fix.fix_request import FixRequest

    repo_roots: list[str] = []
    if repos is not None:
        from retrace_fix.bulk.run import BulkError, read_repos_file

        try:
            repo_roots = read_repos_file(repos)
        except BulkError as exc:
            raise _fail(str(exc))
        if not repo_roots and not paths:
            raise _fail(f"--repos {repos}: lists no roots")
    if stdin_filename is not None and not paths and not repo_roots:
        paths = ["-"]  # as ruff does: --stdin-filename alone reads standard input
    if not paths and not repo_roots:
        raise _fail("no paths given (try `retrace-fix --diff .`)")
    modes = [name for name, on in (("--diff", diff), ("--check", check), ("--interactive", interactive)) if on]
    if len(modes) > 1:
        raise _fail(f"{modes[0]} and {modes[1]} cannot be combined")
    reads_stdin = "-" in (paths or [])
    if reads_stdin or stdin_filename is not None:
        problem = _stdin_problem(list(paths or []), stdin_filename, modes, output_format.value, {
            "--patch-dir": patch_dir, "--repos": repos, "--summary": summary, "--scheduler": scheduler,
            "--shard": shard, "--branch": branch,
        })
        if problem:
            raise _fail(problem)
    if show_fixes and modes:
        raise _fail(f"--show-fixes lists the fixes a fix run applies; {modes[0]} applies none")
    if show_fixes and patch_dir is not None:
        raise _fail("--show-fixes lists the fixes a fix run applies; --patch-dir applies none")
    if branch is not None:
        from retrace_fix.bulk.branches import check_branch_name

        if modes:
            raise _fail(f"--branch and {modes[0]} cannot be combined (--branch commits the fixes)")
        try:
            check_branch_name(branch)
        except ValueError as exc:
            raise _fail(str(exc))
    verify_options = None
    verify_command = (ctx.obj or {}).get("verify_command") if isinstance(ctx.obj, dict) else None
    if verify:
        from retrace_fix.fix_request import VerifyOptions

        if reads_stdin:
            raise _fail("--verify and PATH `-` cannot be combined (--verify runs the command on a copy of the project)")
        for name, value in (("--repos", repos), ("--scheduler", scheduler), ("--shard", shard), ("--summary", summary)):
            if value is not None:
                raise _fail(f"--verify and {name} cannot be combined (--verify runs one project's command)")
        verify_options = VerifyOptions(
            command=list(verify_command or []), compare=list(compare or []), compare_stdout=compare_stdout,
            rtol=rtol, atol=atol, timeout=timeout, rounds=rounds, max_runs=max_runs,
        )
    else:
        given = [name for name, on in (
            ("--compare", compare), ("--compare-stdout", compare_stdout is not None), ("--timeout", timeout is not None),
            ("--rounds", rounds != 3), ("--max-runs", max_runs != 25), ("--rtol", rtol != 1e-5), ("--atol", atol != 1e-8),
        ) if on]
        if given:
            raise _fail(f"{given[0]} only works with --verify")
    shard_slice = None
    if shard is not None:
        from retrace_fix.bulk.shard import Shard

        try:
            shard_slice = Shard.parse(shard)
        except ValueError as exc:
            raise _fail(str(exc))
    request = FixRequest(
        paths=[*(paths or []), *repo_roots],
        mode="diff" if diff else "check" if check else "interactive" if interactive else "fix",
        traces=list(traces or []),
        unsafe_fixes=unsafe_fixes,
        check_syntax=check_syntax,
        select=_split_codes(select) or None,
        ignore=_split_codes(ignore),
        jobs=jobs,
        exclude=list(exclude or []),
        output_format=output_format.value,
        patch_dir=patch_dir,
        config=config,
        quiet=quiet,
        repos=repo_roots,
        summary=summary,
        scheduler=scheduler,
        shard=shard_slice,
        branch=branch,
        stdin_filename=(stdin_filename or "-") if reads_stdin else None,
        show_fixes=show_fixes,
        verify=verify_options,
    )
    raise typer.Exit(run_fix_command(request))


def _stdin_problem(paths: list[str], stdin_filename: str | None, modes: list[str], output_format: str,
                   bulk: dict[str, object]) -> str | None:
    """Why a run that reads its source from standard input cannot go ahead (None: it can)."""
    if paths != ["-"]:
        if "-" in paths:
            return "`-` (standard input) cannot be combined with other paths"
        return "--stdin-filename names the source read from standard input: give `-` as the only PATH"
    if stdin_filename is not None and not stdin_filename.strip():
        return "--stdin-filename needs a file name"
    if "--interactive" in modes:
        return "--interactive reads its answers from standard input; it cannot read the source from there too"
    given = [name for name, value in bulk.items() if value is not None]
    if given:
        return f"{given[0]} cannot be combined with `-` (standard input)"
    if not modes and output_format != "text":
        return f"--format {output_format} with `-` needs --diff or --check (fixing writes the source to standard output)"
    return None


@app.command("codemods", short_help="List the codemods and diagnostics: code, tier, summary.",
             help="List the codemods and diagnostics: code, tier, summary.")
def codemods_command() -> None:
    from retrace_fix.commands.explain import list_codes

    raise typer.Exit(list_codes())


@app.command("explain", short_help="Print the documentation of a codemod or diagnostic code.",
             help="Print the documentation of a codemod or diagnostic code: rendered on a terminal, "
             "plain text when piped.")
def explain_command(code: str = typer.Argument(..., metavar="CODE", help="e.g. RTF002")) -> None:
    from retrace_fix.commands.explain import explain

    raise typer.Exit(explain(code))


@app.command(
    "record",
    short_help="Run CMD with the trace recorder; write every tf.function trace to FILE.",
    help=(
        "Run CMD with the trace recorder and write every tf.function trace to FILE; at the end, prove the "
        "candidate fixes on the live functions ($RETRACE_FIX_PROOF_SECONDS, default 60; 0: no proofs)."
    ),
    context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
)
def record_command(
    command: List[str] = typer.Argument(None, metavar="CMD", help="the command to run, after --"),
    output: Optional[str] = typer.Option(None, "-o", "--output", metavar="FILE", help="trace file (default .retrace/traces.json)"),
) -> None:
    from retrace_fix.commands.record import run_record

    if not command:
        raise _fail("no command given (usage: retrace-fix record [-o FILE] -- CMD [ARGS...])")
    raise typer.Exit(run_record(list(command), output))


@app.command("report", short_help="Per function: calls, traces, and which argument caused each retrace.",
             help="Per function: calls, traces, and which argument caused each retrace.")
def report_command(
    trace_files: Optional[List[str]] = typer.Argument(None, metavar="[TRACES]...",
                                                      help="trace files (merged); default: .retrace/traces.json, "
                                                           "what `retrace-fix record` writes"),
    output_format: ReportFormat = typer.Option(ReportFormat.text, "--format", help="report format"),
    plot: Optional[Path] = typer.Option(None, "--plot", metavar="FILE.png", help="also write a PNG chart (needs matplotlib)"),
) -> None:
    from retrace_fix.commands.report import run_report

    raise typer.Exit(run_report(list(trace_files or []), output_format.value, plot))


@app.command(
    "apply",
    short_help="Apply saved patches under a root; conflicts go to FILE.rej.",
    help="Apply saved patches (e.g. from --patch-dir) under --root. Each file's hunks apply "
    "all or nothing; a file whose hunks do not match is left untouched and its hunks go to "
    "FILE.rej. Paths outside the root are refused. Exit 0 applied, 1 some rejected, 2 errors.",
)
def apply_command(
    patches: List[str] = typer.Argument(..., help="patch files ('-' reads standard input)"),
    root: Path = typer.Option(Path("."), "--root", help="directory the patch paths are relative to"),
    dry_run: bool = typer.Option(False, "--dry-run", help="show what would apply; write nothing"),
) -> None:
    from retrace_fix.commands.apply import run_apply

    raise typer.Exit(run_apply(list(patches), root, dry_run))


@app.command(
    "bench",
    short_help="Run CMD before and after the fixes; compare traces, time, outputs.",
    help="Run CMD before and after the fixes (on copies of the project) and compare traces, time and outputs.",
    context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
)
def bench_command(
    command: List[str] = typer.Argument(None, help="the command to run, after --"),
    runs: int = typer.Option(3, "--runs", "-n", help="runs per tree (fresh processes)"),
    traces: Optional[List[str]] = typer.Option(None, "--traces", help="recorded trace file (repeatable; merged)"),
    unsafe_fixes: Optional[bool] = typer.Option(None, "--unsafe-fixes/--no-unsafe-fixes", help="also apply fixes of the unsafe tier"),
    select: Optional[List[str]] = typer.Option(None, "--select", help="only these codes (comma list, prefixes allowed)"),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="all but these codes"),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="gitignore-style pattern: not copied, not fixed (repeatable)"),
    compare: Optional[List[str]] = typer.Option(None, "--compare", help="results file CMD writes (.npy/.npz/.json/text), relative to the current directory (repeatable)"),
    compare_stdout: Optional[str] = typer.Option(None, "--compare-stdout", help="compare the stdout lines matching this regex (its groups, if any)"),
    rtol: float = typer.Option(1e-5, "--rtol", help="relative tolerance for numbers"),
    atol: float = typer.Option(1e-8, "--atol", help="absolute tolerance for numbers"),
    output_format: str = typer.Option("text", "--format", help="text, json or markdown"),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="seconds per run before it is killed"),
    keep: bool = typer.Option(False, "--keep", help="keep the temporary trees (their path is printed)"),
    config: Optional[Path] = typer.Option(None, "--config", help="pyproject.toml to read [tool.retrace-fix] from"),
    record: bool = typer.Option(True, "--record/--no-record", help="without --traces: fix from the traces of the original's first run"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress lines on stderr"),
) -> None:
    from retrace_fix.commands.bench import BenchRequest, run_bench

    request = BenchRequest(
        command=list(command or []),
        runs=runs,
        traces=list(traces or []),
        unsafe_fixes=unsafe_fixes,
        select=_split_codes(select) or None,
        ignore=_split_codes(ignore),
        exclude=list(exclude or []),
        compare=list(compare or []),
        compare_stdout=compare_stdout,
        rtol=rtol,
        atol=atol,
        output_format=output_format,
        timeout=timeout,
        keep=keep,
        config=config,
        quiet=quiet,
        record=record,
    )
    raise typer.Exit(run_bench(request))


SUBCOMMANDS = ("fix", "codemods", "explain", "record", "report", "apply", "bench")


def _normalise_argv(args: list[str]) -> list[str]:
    if not args:
        return args
    first = args[0]
    if first in SUBCOMMANDS or first in ("-h", "--help", "--version"):
        return args
    return ["fix", *args]


def split_verify_command(args: list[str]) -> tuple[list[str], list[str] | None]:
    """``fix ... --verify ... -- CMD ARGS``: the fix command's arguments, and CMD (None without both)."""
    if not args or args[0] != "fix" or "--" not in args:
        return args, None
    cut = args.index("--")
    if "--verify" not in args[:cut]:
        return args, None  # `--` before file names that start with a dash
    return args[:cut], args[cut + 1 :]


@functools.lru_cache(maxsize=None)
def _click_command(typer_app: typer.Typer):
    """The click command typer builds from ``typer_app``, built once per process.

    Typer builds the whole group again at every ``get_command`` (every command's parameters
    read from its signature) and each parameter's converter again with it: about 5 ms of a
    run, paid once by a ``retrace-fix`` process but at every call of :func:`main` by a process
    that calls it many times (the tests, ``tests/support/cli_runner.py``).  Nothing in it
    depends on the run: each call parses its arguments into a new click context."""
    return typer.main.get_command(typer_app)


def main(argv: list[str] | None = None) -> None:
    # File names that are not valid UTF-8 (surrogate escapes) must print, not crash:
    # stdout gets their original bytes back (so diffs still apply), stderr escapes.
    for stream, errors in ((sys.stdout, "surrogateescape"), (sys.stderr, "backslashreplace")):
        try:
            stream.reconfigure(errors=errors)
        except (AttributeError, ValueError, OSError):
            pass
    if argv is None:  # the process is this command's (the console script, ``python -m retrace_fix``)
        _no_collection_at_exit()
    args = _normalise_argv(list(sys.argv[1:] if argv is None else argv))
    if not args:  # a short usage line, not an error and the whole help
        typer.echo(USAGE_LINE, err=True)
        sys.exit(EXIT_ERROR)
    if args == ["--version"]:
        typer.echo(f"retrace-fix {__version__}")
        sys.exit(EXIT_OK)
    args, verify_command = split_verify_command(args)
    forget_swept_directories()  # each run sweeps stale temporary files again
    command = _click_command(app)
    interrupted = False
    try:
        with _started_first(args, own_process=argv is None), _noting_interrupts() as noted:
            code = command.main(args=args, prog_name="retrace-fix", standalone_mode=False,
                                obj={"verify_command": verify_command})
        interrupted = bool(noted) and code == 130  # typer turns Ctrl-C into a silent exit code 130
    except click_exceptions.UsageError as exc:
        typer.echo(f"retrace-fix: error: {exc.format_message()}", err=True)
        code = EXIT_ERROR
    except typer.Abort:  # typer's vendored click has no exceptions.Abort
        interrupted = True
    except click_exceptions.ClickException as exc:
        typer.echo(f"retrace-fix: error: {exc.format_message()}", err=True)
        code = EXIT_ERROR
    except KeyboardInterrupt:
        interrupted = True
    except BrokenPipeError:  # `retrace-fix --diff . | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        code = EXIT_OK
    if interrupted:
        typer.echo("retrace-fix: interrupted", err=True)
        code = EXIT_INTERRUPTED
    sys.exit(code if isinstance(code, int) else EXIT_OK)


def _no_collection_at_exit() -> None:
    """Leave out the garbage collection Python makes of everything still alive as it exits.

    An exit handler registered as the command starts freezes the heap (``gc.freeze``), so the
    interpreter's final collection has nothing to look at: 0.3 s of a ``--scheduler local``
    run's wall time (Dask's objects), 0.08 s of a small local one.  The handlers registered
    later (the temporary directories', multiprocessing's, Dask's) run before it, and none
    needs a collection: nothing is lost (open files are closed as their last reference goes,
    ours by ``with``; the standard streams are flushed).
    """
    global _COLLECTION_SKIPPED
    if not _COLLECTION_SKIPPED:
        _COLLECTION_SKIPPED = True
        atexit.register(gc.freeze)


_COLLECTION_SKIPPED = False


@contextmanager
def _started_first(args: list[str], own_process: bool) -> Iterator[None]:
    """What a run starts before anything else, so that its work overlaps this process's own
    (imports, typer parsing the arguments, a cluster's start), stopped when the command ends,
    however it ends:

    * the cloner of the git roots the arguments name, where they are ``file://`` URLs of
      repositories on this machine (:func:`retrace_fix.bulk.clone_ahead.clones_ahead`): for a run
      that clones them here, ``--scheduler local`` or none;
    * for ``--scheduler local``, the server its Dask workers are forked from
      (:func:`retrace_fix.bulk.worker_server.worker_server`; forked from this process where it is
      the command's own)."""
    local = any(arg == "--scheduler=local" or (arg == "--scheduler" and following == "local")
                for arg, following in zip(args, [*args[1:], None]))
    clones_here = local or not any(arg == "--scheduler" or arg.startswith("--scheduler=") for arg in args)
    names_git_roots = any("://" in arg or arg == "--repos" or arg.startswith("--repos=") for arg in args)
    with ExitStack() as started:  # nothing imported for a run of local paths
        if clones_here and names_git_roots:
            from retrace_fix.bulk.clone_ahead import clones_ahead

            started.enter_context(clones_ahead(_named_roots(args)))
        if local:
            from retrace_fix.bulk.worker_server import worker_server

            started.enter_context(worker_server(fork_here=own_process))
        yield


def _named_roots(args: list[str]) -> list[str]:
    """What may be roots in ``args`` before typer reads them, for the cloner: every argument and
    the lines of a ``--repos`` file (a regular file: not standard input, nor a pipe, which would
    be read empty after); the cloner keeps the git URLs of repositories on this machine.  A run
    of ``--shard`` has none: it runs part of them only."""
    if any(arg == "--shard" or arg.startswith("--shard=") for arg in args):
        return []
    named = list(args)
    for arg, following in zip(args, [*args[1:], None]):
        listing = following if arg == "--repos" else arg[len("--repos="):] if arg.startswith("--repos=") else None
        if listing and os.path.isfile(listing):  # not standard input, a pipe or a device: typer reads those
            from retrace_fix.bulk.run import BulkError, read_repos_file

            try:
                named += read_repos_file(listing)
            except BulkError:
                continue  # typer's turn to say so
    return named


@contextmanager
def _noting_interrupts():
    """Yield a list that gets an item when Ctrl-C comes; Ctrl-C still raises KeyboardInterrupt."""
    seen: list[bool] = []

    def on_sigint(signum: int, frame: object) -> None:
        seen.append(True)
        raise KeyboardInterrupt

    previous = None
    if threading.current_thread() is threading.main_thread():
        try:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when SIGINT is ignored
                previous = signal.signal(signal.SIGINT, on_sigint)
        except (ValueError, OSError):  # pragma: no cover - no signals here
            previous = None
    try:
        yield seen
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":  # pragma: no cover
    main()
