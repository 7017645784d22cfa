"""``retrace-fix report --plot``: the bars drawn, the PNG written, the error without matplotlib."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from retrace_fix.traces.model import TraceSet
from retrace_fix.traces.retrace_report import build_report
from tests.support.cli_runner import run_cli


def tensor(shape):
    return {"kind": "tensor", "shape": shape, "dtype": "float32"}


def function(file, qualname, line, calls, traces):
    return {
        "file": file, "qualname": qualname, "firstlineno": line, "name": qualname.split(".")[-1],
        "params": ["x"], "calls": calls, "reduce_retracing": False, "has_input_signature": False,
        "traces": traces,
    }


TRACES = {
    "format": "retrace-fix-traces",
    "version": 1,
    "tensorflow": "2.21.0",
    "functions": [
        function("train.py", "Trainer.step", 12, 300,
                 [{"args": {"x": tensor([b, 50])}, "count": 1, "nested": False, "via": "call"} for b in (16, 32, 64)]),
        function("serve.py", "predict", 3, 40,
                 [{"args": {"x": tensor([16, 50])}, "count": 5, "nested": False, "via": "call"}]),
        function("ops.py", "fixed", 7, 1000,
                 [{"args": {"x": tensor([4])}, "count": 1, "nested": False, "via": "call"}]),
    ],
}


@pytest.fixture
def trace_file(tmp_path):
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(TRACES), encoding="utf-8")
    return path


def test_rows_split_first_trace_retraces_and_repeats():
    pytest.importorskip("matplotlib")
    from retrace_fix.traces.plot import plot_rows

    rows, left_out = plot_rows(build_report(TraceSet.from_json(TRACES)))
    assert left_out == 0
    assert [(r.label, r.first, r.retraces, r.repeats, r.calls, r.seconds) for r in rows] == [
        ("predict  (serve.py:3)", 1, 0, 4, 40, None),  # the same trace 5 times: re-created tf.function
        ("Trainer.step  (train.py:12)", 1, 2, 0, 300, None),  # 3 shapes: 2 retraces
        ("fixed  (ops.py:7)", 1, 0, 0, 1000, None),
    ]
    rows, left_out = plot_rows(build_report(TraceSet.from_json(TRACES)), limit=2)
    assert (len(rows), left_out) == (2, 1)


def test_time_spent_tracing_is_used_when_reports_carry_it():
    pytest.importorskip("matplotlib")
    from retrace_fix.traces.plot import build_figure, plot_rows

    class Timed:
        def __init__(self, report, seconds):
            self.__dict__.update(vars(report))
            self.trace_seconds = seconds

    reports = [Timed(r, s) for r, s in zip(build_report(TraceSet.from_json(TRACES)), (0.5, 1.25, 0.01))]
    rows, _ = plot_rows(reports)
    assert [r.seconds for r in rows] == [0.5, 1.25, 0.01]
    assert len(build_figure(reports).axes) == 2  # traces and time panels
    assert len(build_figure(build_report(TraceSet.from_json(TRACES))).axes) == 1


def timed_traces():
    """TRACES with known times: Trainer.step 0.5 + 0.25 + 0.125 s, predict 0.2 s (×5), fixed 0.004 s."""
    data = json.loads(json.dumps(TRACES))
    times = {"Trainer.step": [0.5, 0.25, 0.125], "predict": [0.2], "fixed": [0.004]}
    for item in data["functions"]:
        for trace, seconds in zip(item["traces"], times[item["qualname"]], strict=True):
            trace["seconds"] = seconds
    return data


def test_time_panel_from_a_trace_file_with_seconds(tmp_path):
    pytest.importorskip("matplotlib")
    from retrace_fix.traces.plot import build_figure, plot_rows

    reports = build_report(TraceSet.from_json(timed_traces()))
    rows, _ = plot_rows(reports)
    assert [(r.label, r.seconds, r.retrace_seconds) for r in rows] == [
        ("predict  (serve.py:3)", 0.2, 0.0),
        ("Trainer.step  (train.py:12)", 0.875, 0.375),
        ("fixed  (ops.py:7)", 0.004, 0.0),
    ]
    figure = build_figure(reports)
    assert len(figure.axes) == 2
    time_axes = figure.axes[1]
    assert time_axes.get_title(loc="left") == "time in traced calls (35% in retraces)"  # 0.375 of 1.079 s
    assert [t.get_text() for t in time_axes.texts] == [" 0.200 s", " 0.875 s", " 0.004 s"]
    first, retraces = time_axes.containers  # stacked: the first trace's calls, then the retraces'
    assert [round(bar.get_width(), 6) for bar in first] == [0.2, 0.5, 0.004]
    assert [(round(bar.get_x(), 6), round(bar.get_width(), 6)) for bar in retraces] == [(0.2, 0.0), (0.5, 0.375), (0.004, 0.0)]

    path = tmp_path / "traces.json"
    path.write_text(json.dumps(timed_traces()), encoding="utf-8")
    code, out, _ = run_cli("report", str(path), "--plot", str(tmp_path / "chart.png")).outcome
    assert code == 0
    assert "  time: 0.875 s in traced calls, 0.375 s (43%) in retraces\n" in out
    assert out.endswith("time in traced calls: 1.079 s, 0.375 s (35%) in retraces\n")
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_plot_writes_a_png(trace_file, tmp_path):
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    code, out, err = run_cli("report", str(trace_file), "--plot", "chart.png", cwd=tmp_path).outcome
    assert code == 0
    assert "Trainer.step" in out  # the text report is still printed
    assert err == "retrace-fix: wrote the plot to chart.png\n"
    data = (tmp_path / "chart.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    height, width = imread(str(tmp_path / "chart.png")).shape[:2]
    assert width > 600 and height > 200


def test_empty_trace_set_still_gives_a_chart(tmp_path):
    pytest.importorskip("matplotlib")
    from retrace_fix.traces.plot import write_plot

    write_plot([], tmp_path / "empty.png")
    assert (tmp_path / "empty.png").read_bytes()[:4] == b"\x89PNG"


def test_plot_without_matplotlib_is_a_clear_error(trace_file, tmp_path):
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules["matplotlib"] = None  # as if it were not installed
        from retrace_fix.cli import main
        main(["report", {str(trace_file)!r}, "--plot", {str(tmp_path / "chart.png")!r}])
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--plot needs matplotlib" in proc.stderr
    assert "pip install matplotlib, or retrace-fix's [plot] extra" in proc.stderr
    assert not (tmp_path / "chart.png").exists()


def test_report_plot_that_cannot_be_written_is_one_line_exit_2(trace_file, tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "missing" / "chart.png"
    code, _, err = run_cli("report", str(trace_file), "--plot", str(target)).outcome
    assert code == 2
    assert err == f"retrace-fix: error: cannot write {target}: No such file or directory\n"
