"""One measure string given where a list of measures is expected (``measures="AP"``) is
one measure at every public entry point, as ``evaluate`` reads it: the studies iterated
it as the measures A and P. Every public function taking ``measures`` is in CALLS, so a
new one is tried the day it is exported."""

from __future__ import annotations

import inspect

import pytest

import irgauge

QRELS = "".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in (1, 2, 3) for d in range(8))
RUNS = {
    name: "".join(f"{t} Q0 d{(d * step + t) % 8} {d + 1} {8 - d} {name}\n"
                  for t in (1, 2, 3) for d in range(8))
    for name, step in (("a", 1), ("b", 3), ("c", 5))
}  # fmt: skip
QA_GOLD = "1 1 c1 1 yes\n2 1 c1 1 no\n"
QA_RUN = "1 ans yes\n2 ans no\n"


def _score_file(tmp_path, q, runs):
    """The runs' AP and P@5 per topic, as irgauge eval -q --format tsv writes them."""
    scores = tmp_path / "scores.tsv"
    scores.write_text(
        irgauge.evaluate(q, runs, ["AP", "P@5"]).per_topic.to_csv(sep="\t", index=False)
    )
    return scores


def _calls(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text(QRELS)
    q2 = tmp_path / "q2.txt"
    q2.write_text(QRELS.replace(" 2\n", " 1\n"))
    runs = []
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
        runs.append(str(tmp_path / name))
    few = {"seed": 1}
    return {
        "agreement": lambda m: irgauge.agreement([q, q2], runs, m, samples=5, **few),
        "evaluate": lambda m: irgauge.evaluate(q, runs, m),
        "incomplete_study": lambda m: irgauge.incomplete_study(
            q, runs, m, rates=(50,), samples=5, **few
        ),
        "reproducibility": lambda m: irgauge.reproducibility(
            q, runs[:2], runs[1:], m, samples=5, **few
        ),
        "reusability": lambda m: irgauge.reusability(
            q, runs, 3, measures=m, topic_resamples=2, **few
        ),
        "score_matrices": lambda m: irgauge.score_matrices(q, runs, m),
        "read_scores": lambda m: irgauge.read_scores(_score_file(tmp_path, q, runs), m),
        # trec_eval's word for AP: map (a string was read as the words m, a and p)
        "trec_eval_output": lambda m: irgauge.trec_eval_output(q, runs[0], m.replace("AP", "map")),
        "run_study pooling": lambda m: irgauge.run_study(
            "pooling",
            q,
            runs,
            tmp_path / "st",
            measures=m,
            budgets=[2],
            topic_resamples=2,
            strategies=["depth"],
            **few,
        ),
    }


# entry points whose measures are not IR measures of qrels and runs, or that only filter
ELSEWHERE = {
    "qa_evaluate": "QA measures of answer runs (tests/qa)",
}


def test_every_public_function_taking_measures_is_tried(tmp_path):
    taking = {
        name
        for name in dir(irgauge)
        if not name.startswith("_")
        and inspect.isfunction(getattr(irgauge, name))
        # trec_eval_output's are trec_eval's -m words
        and {"measures", "words"} & set(inspect.signature(getattr(irgauge, name)).parameters)
    }
    assert taking - set(ELSEWHERE) <= {c.split()[0] for c in ENTRIES}


ENTRIES = ["agreement", "evaluate", "incomplete_study", "reproducibility", "reusability"]
ENTRIES += ["score_matrices", "run_study pooling", "trec_eval_output", "read_scores"]


@pytest.mark.parametrize("entry", ENTRIES)
def test_one_measure_string_is_one_measure(entry, tmp_path, monkeypatch):
    from irgauge.report import style

    monkeypatch.setattr(style, "save", lambda *a, **k: [])  # the study's figures: not drawn
    try:
        _calls(tmp_path)[entry]("AP")
    except (irgauge.InputError, irgauge.MeasureError) as err:
        assert "'A'" not in str(err), err  # read as the measures A and P
        raise


@pytest.mark.parametrize("entry", ["reusability", "run_study pooling", "agreement"])
def test_a_measure_given_twice_is_refused(entry, tmp_path, monkeypatch):
    """Each measure names rows of the result: the pooling study wrote every row twice."""
    from irgauge.report import style

    monkeypatch.setattr(style, "save", lambda *a, **k: [])
    with pytest.raises(irgauge.InputError, match="measure given twice: AP;"):
        _calls(tmp_path)[entry](["AP", "AP"])


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e != "trec_eval_output"])
def test_an_empty_list_of_measures_is_refused_not_read_as_the_default(entry, tmp_path, monkeypatch):
    """``measures=[]`` (and ``-m ''``) gave reproducibility and agreement their default
    measures, where evaluate refused it. (trec_eval_output's no words are trec_eval's
    official set, as trec_eval without -m.)"""
    from irgauge.report import style

    monkeypatch.setattr(style, "save", lambda *a, **k: [])
    with pytest.raises((irgauge.InputError, irgauge.MeasureError), match="no measures given"):
        _calls(tmp_path)[entry]([])
