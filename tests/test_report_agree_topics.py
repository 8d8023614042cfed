"""irgauge report recognises and renders irgauge agree and irgauge topics outputs: their
tables, and figures drawn from the data (agree's from its JSON details)."""

import re
from pathlib import Path

import numpy as np
import pytest

from irgauge.cli import main
from irgauge.errors import InputError
from irgauge.report.html import render_report, write_report
from irgauge.report.inputs import read_input

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
GENERATED = DATA / "ntcireval_generated"
MATRICES = DATA / "urbano-score-matrices" / "sigir2018-simulation"

pytestmark = pytest.mark.skipif(
    not (GENERATED / "qrels.trec").exists() or not MATRICES.is_dir(),
    reason="shared test data not available",
)


def _relabelled(path: Path, out: Path, seed: int = 7, share: float = 0.3) -> Path:
    """A copy of the qrels with a seeded share of the labels redrawn from 0..2."""
    rng = np.random.default_rng(seed)
    lines = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        topic, zero, doc, level = line.split()
        if rng.random() < share:
            level = str(int(rng.integers(0, 3)))
        lines.append(f"{topic} {zero} {doc} {level}")
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """agree TSV and JSON (with --figures), topics TSV and JSON (with --figures)."""
    root = tmp_path_factory.mktemp("agree_topics")
    other = _relabelled(GENERATED / "qrels.trec", root / "relabelled.trec")
    runs = sorted(str(p) for p in (GENERATED / "runs").glob("*.trec"))
    agree = [str(GENERATED / "qrels.trec"), str(other), "--run", *runs, "-B", "50"]
    agree += ["--seed", "3", "-m", "AP,nDCG@10"]
    found = {}
    assert main(["agree", *agree, "--format", "tsv", "-o", str(root / "agree.tsv")]) == 0
    assert (
        main(
            ["agree", *agree, "--format", "json", "-o", str(root / "agree.json")]
            + ["--figures", str(root / "agree_figures")]
        )
        == 0
    )
    scores = [f"AP={MATRICES / 'web2010_ap.csv'}", f"nDCG20={MATRICES / 'web2010_ndcg20.csv'}"]
    topics = ["topics", *scores, "--min-diff", "0.05", "--ci-width", "0.1"]
    assert main([*topics, "--format", "tsv", "-o", str(root / "topics.tsv")]) == 0
    assert main([*topics, "--format", "json", "-o", str(root / "topics.json")]) == 0
    for name in ("agree.tsv", "agree.json", "topics.tsv", "topics.json"):
        found[name] = root / name
    found["agree_figures"] = root / "agree_figures"
    found["root"] = root
    return found


def _sections(page: str) -> dict:
    """{h2 heading: its section's HTML}."""
    parts = re.split(r"<h2>(.*?)</h2>", page)
    return {parts[k]: parts[k + 1] for k in range(1, len(parts) - 1, 2)}


def test_inputs_are_recognised(outputs):
    assert read_input(outputs["agree.tsv"]).kind == "agreement"
    json_input = read_input(outputs["agree.json"])
    assert json_input.kind == "agreement"
    assert {"confusion", "topic_kappa", "systems", "significance"} <= set(json_input.details)
    assert read_input(outputs["topics.tsv"]).kind == "topicset"
    assert read_input(outputs["topics.json"]).kind == "topicset"


def test_agree_sections_tables_and_figures(outputs, tmp_path):
    out = tmp_path / "report"
    path = write_report(out, inputs=[outputs["agree.tsv"], outputs["agree.json"]])
    page = path.read_text()
    sections = _sections(page)
    tsv = sections["Assessor agreement: agree.tsv"]
    js = sections["Assessor agreement: agree.json"]
    for body in (tsv, js):
        assert "<h3>Label agreement</h3>" in body and "cohen_kappa" in body
        assert "System agreement: qrels.trec vs relabelled.trec" in body
        assert "kendall_tau_b" in body and "<th>nDCG@10</th>" in body
        assert re.search(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", body)  # value [low, high]
    # the TSV alone cannot give the figures: the section says so
    assert "<img" not in tsv and "only the JSON output holds" in tsv
    # the JSON's details give all three figures, drawn beside the report, linked relatively
    assert js.count("<img") == 3
    for stem in ("agree_confusion", "agree_means", "agree_topic_kappa"):
        link = re.search(rf'href="([^"]*{stem}\.svg)"', js).group(1)
        assert not Path(link).is_absolute() and (out / link).exists()
    assert "Significance calls" in js and "Systems under each qrels" in js
    assert str(outputs["root"]) not in page


@pytest.mark.slow  # the topics section draws its curves
def test_topics_section_table_and_figure(outputs, tmp_path):
    page = render_report(tmp_path, inputs=[outputs["topics.tsv"], outputs["topics.json"]])
    sections = _sections(page)
    for name in ("topics.tsv", "topics.json"):
        body = sections[f"Topic set size design: {name}"]
        for column in ("design", "measure", "statistic", "value"):
            assert f"<th>{column}</th>" in body
        assert "n_topics" in body and "min_detectable_diff" in body and "variance" in body
        assert "<td>31</td>" in body  # AP's paired t-test at D = 0.05: a whole count
        assert body.count("<img") == 1 and "topic_set_size.pdf" in body


def test_figures_folder_and_unrecognised_inputs(outputs, tmp_path):
    page = render_report(tmp_path, inputs=[outputs["agree_figures"]])
    assert _sections(page)["Figures: agree_figures"].count("<img") == 3
    odd = tmp_path / "odd.txt"
    odd.write_text("just some text\n")
    with pytest.raises(InputError):
        render_report(tmp_path, inputs=[odd])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="without study results"):
        render_report(tmp_path, inputs=[empty])
