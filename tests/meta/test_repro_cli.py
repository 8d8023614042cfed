"""``irgauge repro`` from the command line: the long table, its row blocks, the sentences
an interval decides, the figures, and one line with exit 2 for each bad input."""

from __future__ import annotations

import json

import pytest

import irgauge
from irgauge.cli import main

QRELS, RUNS = irgauge.sample_paths()
PAIR = ["--original", str(RUNS[0]), str(RUNS[1]), "--repeated", str(RUNS[2]), str(RUNS[3])]
SMALL = ["-B", "50", "--seed", "1", "-m", "AP"]


def run(capsys, argv):
    try:
        code = main(["repro", str(QRELS), *argv])
    except SystemExit as stop:  # argparse's refusal of an option's value
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def rows(text):
    lines = [x for x in text.splitlines() if x and not x.startswith("#")]
    header = lines[0].split("\t")
    return header, [dict(zip(header, x.split("\t"))) for x in lines[1:]]


def test_tsv_has_the_issues_columns_and_labels(capsys):
    code, out, _ = run(capsys, PAIR + SMALL + ["--format", "tsv", "--cutoffs", "5,10"])
    assert code == 0
    header, found = rows(out)
    assert header == ["run", "measure", "statistic", "cutoff", "value", "low", "high"]
    assert {r["run"] for r in found} == {"baseline", "advanced", "both"}
    by = {(r["run"], r["statistic"], r["cutoff"]) for r in found}
    assert {("baseline", "KTU", "5"), ("advanced", "RBO_max", "10"), ("both", "ER", "")} <= by
    assert {("baseline", "RMSE", ""), ("baseline", "RMSE", "5"), ("advanced", "p", "")} <= by
    assert all(r["cutoff"] == "" for r in found if r["statistic"] in ("ARP_original", "ER"))
    assert "# rbo_p: 0.95" in out  # the default persistence, stated


def test_json_records_the_parameters_and_the_sentences(capsys):
    code, out, _ = run(capsys, PAIR + SMALL + ["--format", "json", "--rbo-p", "0.8"])
    assert code == 0
    meta = json.loads(out)["metadata"]
    assert meta["rbo_p"] == 0.8 and meta["seed"] == 1 and meta["bootstrap_samples"] == 50
    assert meta["kind"] == "reproduction" and meta["test"].startswith("paired")
    assert meta["conclusions"] and "ER" in meta["conclusions"][0]


def test_several_repeated_pairs_give_one_block_each(capsys):
    more = ["--repeated", str(RUNS[4]), str(RUNS[5])]
    code, out, _ = run(capsys, PAIR + more + SMALL + ["--format", "tsv"])
    assert code == 0
    header, found = rows(out)
    assert header[0] == "repeated"
    assert [r for r in dict.fromkeys(r["repeated"] for r in found)] == [
        "run03.run+run04.run",
        "run05.run+run06.run",
    ]


def test_a_single_run_pair_has_no_effects_of_a_pair(capsys):
    code, out, _ = run(
        capsys,
        ["--original", str(RUNS[0]), "--repeated", str(RUNS[2])] + SMALL + ["--format", "tsv"],
    )
    assert code == 0
    statistics = {r["statistic"] for r in rows(out)[1]}
    assert "ER" not in statistics and "DeltaRI" not in statistics and "KTU" in statistics


def test_the_table_ends_with_the_sentences_the_intervals_decide(capsys):
    code, out, _ = run(capsys, PAIR + SMALL)
    assert code == 0
    assert "# conclusions:" in out
    sentence = out.split("# conclusions:")[1]
    assert ("reproduced" in sentence) or ("does not decide" in sentence)


def test_a_replication_is_welchs_and_has_no_document_order(capsys, tmp_path):
    code, out, _ = run(
        capsys, PAIR + SMALL + ["--repeated-qrels", str(_other_qrels(tmp_path)), "--format", "tsv"]
    )
    assert code == 0
    statistics = {r["statistic"] for r in rows(out)[1]}
    assert not statistics & {"KTU", "RBO", "RMSE"} and {"ER", "p"} <= statistics
    assert "Welch" in out


def _other_qrels(tmp_path):
    """The sample qrels with some grades changed: another assessment of the same topics."""
    lines = QRELS.read_text().splitlines()
    changed = [
        " ".join(x.split()[:3] + [str((int(x.split()[3]) + 1) % 3)]) if i % 3 == 0 else x
        for i, x in enumerate(lines)
    ]
    path = tmp_path / "other.qrels"
    path.write_text("\n".join(changed) + "\n")
    return path


def test_figures_are_the_three_curves(capsys, tmp_path, monkeypatch):
    """Each curve is saved under its stem (drawn to no file here: drawing three formats
    is most of the command's time), titled with the qrels, the seed and B."""
    from irgauge.report import style

    saved = {}

    def record(fig, directory, stem, formats=()):
        saved[stem] = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
        return [str(tmp_path / stem)]

    monkeypatch.setattr(style, "save", record)
    code, _, _ = run(capsys, PAIR + SMALL + ["--cutoffs", "5,10,20", "--figures", str(tmp_path)])
    assert code == 0
    assert set(saved) == {"repro_ktu", "repro_rbo", "repro_rmse"}
    assert "qrels.txt: seed 1, B = 50" in saved["repro_ktu"]
    assert {"5", "10", "20"} <= set(saved["repro_rbo"])


def test_the_api_gives_the_table_and_the_figures():
    result = irgauge.reproducibility(QRELS, RUNS[:2], RUNS[2:4], ["AP"], cutoffs=[5, 10],
                                     samples=30, seed=2)  # fmt: skip
    assert set(result.figures) == {"repro_ktu", "repro_rbo", "repro_rmse"}
    assert list(result.table.columns) == ["run", "measure", "statistic", "cutoff", "value",
                                          "low", "high"]  # fmt: skip
    again = irgauge.reproducibility(QRELS, RUNS[:2], RUNS[2:4], ["AP"], cutoffs=[5, 10],
                                    samples=30, seed=2)  # fmt: skip
    assert again.table.equals(result.table)


def one_line_error(capsys, argv, *words):
    code, out, err = run(capsys, argv)
    # (argparse's usage lines precede its message)
    lines = [x for x in err.strip().splitlines() if not x.startswith(("usage:", " "))]
    assert code == 2 and len(lines) == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_bad_inputs_get_one_line(capsys, tmp_path):
    partial = tmp_path / "partial.run"
    partial.write_text("".join(x + "\n" for x in RUNS[3].read_text().splitlines()
                               if x.split()[0] != "3"))  # fmt: skip
    skipping = ["--original", str(RUNS[0]), str(RUNS[1]), "--repeated", str(RUNS[2]), str(partial)]
    one_line_error(capsys, skipping + SMALL, "partial.run", "topic")
    one_line_error(capsys, PAIR + SMALL + ["--cutoffs", "10,0"], "--cutoffs")
    one_line_error(capsys, PAIR + SMALL + ["--cutoffs", "-5"], "--cutoffs")
    same = ["--original", str(RUNS[0]), str(RUNS[0]), "--repeated", str(RUNS[2]), str(RUNS[3])]
    one_line_error(capsys, same + SMALL, "ER is undefined", "AP")
    one_line_error(capsys, PAIR + SMALL + ["--repeated-qrels", str(QRELS)], "--repeated-qrels")
    three = ["--original", str(RUNS[0]), str(RUNS[1]), str(RUNS[4]), "--repeated", str(RUNS[2])]
    one_line_error(capsys, three + SMALL, "--original")
    uneven = ["--original", str(RUNS[0]), str(RUNS[1]), "--repeated", str(RUNS[2])]
    one_line_error(capsys, uneven + SMALL, "repeated")
    one_line_error(capsys, PAIR + SMALL + ["--rbo-p", "1"], "--rbo-p")


def test_another_collections_runs_without_its_qrels_are_refused(capsys, tmp_path):
    """A replication given with one qrels: the repeated runs answer other topics, and the
    message says how to give their qrels."""
    other = tmp_path / "other.run"
    other.write_text("".join(f"9{x}\n" for x in RUNS[2].read_text().splitlines()))
    line = one_line_error(
        capsys, ["--original", str(RUNS[0]), "--repeated", str(other), *SMALL], "other.run"
    )
    assert "--repeated-qrels" in line


@pytest.mark.parametrize("flag", ["-B", "--confidence"])
def test_numbers_are_checked_at_the_option(capsys, flag):
    one_line_error(capsys, PAIR + ["-m", "AP", flag, "0"], flag)


def _figures_as_bytes(monkeypatch) -> None:
    """The report's figures saved as a few bytes each (drawing them takes seconds)."""
    from pathlib import Path

    from irgauge.report import style

    def tiny(fig, directory, stem, formats=()):
        Path(directory).mkdir(parents=True, exist_ok=True)
        (Path(directory) / f"{stem}.png").write_bytes(b"png")
        return [str(Path(directory) / f"{stem}.png")]

    monkeypatch.setattr(style, "save", tiny)


def test_the_report_has_a_reproducibility_section(capsys, tmp_path, monkeypatch):
    """irgauge report given repro's JSON (or TSV) output: its sentences, its table and
    its three curves, drawn from the table beside the report."""
    _figures_as_bytes(monkeypatch)
    out = tmp_path / "study.json"
    argv = PAIR + SMALL + ["--cutoffs", "5,10", "--format", "json", "-o", str(out)]
    assert run(capsys, argv)[0] == 0
    assert main(["report", str(tmp_path / "rep"), str(out)]) == 0
    page = (tmp_path / "rep" / "report.html").read_text()
    conclusions = json.loads(out.read_text())["metadata"]["conclusions"]
    assert "Reproducibility: study.json" in page
    assert conclusions[0].split(":")[0] in page and "RBO_max" in page
    assert "Kendall&#x27;s tau union" in page or "Kendall's tau union" in page


def test_a_replication_draws_the_two_topic_sets_independently(tmp_path):
    """The original topics are drawn from the seed, as in a reproduction; the repeated
    topics from the seed sequence (seed, 1): their ARP intervals are those draws' means."""
    import numpy as np

    from irgauge.stats.resampling import bootstrap_indices, percentile_interval

    other = _other_qrels(tmp_path)
    options = dict(samples=40, seed=3)
    replication = irgauge.reproducibility(QRELS, RUNS[:2], RUNS[2:4], ["AP"],
                                          repeated_qrels=other, **options).table  # fmt: skip
    reproduction = irgauge.reproducibility(QRELS, RUNS[:2], RUNS[2:4], ["AP"], **options).table
    key = ["run", "statistic", "value", "low", "high"]
    pick = "statistic == 'ARP_original'"
    found = [t.query(pick)[key].reset_index(drop=True) for t in (replication, reproduction)]
    assert found[0].equals(found[1])
    scores = irgauge.evaluate(other, [RUNS[2]], ["AP"], complete=True).score_matrices()["AP"]
    x = scores.values[0]
    means = np.array([x[d].mean() for d in bootstrap_indices(len(x), 40, [3, 1])])
    low, high = percentile_interval(means[:, None], 0.95)
    row = replication.query("statistic == 'ARP_repeated' and run == 'baseline'").iloc[0]
    assert (row["low"], row["high"]) == pytest.approx((low[0], high[0]))


@pytest.mark.parametrize("option", [["--cutoffs", "5"], ["--rbo-p", "0.9"]])
def test_document_order_options_are_refused_for_a_replication(capsys, tmp_path, option):
    argv = PAIR + SMALL + ["--repeated-qrels", str(_other_qrels(tmp_path)), *option]
    one_line_error(capsys, argv, option[0], "replication")


def test_the_reproducibility_section_warns_of_nothing(capsys, tmp_path, monkeypatch):
    """The table's cutoff column, read back from TSV (float, NaN on rows without a
    cutoff), is shown blank without pandas' deprecation of a text fill value in a float
    column."""
    import warnings

    _figures_as_bytes(monkeypatch)
    out = tmp_path / "study.tsv"
    assert run(capsys, PAIR + SMALL + ["--cutoffs", "5", "--format", "tsv", "-o", str(out)])[0] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        warnings.simplefilter("error", DeprecationWarning)
        assert main(["report", str(tmp_path / "rep"), str(out)]) == 0
    assert "<td>5</td>" in (tmp_path / "rep" / "report.html").read_text()
