"""How the workers forked before the qrels are read are laid out: each first span holds
what its worker may read ahead while the plan is built, and the plan's memory, estimated
before the qrels are read, leaves them that room."""

from __future__ import annotations

from irgauge.evaluation import processes
from irgauge.evaluation.span_tasks import shrinking_spans
from irgauge.io.run_spans import Span

PIECE = 1000  # bytes of each piece of the run (a named input)


def _pieces(count: int):
    return [Span(k * PIECE, (k + 1) * PIECE, 6, None) for k in range(count)]


def _sizes(spans):
    return [s.end - s.start for s in spans]


def test_a_first_span_holds_what_its_worker_reads_ahead():
    pieces = _pieces(13)
    # 1/(2 x workers) of the pieces left: first spans of 4 and 3 pieces
    assert _sizes(shrinking_spans(pieces, 2)) == [4000, 3000, 2000, 1000, 1000, 1000, 1000]
    # a worker reads 5 pieces ahead: both first spans hold them, the rest shrink as before
    spans = shrinking_spans(pieces, 2, 5 * PIECE)
    assert _sizes(spans) == [5000, 5000, 1000, 1000, 1000]
    assert spans[0].start == 0 and spans[-1].end == 13 * PIECE
    assert all(a.end == b.start for a, b in zip(spans, spans[1:]))
    # more than the run holds: each worker still gets a first span
    assert _sizes(shrinking_spans(_pieces(3), 2, 10 * PIECE)) == [2000, 1000]


def test_the_plan_estimate_of_many_judgments_is_per_judgment_past_a_base(tmp_path, monkeypatch):
    lines = 2000
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{k // 100} 0 d{k} 1\n" for k in range(lines)))
    size = qrels.stat().st_size
    per, more = processes.PLAN_BYTES_PER_JUDGMENT, processes.PLAN_BYTES_PER_MORE_JUDGMENT
    monkeypatch.setattr(processes, "PLAN_BASE_BYTES", 10 * lines)
    # past the base, each judgment costs the larger qrels' measured figure
    assert processes._plan_bytes(str(qrels)) == 10 * lines + more * lines + size
    monkeypatch.setattr(processes, "PLAN_BASE_BYTES", 100 * lines)
    # below it, the smaller qrels' figure, which is the larger per judgment
    assert processes._plan_bytes(str(qrels)) == per * lines + size
