"""``retrace-fix --verify``: record, fix and prove each fix by running the user's own program.

::

    retrace-fix --verify [OPTIONS] PATH... -- CMD [ARGS...]

One command does record → fix → prove, on copies of the project (the user's
tree is only read until the verified fixes are written):

1. CMD runs on a copy of the original under the trace recorder: the
   *baseline* (its exit code, its outputs, its traces);
2. the engine computes the *candidate* fixes from those traces (or from
   ``--traces``): the safe and unsafe tiers, and the diagnostics a codemod
   refuses only for lack of evidence (``report(..., verifiable=True)``);
3. CMD runs again with the candidates applied; a set of fixes is kept only
   when the program exits as before, its outputs match (numbers within
   tolerance) and it traces less (:mod:`~retrace_fix.verify.judge`); failing
   fixes are bisected out (:mod:`~retrace_fix.verify.search`), each with the
   reason;
4. the run that proved the kept fixes recorded the fixed program: its traces
   drive the next round (chained fixes: RTF002 makes a crashing program run,
   then RTF003 from the new traces), until a round has nothing new or
   ``--rounds`` is reached.

Modules: :mod:`~retrace_fix.verify.fix_units` (the engine on the copy: the
candidate fixes, grouped into units, and the text of any subset),
:mod:`~retrace_fix.verify.judge` (one run against the baseline),
:mod:`~retrace_fix.verify.search` (which units pass together),
:mod:`~retrace_fix.verify.session` (copies, runs and rounds) and
:mod:`~retrace_fix.verify.summary` (what happened: per fix, per run, the bench
table, JSON and the ``--branch`` commit message).  Runs reuse
:mod:`retrace_fix.bench`'s machinery.  Nothing here imports TensorFlow.
"""


class VerifyError(Exception):
    """Bad input for a --verify run (one line, exit 2)."""
