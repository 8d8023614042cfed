"""eval's output is made block by block (irgauge.evaluation.rendering.evaluation_blocks):
the same bytes whatever the block size, JSON equal to json.dumps of the whole records, and
a per-topic output whose text is never held whole."""

from __future__ import annotations

import json
import subprocess
import sys
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import examples, slow_after

import irgauge
from irgauge.evaluation import rendering
from irgauge.evaluation.rendering import EVAL_FORMATS, evaluation_blocks, render_evaluation

topic_ids = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=6,
).filter(lambda t: t != "all" and "#" not in t)


@st.composite
def collections(draw):
    """Qrels and two runs over up to 8 topics with odd ids; some topics unanswered."""
    topics = draw(st.lists(topic_ids, min_size=1, max_size=8, unique=True))
    qrels = {t: {f"d{k}": draw(st.integers(0, 2)) for k in range(3)} for t in topics}
    runs = {}
    for name in ("a", "b"):
        answered = draw(st.lists(st.sampled_from(topics), max_size=len(topics), unique=True))
        runs[name] = {
            t: {f"d{k}": float(draw(st.integers(0, 3))) for k in range(draw(st.integers(1, 5)))}
            for t in answered
        }
    if not any(runs.values()):
        runs["a"] = {topics[0]: {"d0": 1.0}}
    return qrels, runs


def _result(qrels, runs):
    return irgauge.evaluate(qrels, runs, ["P@2", "AP", "num_rel_ret", "nDCG@3"], complete=True)


@settings(max_examples=examples(40), deadline=None)
@given(collections(), st.sampled_from(EVAL_FORMATS), st.booleans(), st.integers(1, 4))
def test_same_bytes_whatever_the_block_size(data, fmt, per_topic, rows):
    result = _result(*data)
    whole = render_evaluation(result, fmt, per_topic)
    with mock.patch.object(rendering, "ROWS_PER_BLOCK", rows):
        assert "".join(evaluation_blocks(result, fmt, per_topic)) == whole


@settings(max_examples=examples(40), deadline=None)
@given(collections(), st.booleans(), st.integers(1, 4))
def test_json_is_json_dumps_of_the_records(data, per_topic, rows):
    """The JSON blocks give exactly the bytes json.dumps(indent=2) gives for the records."""
    result = _result(*data)
    cols = result.columns(per_topic)
    records = [
        {"run": r, "measure": m, "topic": t, "value": None if v != v else v}
        for r, m, t, v in zip(cols["run"], cols["measure"], cols["topic"], cols["value"].tolist())
    ]
    expected = json.dumps(
        {"metadata": dict(result.metadata), "results": records}, indent=2, default=str
    )
    with mock.patch.object(rendering, "ROWS_PER_BLOCK", rows):
        assert render_evaluation(result, "json", per_topic) == expected + "\n"


def test_json_of_non_finite_values_and_no_rows(monkeypatch):
    result = _result({"q1": {"d1": 1}}, {"a": {"q1": {"d1": 1.0}}})
    store = result.topic_values.stores[0]
    store._matrix = np.array([[np.nan], [np.inf], [-np.inf], [0.5]])  # a value per measure
    monkeypatch.setattr(rendering, "ROWS_PER_BLOCK", 1)
    records = json.loads(render_evaluation(result, "json", True))["results"]
    assert [r["value"] for r in records[:4]] == [None, float("inf"), float("-inf"), 0.5]
    store.topic_rows = store.topic_rows[:0]
    result.means_columns = {k: v[:0] for k, v in result.means_columns.items()}
    text = render_evaluation(result, "json", True)
    assert json.loads(text)["results"] == []
    assert text.endswith('"results": []\n}\n')


PEAK_CHILD = """
import resource, sys
import numpy as np
from irgauge.cli import main
code = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize("fmt", slow_after(["tsv", "json"]))
def test_per_topic_text_is_not_held_whole(tmp_path, fmt):
    """40,000 topics x 11 measures with -q: the old whole-string JSON took 4 times the
    memory of the run read (+545 MB), TSV +54 MB; written in blocks, -q adds under 25 MB."""
    rng = np.random.default_rng(7)
    topics = 40_000
    docs = rng.permuted(np.tile(np.arange(20), (topics, 1)), axis=1)[:, :10]
    (tmp_path / "qrels").write_text(
        "".join(f"q{t} 0 d{d} 1\n" for t in range(topics) for d in docs[t, :3])
    )
    (tmp_path / "run").write_text(
        "".join(
            f"q{t} Q0 d{d} {r} {10 - r} s\n" for t in range(topics) for r, d in enumerate(docs[t])
        )
    )

    def peak_kb(*flags):
        out = tmp_path / f"out{len(flags)}.{fmt}"
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                PEAK_CHILD,
                "eval",
                *flags,
                "--format",
                fmt,
                "-o",
                str(out),
                str(tmp_path / "qrels"),
                str(tmp_path / "run"),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        return int(done.stderr.strip().splitlines()[-1])

    assert peak_kb("-q") - peak_kb() < 25_000
