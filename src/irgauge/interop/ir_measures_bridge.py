"""irgauge's measures as ir_measures measure objects (``irgauge.to_ir_measures``).

Each object is built with ``ir_measures.define``: ir_measures hands it the qrels and the
run as DataFrames (query_id, doc_id, relevance / score), and irgauge computes the measure
with its own conventions (score order with ties by docno descending, as trec_eval; every
qrels topic the run answers is scored, topics without relevant documents included, as
ir_measures' other providers do). ``ir_measures.calc_aggregate``, ``iter_calc`` and
PyTerrier's ``pt.Experiment(..., eval_metrics=[...])`` then give irgauge's values:
Q-measure, P-plus, NWRR, the bpref/rpref family, NTCIREVAL's spellings, ...
"""

from __future__ import annotations

from typing import Any, Iterable, List, Tuple, Union

from irgauge.errors import MeasureError
from irgauge.measures import parse_measure
from irgauge.measures.parse import measure_texts
from irgauge.evaluation import evaluate


def to_ir_measures(names: Union[str, Iterable[str]], **options: Any) -> Any:
    """One ir_measures measure per irgauge measure name (a string gives one object, a list
    a list). ``options`` go to :func:`irgauge.evaluate` (``gains``, ``rel_level``, ...).
    Measures registered with ``irgauge.register_measure`` or by a measure plugin are
    names like any other."""
    try:
        import ir_measures
    except ImportError:
        raise MeasureError("to_ir_measures needs ir_measures (pip install ir_measures)") from None

    one = isinstance(names, str) or names is None  # None: refused by parse_measure
    given: List[Any] = [names] if one else measure_texts(names)
    out = []
    for name in given:
        measure = parse_measure(name)
        defined = ir_measures.define(
            _impl(measure, options),
            name=measure.name,
            support_cutoff=False,
            pretty_name=f"irgauge {measure.full}",
            short_desc=measure.family.summary,
        )
        # ir_measures compares measures by their text: irgauge's AP must not be equal to
        # (and be merged with) ir_measures' own AP in a result dict
        kind: Any = type(defined)
        kind.IRGAUGE = True
        kind.__eq__ = _same
        kind.__hash__ = _hash
        out.append(defined)
    return out[0] if one else out


def _same(self, other) -> bool:
    return getattr(other, "IRGAUGE", False) and repr(self) == repr(other)


def _hash(self) -> int:
    return hash(("irgauge", repr(self)))


def _impl(measure, options):
    def compute(qrels, run) -> List[Tuple[str, float]]:

        if len(run) == 0:
            return []
        kwargs = {"order": "score", "empty_topics": "zero", **options}
        result = evaluate(qrels, {"run": run}, [measure], **kwargs)
        columns = result.per_topic_columns
        return [(str(t), float(v)) for t, v in zip(columns["topic"], columns["value"])]

    return compute
