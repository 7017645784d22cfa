"""The ``retrace-fix`` command line (typer).

``retrace-fix [OPTIONS] PATH...`` is the fix command; the first argument picks a
subcommand only when it is one of :data:`SUBCOMMANDS`, so
``retrace-fix --diff path/`` works exactly as written.

Exit codes (ruff's): 0 nothing to change / all applied; 1 ``--diff`` or
``--check`` found something; 2 an error (unparseable or unreadable file, bad
arguments, bad trace file).
"""

from __future__ import annotations

import enum
import os
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import List, Optional

import typer

try:  # typer >= 0.24 vendors its own click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer on top of click
    from click import exceptions as click_exceptions

from retrace_fix import __version__

EXIT_OK, EXIT_FOUND, EXIT_ERROR = 0, 1, 2

app = typer.Typer(
    name="retrace-fix",
    add_completion=False,
    no_args_is_help=True,
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


def _fail(message: str) -> typer.Exit:
    typer.echo(f"retrace-fix: error: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def _split_codes(values: Optional[List[str]]) -> list[str]:
    codes: list[str] = []
    for value in values or []:
        codes.extend(c.strip().upper() for c in value.split(",") if c.strip())
    return codes


@app.command("fix", help="Fix PATHs in place (the default command; also --diff, --check, -i).")
def fix_command(
    paths: List[str] = typer.Argument(None, help="files or directories", show_default=False),
    diff: bool = typer.Option(False, "--diff", help="print a unified diff, write nothing (exit 1 if there is one)"),
    check: bool = typer.Option(False, "--check", help="list findings, write nothing (exit 1 if any)"),
    interactive: bool = typer.Option(False, "-i", "--interactive", help="show each hunk and ask before applying it"),
    traces: Optional[List[str]] = typer.Option(None, "--traces", help="recorded trace file (repeatable; merged)"),
    unsafe_fixes: Optional[bool] = typer.Option(None, "--unsafe-fixes/--no-unsafe-fixes", help="also apply fixes of the unsafe tier"),
    select: Optional[List[str]] = typer.Option(None, "--select", help="only these codes (comma list, prefixes allowed)"),
    ignore: Optional[List[str]] = typer.Option(None, "--ignore", help="all but these codes"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, help="worker processes (default: CPU count)"),
    exclude: Optional[List[str]] = typer.Option(None, "--exclude", help="extra gitignore-style exclude pattern (repeatable)"),
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--format", help="findings output format"),
    patch_dir: Optional[Path] = typer.Option(None, "--patch-dir", help="write one .patch per repository root instead of touching files"),
    config: Optional[Path] = typer.Option(None, "--config", help="pyproject.toml to read [tool.retrace-fix] from"),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="no summary line"),
    repos: Optional[str] = typer.Option(None, "--repos", help="file listing more roots, one per line (# comments; '-' = stdin)"),
    summary: Optional[Path] = typer.Option(None, "--summary", help="write a per-root Markdown summary to FILE.md"),
) -> None:
    from retrace_fix.run_fix import FixRequest, run_fix_command

    repo_roots: list[str] = []
    if repos is not None:
        from retrace_fix.bulk import BulkError, read_repos_file

        try:
            repo_roots = read_repos_file(repos)
        except BulkError as exc:
            raise _fail(str(exc))
        if not repo_roots and not paths:
            raise _fail(f"--repos {repos}: lists no roots")
    if not paths and not repo_roots:
        raise _fail("no paths given (try `retrace-fix --diff .`)")
    modes = [name for name, on in (("--diff", diff), ("--check", check), ("--interactive", interactive)) if on]
    if len(modes) > 1:
        raise _fail(f"{modes[0]} and {modes[1]} cannot be combined")
    request = FixRequest(
        paths=[*(paths or []), *repo_roots],
        mode="diff" if diff else "check" if check else "interactive" if interactive else "fix",
        traces=list(traces or []),
        unsafe_fixes=unsafe_fixes,
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
    )
    raise typer.Exit(run_fix_command(request))


@app.command("codemods", help="List the codemods and diagnostics: code, tier, summary.")
def codemods_command() -> None:
    from codemods import all_codes

    for code, cls in all_codes().items():
        extra = getattr(cls, "EXTRA_CODES", {}).get(code)
        if extra is not None:
            name, tier, summary = extra["name"], extra["tier"], extra["summary"]
        else:
            name, tier, summary = cls.NAME, cls.TIER.value, cls.SUMMARY
        tier = getattr(tier, "value", tier)
        typer.echo(f"{code}  {name:<24} {tier:<10} {summary}")
    raise typer.Exit(EXIT_OK)


@app.command("explain", help="Print the documentation of a codemod or diagnostic code.")
def explain_command(code: str = typer.Argument(..., help="e.g. RTF002")) -> None:
    from codemods import documentation

    doc = documentation(code)
    if doc is None:
        raise _fail(f"unknown code `{code}` (see `retrace-fix codemods`)")
    typer.echo(doc)
    raise typer.Exit(EXIT_OK)


@app.command(
    "record",
    help="Run CMD with the trace recorder and write every tf.function trace to FILE.",
    context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
)
def record_command(
    command: List[str] = typer.Argument(None, help="the command to run, after --"),
    output: Optional[str] = typer.Option(None, "-o", "--output", help="trace file (default .retrace/traces.json)"),
) -> None:
    from retrace_fix.traces.record_cmd import run_record

    if not command:
        raise _fail("no command given (usage: retrace-fix record [-o FILE] -- CMD [ARGS...])")
    raise typer.Exit(run_record(list(command), output))


@app.command("report", help="Per function: calls, traces, and which argument caused each retrace.")
def report_command(
    trace_files: List[str] = typer.Argument(..., help="trace files (merged)"),
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--format", help="text or json"),
    plot: Optional[Path] = typer.Option(None, "--plot", help="also write a PNG chart (needs matplotlib)"),
) -> None:
    from retrace_fix.traces.model import TraceFileError, load_trace_files
    from retrace_fix.traces.report import build_report, render_report

    try:
        trace_set = load_trace_files(list(trace_files))
    except TraceFileError as exc:
        raise _fail(str(exc))
    if output_format is OutputFormat.sarif:
        raise _fail("report supports --format text or json")
    reports = build_report(trace_set)
    sys.stdout.write(render_report(reports, output_format.value))
    if plot is not None:
        try:
            from retrace_fix.traces.plot import write_plot
        except ImportError as exc:
            raise _fail(f"--plot needs matplotlib ({exc})")
        try:
            write_plot(reports, plot)
        except OSError as exc:
            raise _fail(f"--plot {plot}: cannot write: {exc.strerror or exc}")
    raise typer.Exit(EXIT_OK)


SUBCOMMANDS = ("fix", "codemods", "explain", "record", "report", "apply", "bench")


def _optional_subcommands() -> None:
    """Register subcommands whose modules exist (apply, bench)."""
    try:
        from retrace_fix.apply_cmd import register as register_apply
    except ImportError:
        pass
    else:
        register_apply(app)
    try:
        from retrace_fix.bench import register as register_bench
    except ImportError:
        pass
    else:
        register_bench(app)


_optional_subcommands()


def _normalise_argv(args: list[str]) -> list[str]:
    if not args:
        return args
    first = args[0]
    if first in SUBCOMMANDS or first in ("-h", "--help", "--version"):
        return args
    return ["fix", *args]


def main(argv: list[str] | None = None) -> None:
    # File names that are not valid UTF-8 (surrogate escapes) must print, not crash:
    # stdout gets their original bytes back (so diffs still apply), stderr escapes.
    for stream, errors in ((sys.stdout, "surrogateescape"), (sys.stderr, "backslashreplace")):
        try:
            stream.reconfigure(errors=errors)
        except (AttributeError, ValueError, OSError):
            pass
    args = _normalise_argv(list(sys.argv[1:] if argv is None else argv))
    if args == ["--version"]:
        typer.echo(f"retrace-fix {__version__}")
        sys.exit(EXIT_OK)
    command = typer.main.get_command(app)
    try:
        with _noting_interrupts() as interrupted:
            code = command.main(args=args, prog_name="retrace-fix", standalone_mode=False)
        if interrupted and code == 130:  # typer turns Ctrl-C into a silent exit code 130
            typer.echo("retrace-fix: interrupted", err=True)
    except click_exceptions.UsageError as exc:
        typer.echo(f"retrace-fix: error: {exc.format_message()}", err=True)
        code = EXIT_ERROR
    except typer.Abort:  # typer's vendored click has no exceptions.Abort
        typer.echo("retrace-fix: interrupted", err=True)
        code = 130
    except click_exceptions.ClickException as exc:
        typer.echo(f"retrace-fix: error: {exc.format_message()}", err=True)
        code = EXIT_ERROR
    except KeyboardInterrupt:
        typer.echo("retrace-fix: interrupted", err=True)
        code = 130
    except BrokenPipeError:  # `retrace-fix --diff . | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        code = EXIT_OK
    sys.exit(code if isinstance(code, int) else EXIT_OK)


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
