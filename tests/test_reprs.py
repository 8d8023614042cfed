"""Small results read small: reprs like a DataFrame's head, with an HTML form for notebooks."""

from pathlib import Path

from irgauge import compare_table, evaluate
from irgauge.meta import discriminative_power
from irgauge.evaluation import score_matrices

SAMPLE = Path(__file__).resolve().parents[1] / "src" / "irgauge" / "data" / "sample"
RUNS = sorted((SAMPLE / "runs").glob("*.run"))
MEASURES = ["nDCG@10", "P@10", "AP", "RR", "P@5", "P@20", "nDCG@20", "R-prec"]


def test_eval_result_repr_is_a_head():
    result = evaluate(SAMPLE / "qrels.txt", RUNS, MEASURES)
    text = repr(result)
    lines = text.splitlines()
    assert len(lines) <= 14 and len(text) < 1200
    assert "12 runs x 8 measures" in text and "20 topics" in text
    assert "order score" in text and "aggregate mean" in text
    assert "7 more rows" in text and "2 more columns" in text
    html = result._repr_html_()
    assert html.startswith("<div>") and "<table" in html and len(html) < 5000
    # the full per-topic table is not in either
    assert str(SAMPLE) not in text and len(result.per_topic) > 1000


def test_meta_result_repr_is_a_head():
    matrices = score_matrices(SAMPLE / "qrels.txt", RUNS, ["AP", "P@10"])
    result = discriminative_power(matrices, samples=100, seed=1)
    text = repr(result)
    assert text.startswith("<MetaResult discriminative_power")
    assert len(text.splitlines()) <= 12 and len(text) < 1200
    assert "seed 1" in text and "12 systems, 20 topics" in text
    assert len(result._repr_html_()) < 5000


def test_incomplete_and_comparison_reprs_are_short():
    from irgauge.studies.incomplete_result import incomplete_study

    result = incomplete_study(
        SAMPLE / "qrels.txt", RUNS[:4], ["AP"], rates=(50,), seed=1, samples=50
    )
    text = repr(result)
    assert text.startswith("<IncompleteResult") and len(text.splitlines()) <= 10
    assert len(result._repr_html_()) < 5000
    table = compare_table(evaluate(SAMPLE / "qrels.txt", RUNS[:3], ["AP"]))
    assert len(repr(table).splitlines()) <= 12
