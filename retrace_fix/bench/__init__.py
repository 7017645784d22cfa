"""``retrace-fix bench``'s machinery: copy the project, run CMD before and after, compare, report.

* :mod:`~retrace_fix.bench.copying` - the two copies of the project (excludes, size limit);
* :mod:`~retrace_fix.bench.options` - the options bench and ``--verify`` share: checks, error texts, the project;
* :mod:`~retrace_fix.bench.runs` - one run of CMD under the recorder and the timing probe;
* :mod:`~retrace_fix.bench.probe` - the timing probe loaded into every Python process of a run;
* :mod:`~retrace_fix.bench.outputs` - loading and comparing what the runs wrote;
* :mod:`~retrace_fix.bench.verdict` - the report, its verdict and exit code;
* :mod:`~retrace_fix.bench.render` - the report as text, Markdown, a rich table or JSON.

The command itself (arguments, the fix step, the order of the runs) is
:mod:`retrace_fix.commands.bench`.  Nothing here imports TensorFlow, and this
package's ``__init__`` stays cheap: the probe is imported in the user's program.
"""


class BenchError(Exception):
    """A bad argument or an unusable project: reported, exit 2."""
