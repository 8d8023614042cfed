"""The one guard between irgauge and code it did not write: the function of a measure
registered with ``register_measure`` (from Python or by a plugin) and the import of a
measure plugin. Every engine (in memory, ``--memory``, Dask, and ``to_ir_measures``, which
evaluates through irgauge) computes a measure through ``Measure.compute``, which calls the
family's function: for a registered measure, a :class:`GuardedMeasure`.

- What a measure's function returns is a score only if it is one finite real number per
  row of the batch (:func:`read_values`): shape ``(rows,)``, of integers, floats or
  booleans (0 and 1), or an object array of real numbers (as every array given to irgauge
  is read, ``real_array``). Refused, naming the first offending topic where a value has
  one: complex numbers (numpy would drop the imaginary part), text, bytes, dates, records,
  ragged rows, masked values, another shape, NaN and ±inf, and for a measure declared
  ``integer=True`` a value that is not whole (a count is printed without decimals). NaN
  is never a score: irgauge's outputs carry no reason for an undefined value, so a
  measure undefined on a topic is an error rather than a number printed as one.
- What the function raises (any Exception, and SystemExit; not KeyboardInterrupt, which
  stops the command) becomes one :class:`UserCodeError` naming the measure, where it came
  from and the topic, with the exception chained for Python users: one line and exit 2 on
  the command line, never a traceback.
- numpy's floating-point warnings inside the function are not printed (a warning is not a
  line the command line prints): what they warn of, a NaN or an infinity in the result, is
  refused above. A caller's numpy error setting of ``raise`` still raises.
- A plugin that fails to import (:func:`load_plugin`) is recorded, not warned: the other
  plugins and every measure found work, and a measure name that is not found is refused
  naming each broken plugin (:func:`failure_note`), since the name may be one the broken
  plugin would have registered. ``irgauge measures`` notes each broken plugin.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from irgauge._checks import real_array
from irgauge.errors import InputError, UserCodeError

# plugin label -> why it failed to load ("ImportError: no module named ..."), in load order
FAILED: Dict[str, str] = {}
_LOADING: Dict[str, Optional[str]] = {"plugin": None}  # the plugin being imported
_LONGEST = 300  # characters of a user's exception message kept in the one line


def origin_of(function: Any) -> str:
    """Where a measure being registered comes from: the plugin being imported, else the
    function registered from Python (its module and name)."""
    if _LOADING["plugin"] is not None:
        return f"plugin {_LOADING['plugin']}"
    module = getattr(function, "__module__", None) or "?"
    name = getattr(function, "__qualname__", None) or type(function).__name__
    return f"function {module}.{name}"


def load_plugin(label: str, load: Callable[[], Any]) -> bool:
    """Import one plugin (``load()``); whether it loaded. A failure is kept in
    :data:`FAILED`, named by :func:`failure_note`; measures it registered before failing
    stay registered."""
    before = _LOADING["plugin"]
    _LOADING["plugin"] = label
    try:
        # what a plugin prints as it loads is no part of the command's output (a TSV
        # redirected to a file): standard error takes it
        with contextlib.redirect_stdout(sys.stderr):
            load()
    except (Exception, SystemExit) as err:  # noqa: BLE001  (a plugin's failure is reported)
        FAILED[label] = described(err)
        return False
    finally:
        _LOADING["plugin"] = before
    FAILED.pop(label, None)
    return True


def failure_note() -> str:
    """``; measure plugin X failed to load: ...`` for each plugin that failed ('' if none)."""
    return "".join(
        f"; measure plugin {label} failed to load: {why}" for label, why in FAILED.items()
    )


def described(err: BaseException) -> str:
    """``Type: message`` on one line, at most :data:`_LONGEST` characters of message."""
    text = " ".join(str(err).split())
    if len(text) > _LONGEST:
        text = text[: _LONGEST - 3] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


class GuardedMeasure:
    """A registered measure's function, called with every declared parameter (the declared
    defaults fill those not given), its answer read by :func:`read_values` and its failures
    raised as one UserCodeError naming ``name``, ``origin`` and the topic."""

    def __init__(
        self,
        name: str,
        function: Callable[..., Any],
        defaults: Dict[str, Any],
        origin: str,
        integer: bool = False,
    ):
        self.name, self.function, self.defaults = name, function, defaults
        self.origin, self.integer = origin, integer
        # the function's name and docstring, for whoever shows the family's function
        for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
            if hasattr(function, attr):
                setattr(self, attr, getattr(function, attr))

    def __call__(self, ranked, **params: Any) -> np.ndarray:
        try:
            with _numpy_quiet():
                answer = self.function(ranked, **{**self.defaults, **params})
                values, problem, row = read_values(answer, ranked.n_rows, self.integer)
        except (Exception, SystemExit) as err:  # noqa: BLE001  (user code: named, chained)
            raise UserCodeError(f"raised {described(err)}", self.name, self.origin) from err
        if problem is None:
            assert values is not None  # read_values gives one or the other
            return values
        error = UserCodeError(problem, self.name, self.origin, _topic(ranked, row))
        error.row = row
        raise error


def _topic(ranked, row: Optional[int]) -> Optional[str]:
    if row is None:
        return None
    return str(ranked.judgments.topic_ids[int(ranked.topic[row])])


def _numpy_quiet():
    """numpy's floating-point warnings off, its errors (a caller's setting of ``raise``) kept."""
    kept = {key: ("raise" if how == "raise" else "ignore") for key, how in np.geterr().items()}
    return np.errstate(**kept)


_READ = "biufO"  # bool, signed and unsigned integers, floats; objects (real numbers only)
# the largest magnitude of a value: its sums and means over up to 1e8 topics and runs (the
# aggregates, a bootstrap's resamples) stay finite, where 1e308 twice overflows to inf
LIMIT = 1e300
_ANSWER = f"a measure gives each (run, topic) one finite real number within +-{LIMIT:g}"


def read_values(
    answer: Any, n_rows: int, integer: bool = False
) -> Tuple[Optional[np.ndarray], Optional[str], Optional[int]]:
    """(the values as a float64 array of its own, None, None), or (None, the problem, the
    row of the first bad value or None): ``answer`` must hold one finite real number per
    row, ``shape == (n_rows,)``; a whole one if ``integer``."""
    if isinstance(answer, np.ma.MaskedArray) and np.ma.is_masked(answer):
        return None, f"returned masked values; {_ANSWER}", None
    try:  # an answer's __array__ or __float__ is user code too
        raw = np.asarray(answer)
        values = real_array(raw, "its result", copy=True) if raw.dtype.kind in _READ else None
    except (InputError, TypeError, ValueError, OverflowError):
        values = None
    except Exception as err:  # noqa: BLE001
        return None, f"returned {_kind_name(answer)} numpy cannot read ({described(err)})", None
    if values is None:
        return None, f"returned {_kind_name(answer)}, not real numbers; {_ANSWER}", None
    if values.shape != (n_rows,):
        return None, f"returned shape {values.shape}, not ({n_rows},); {_ANSWER}", None
    with np.errstate(invalid="ignore"):
        bad = ~(np.abs(values) <= LIMIT)  # NaN and inf too
    if integer:
        bad |= values != np.round(values)
    if not bad.any():
        return values, None, None
    row = int(np.argmax(bad))
    if integer and np.isfinite(values[row]):
        return None, f"returned {float(values[row])!r}; a count (integer=True) is whole", row
    return None, f"returned {float(values[row])!r}; {_ANSWER}", row


def _kind_name(answer: Any) -> str:
    """What an answer holds, for the message: ``complex128 values``, ``a list``, ..."""
    if isinstance(answer, np.ndarray):
        return f"{answer.dtype} values"
    return f"a {type(answer).__name__}"
