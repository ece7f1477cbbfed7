"""gpmc from Python: check, load, eval, sweep, search, validate and project .gpm models (docs/python.md).

Every function returns the JSON document of the gpmc command it mirrors as plain Python data (a Result, which is a
dict, with to_dataframe() where pandas is installed); errors raise gpmc.Error with the diagnostics. Parameters are
set and varied as on the command line:

    import gpmc
    r = gpmc.eval("machines/titan.gpm", "apps/bandwidth.gpm", set={"bytes": "1GiB"})
    s = gpmc.sweep("machines/titan.gpm", "apps/bandwidth.gpm", vary={"bytes": "1B..1GiB*2"})
    s.to_dataframe()

The plots (gpmc.plot) read the same documents, or gpmc's CSV and JSON files, and need matplotlib only.
"""
import os
from pathlib import Path

__all__ = ["Error", "Result", "Model", "check", "load", "eval", "compare_strategies", "timeline", "sweep", "search",
           "validate", "project", "stdlib_dir", "available"]

try:
    from . import _core
    _core_error = None
except ImportError as e:  # the module was not built (no pybind11): the plots still work
    _core = None
    _core_error = e


def available():
    """Whether the compiled module (gpmc._core) is there; the plots need only matplotlib."""
    return _core is not None


class Error(Exception):
    """gpmc reported errors. `text` is what gpmc prints (file:line:col, the source line, a caret), `diagnostics` a
    list of dicts with file, line, column, severity, kind, message and notes."""

    def __init__(self, text, diagnostics):
        super().__init__(text)
        self.text = text
        self.diagnostics = diagnostics

    def __str__(self):
        return self.text.rstrip("\n")


class Result(dict):
    """The JSON document of a gpmc command as a dict; to_dataframe() gives its main table as a pandas DataFrame."""

    def __init__(self, doc, table):
        super().__init__(doc)
        self._table = table

    def rows(self):
        """The main table as a list of dicts (one per row): what to_dataframe() puts in columns."""
        return self._table(self)

    def to_dataframe(self):
        try:
            import pandas
        except ImportError as e:
            raise ImportError("to_dataframe() needs pandas (apt-get install python3-pandas); rows() gives the same "
                              "table as a list of dicts") from e
        return pandas.DataFrame(self.rows())


def stdlib_dir():
    """The standard library, found as gpmc finds it: $GPMC_STDLIB, else the installed share/gpmc/stdlib of the prefix
    this package is installed under (P/lib/pythonX.Y/site-packages/gpmc), else the source tree's."""
    env = os.environ.get("GPMC_STDLIB")
    if env:
        return env
    here = Path(__file__).resolve().parent
    if len(here.parents) > 3:
        installed = here.parents[3] / "share" / "gpmc" / "stdlib"
        if installed.is_dir():
            return str(installed)
    if _core is not None and Path(_core.source_stdlib).is_dir():
        return _core.source_stdlib
    return ""


def _need_core():
    if _core is None:
        raise ImportError(f"the gpmc module was not built (pybind11 missing at build time: apt-get install "
                          f"pybind11-dev python3-pybind11, then rebuild): {_core_error}")
    return _core


def _text(value):
    """A --set or --vary value as typed: strings as they are, numbers in Python's shortest form, lists joined."""
    if isinstance(value, bool):
        raise TypeError("a parameter value is a number with its unit or a word, not a bool")
    if isinstance(value, (list, tuple, range)):
        return ",".join(_text(v) for v in value)
    return value if isinstance(value, str) else repr(value)


def _settings(values, what):
    """{"bytes": "1GiB"} or ["bytes=1GiB"] to ["bytes=1GiB"]."""
    if values is None:
        return []
    if isinstance(values, dict):
        return [f"{name}={_text(value)}" for name, value in values.items()]
    if isinstance(values, str):
        raise TypeError(f"{what}: a dict such as {{'bytes': '1GiB'}} or a list of 'name=value' strings")
    return [str(v) for v in values]


def _request(set=None, include=(), werror=False, strategy=None):
    """What every call of the module takes: the settings, --include folders, --Werror, --strategy, the stdlib."""
    request = _need_core().Request()
    request.sets = _settings(set, "set")
    request.include_dirs = [str(p) for p in include]
    request.warnings_as_errors = bool(werror)
    request.strategy = strategy or ""
    request.stdlib_dir = stdlib_dir()
    return request


def _call(function, request, *args, **kwargs):
    core = _need_core()
    try:
        return getattr(core, function)(request, *args, **kwargs)
    except core.Failure as e:
        text, diagnostics = e.args
        raise Error(text, diagnostics) from None


# The main table of each document, one dict per row.
def _eval_rows(doc):
    return [dict(phase=p["name"], operation=o["name"], kind=o.get("kind"), model=o.get("model"),
                 count=o.get("count"), time_s=o.get("time_s"), share=o.get("share"))
            for p in doc["phases"] for o in p.get("operations", [])]


def _strategy_rows(doc):
    return [dict(rank=k + 1, strategy=s["name"], total_s=s["total_s"]) for k, s in enumerate(doc["strategies"])]


def _sweep_rows(doc):
    axes = [a["name"] for a in doc["varied"]]
    rows = []
    for p in doc["points"]:
        row = {a: p[a] for a in axes}
        row["total_s"] = p["total_s"]
        for name, value in zip(doc["phases"], p["phases_s"] or [None] * len(doc["phases"])):
            row[name] = value
        row["error"] = p.get("error", "")
        rows.append(row)
    return rows


def _search_rows(doc):
    return [dict(order=i, makespan_s=m) for i, m in enumerate(doc.get("makespans", []))]


def _validate_rows(doc):
    return [dict(line=p["line"], **p["params"], measured_s=p["measured_s"], predicted_s=p["predicted_s"],
                 error=p["error"]) for p in doc["points"]]


def _project_rows(doc):
    return list(doc["copies"])


def check(*files, include=(), werror=False):
    """gpmc check FILES: the warnings as a list of dicts; raises Error when a file has errors."""
    return _call("check", _request(include=include, werror=werror), [str(f) for f in files])


def eval(machine, app, *, set=None, backend="interp", strategy=None, include=(), werror=False):
    """gpmc eval --format json; to_dataframe(): one row per operation (phase, operation, model, time_s, share)."""
    doc = _call("eval", _request(set, include, werror, strategy), str(machine), str(app), backend=backend)
    return Result(doc, _eval_rows)


def compare_strategies(machine, app, *, set=None, include=(), werror=False):
    """gpmc eval --compare strategy --format json: the app's report with `strategies` ranked, fastest first;
    to_dataframe(): rank, strategy, total_s."""
    return Result(_call("compare_strategies", _request(set, include, werror), str(machine), str(app)), _strategy_rows)


def timeline(machine, app, *, set=None, strategy=None, include=(), werror=False):
    """gpmc eval --timeline FILE: the run as Chrome trace events (a dict with traceEvents)."""
    return _call("timeline", _request(set, include, werror, strategy), str(machine), str(app))


def sweep(machine, app, vary, *, set=None, backend="jit", threads=0, max_points=0, strict=False, include=(),
          werror=False):
    """gpmc sweep --format json. `vary` maps each parameter to a range as --vary takes it ("1B..1GiB*2",
    "1024:16384:1024", "pinned,pageable", or a list of values); to_dataframe(): one row per point, the varied
    parameters (base units), total_s, each phase and error (empty, or why the point could not be evaluated)."""
    doc = _call("sweep", _request(set, include, werror), str(machine), str(app), _settings(vary, "vary"),
                backend=backend, threads=threads, max_points=max_points, strict=strict)
    return Result(doc, _sweep_rows)


def search(machine, app, *, set=None, threads=0, max_orders=20_000_000, makespans=False, include=(), werror=False):
    """gpmc search --format json (with slowest_index); with makespans=True, `makespans` lists every order's makespan
    by order index (as --orders-out writes them) and to_dataframe() has one row per order."""
    doc = _call("search", _request(set, include, werror), str(machine), str(app), threads=threads,
                max_orders=max_orders, makespans=makespans)
    return Result(doc, _search_rows)


def validate(machine, app, measured, *, set=None, backend="interp", include=(), werror=False):
    """gpmc validate --measured FILE --format json; to_dataframe(): one row per measured point."""
    doc = _call("validate", _request(set, include, werror), str(machine), str(app), str(measured), backend=backend)
    return Result(doc, _validate_rows)


def project(trace, from_machine, to_machine, *, measured_on_b=None, include=()):
    """gpmc project --format json; to_dataframe(): one row per copy of the trace."""
    doc = _call("project", _request(include=include), str(trace), str(from_machine), str(to_machine),
                measured_on_b=str(measured_on_b or ""))
    return Result(doc, _project_rows)


class Model:
    """A machine and an app, compiled and checked once by load(); each method evaluates them with the settings given
    to load() and its own `set` on top (a name set in both takes the method's value)."""

    def __init__(self, machine, app, set, include, werror, doc):
        self.machine_file, self.app_file = str(machine), str(app)
        self.machine, self.app = doc["machine"], doc["app"]
        self.params = doc["params"]
        self.warnings = doc["warnings"]
        self._set = dict(s.split("=", 1) for s in _settings(set, "set"))
        self._common = dict(include=include, werror=werror)

    def _merged(self, set):
        merged = dict(self._set)
        merged.update(dict(s.split("=", 1) for s in _settings(set, "set")))
        return merged

    def __repr__(self):
        return f"gpmc.Model({self.app} on {self.machine})"

    def eval(self, *, set=None, **kwargs):
        return eval(self.machine_file, self.app_file, set=self._merged(set), **self._common, **kwargs)

    def sweep(self, vary, *, set=None, **kwargs):
        return sweep(self.machine_file, self.app_file, vary, set=self._merged(set), **self._common, **kwargs)

    def search(self, *, set=None, **kwargs):
        return search(self.machine_file, self.app_file, set=self._merged(set), **self._common, **kwargs)

    def validate(self, measured, *, set=None, **kwargs):
        return validate(self.machine_file, self.app_file, measured, set=self._merged(set), **self._common, **kwargs)

    def compare_strategies(self, *, set=None):
        return compare_strategies(self.machine_file, self.app_file, set=self._merged(set), **self._common)

    def timeline(self, *, set=None, **kwargs):
        return timeline(self.machine_file, self.app_file, set=self._merged(set), **self._common, **kwargs)


def load(machine, app, *, set=None, include=(), werror=False):
    """Compiles MACHINE and APP with `set` and evaluates their parameters (every check gpmc eval makes before it
    runs the app); returns a Model whose params list each parameter's value, or raises Error."""
    doc = _call("load", _request(set, include, werror), str(machine), str(app))
    return Model(machine, app, set, list(include), werror, doc)
