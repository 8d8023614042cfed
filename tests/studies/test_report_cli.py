"""The HTML report's content and the study and report commands."""

import base64
import re

import pytest

from irgauge.cli import main
from irgauge.report.html import write_report
from irgauge.studies.onerel import run_onerel
from irgauge.studies.predictive import run_predictive

pytestmark = pytest.mark.slow  # each test runs a study


def test_report_embeds_every_figure_and_table(collection, tmp_path):
    qrels, runs = collection
    run_onerel(qrels, runs, tmp_path, samples=50, trials=30, seed=1, top_k=5)
    run_predictive(qrels, runs, tmp_path, halvings=50, seed=1)
    html = write_report(tmp_path).read_text(encoding="utf-8")
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(images) == 7 + 2  # onerel: 7 figures, predictive: 2
    assert all(base64.b64decode(i)[:4] == b"\x89PNG" and len(i) > 1000 for i in images)
    assert "http://" not in html and "https://" not in html  # nothing fetched
    for text in (
        "Collection",
        "Judgments by relevance level",
        "judged depth",
        "Conventions",
        "Discriminative power at alpha",
        "Predictive power phi",
        "Discriminative power (share of pairs",
        "trec_eval",
    ):
        assert text in html
    assert html.count("<table") >= 10


def test_study_command_with_report(collection, tmp_path, capsys):
    qrels, runs = collection
    code = main(
        [
            "study",
            "predictive",
            str(qrels),
            *map(str, runs),
            "--out",
            str(tmp_path),
            "-P",
            "40",
            "--seed",
            "2",
            "--top-k",
            "5",
            "--report",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0] == f"report: {tmp_path / 'report.html'}"
    assert "Self-predictivity" in out and (tmp_path / "report.html").exists()
    assert main(["report", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_study_command_errors(tmp_path, capsys):
    assert main(["study", "onerel", "--out", str(tmp_path)]) == 2
    assert "needs QRELS" in capsys.readouterr().err


def test_predictive_from_score_files(collection, tmp_path, capsys):
    import irgauge

    qrels, runs = collection
    per_topic = irgauge.evaluate(qrels, runs, ["AP", "P@10", "RR"]).per_topic
    scores = tmp_path / "scores.tsv"
    per_topic.to_csv(scores, sep="\t", index=False)
    code = main(
        [
            "study",
            "predictive",
            "--scores",
            str(scores),
            "--out",
            str(tmp_path / "o"),
            "-P",
            "30",
            "--seed",
            "1",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "AP" in out and "P@10" in out
    with pytest.raises(SystemExit) as refused:  # onerel has no --scores option
        main(["study", "onerel", "--scores", str(scores), "--out", str(tmp_path)])
    assert refused.value.code == 2
    assert "unrecognized arguments: --scores" in capsys.readouterr().err
