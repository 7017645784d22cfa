"""What a run prints: diffs, findings and the summary as text or JSON, SARIF, the next-step hint.

* :mod:`~retrace_fix.output.render` - diffs, findings, the summary line; text (coloured only
  on a terminal) and JSON;
* :mod:`~retrace_fix.output.sarif` - ``--format sarif``: the run as a SARIF 2.1.0 log;
* :mod:`~retrace_fix.output.next_step` - the line that points a first run to its next step.
"""
