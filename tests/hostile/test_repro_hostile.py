"""A new user's hostile cases for ``irgauge repro`` (irgauge.reproducibility) and ``irgauge
study reusability`` (irgauge.reusability): each case states its exact outcome, either exit 2
(or 1 for an output that cannot be written) with one line naming the file or the option, or
a complete output. The fixes they pin are in the shared mechanisms (the option naming of
repeatable options, the one run-topics check, the output-target check, the groups reader),
so every command inherits them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "irgauge" / "data" / "sample"


def _lines(name: str):
    return (SAMPLE / name).read_text().splitlines(keepends=True)


@pytest.fixture
def files(tmp_path, monkeypatch):
    """The sample collection's qrels and four runs (20 topics), and hostile variants."""
    monkeypatch.chdir(tmp_path)
    qrels = _lines("qrels.txt")
    runs = {k: _lines(f"runs/run0{i}.run") for i, k in enumerate("abcd", start=1)}
    Path("q").write_text("".join(qrels))
    for name, lines in runs.items():
        Path(name).write_text("".join(lines))
    Path("same").write_text("".join(runs["a"]))
    Path("a_missing").write_text("".join(x for x in runs["a"] if not x.startswith("1 ")))
    Path("q1").write_text("".join(x for x in qrels if x.startswith("1 ")))
    for name in ("a", "b"):
        Path(f"{name}1").write_text("".join(x for x in runs[name] if x.startswith("1 ")))
        tied = [" ".join(x.split()[:4] + ["1"] + x.split()[5:]) + "\n" for x in runs[name]]
        Path(f"{name}_ties").write_text("".join(tied))
    Path("qX").write_text("".join("X" + x for x in qrels))
    for name in ("c", "d"):
        Path(f"{name}X").write_text("".join("X" + x for x in runs[name]))
    Path("a.gz").write_bytes(gzip.compress("".join(runs["a"]).encode()))
    Path("empty").write_text("")
    Path("qq").write_text("1 0 d1 1\n2 0 d1 1\n")
    Path("z1").write_text("1 Q0 dz 1 0 r1\n2 Q0 dz 1 0 r1\n")  # ARP 0: RI divides by 0
    Path("z2").write_text("1 Q0 d1 1 0 r2\n2 Q0 d1 1 0 r2\n")
    Path("q0").write_text("1 0 d1 0\n2 0 d1 0\n")  # no relevant document anywhere
    Path("r1").write_text("1 Q0 d1 1 0 r1\n2 Q0 d1 1 0 r1\n")
    Path("r2").write_text("1 Q0 d1 1 0 r2\n2 Q0 d1 1 0 r2\n")
    Path("afile").write_text("not a folder\n")
    Path("gr_blank").write_text("\n# teams\nrun group\nrun01 g1\n\nrun02 g1\n")
    Path("gr_unknown").write_text("run01 g1\nzz g2\n")
    Path("gr_twice").write_text("run01 g1\nrun01 g2\n")
    Path("gr_all").write_text("run01 g\nrun02 g\nrun03 g\n")
    Path("gr_fields").write_text("run01 g1 extra\n")
    return tmp_path


REPRO = ["repro", "q", "--original", "a", "b", "--repeated", "c", "d", "-B", "20", "--seed", "1"]
REUSE = ["study", "reusability", "q", "a", "b", "c", "--depth", "10", "--topic-resamples", "20"]
REUSE += ["--seed", "1", "--quiet"]

# (case, arguments, exit code, the text the one error line holds; None: a complete output)
CASES = [
    # repro: inputs
    (
        "topics differ",
        ["repro", "q", "--original", "a_missing", "b", "--repeated", "c", "d"],
        2,
        "a_missing: its topics differ from the qrels': misses 1 topic of the qrels (1)",
    ),
    (
        "replication given one qrels",
        [*REPRO, "--repeated-qrels", "q"],
        2,
        "--repeated-qrels: repeated_qrels is the original qrels",
    ),
    (
        "replication given one qrels spelt twice",
        [*REPRO, "--repeated-qrels", "./q"],
        2,
        "--repeated-qrels: repeated_qrels is the original qrels",
    ),
    (
        "replication, no common topics",
        [
            "repro",
            "q",
            "--original",
            "a",
            "b",
            "--repeated",
            "cX",
            "dX",
            "--repeated-qrels",
            "qX",
            "-B",
            "20",
            "--seed",
            "1",
        ],
        0,
        None,
    ),
    (
        "replication, repeated topics differ",
        [*REPRO, "--repeated-qrels", "q1"],
        2,
        "c: its topics differ from the qrels': answers 19 topics the repeated qrels lacks",
    ),
    (
        "ER with zero original improvement",
        ["repro", "q", "--original", "a", "same", "--repeated", "c", "d"],
        2,
        "--original: ER is undefined for AP",
    ),
    (
        "one topic",
        ["repro", "q1", "--original", "a1", "b1", "--repeated", "a1", "b1"],
        2,
        "needs at least 2 topics; got 1",
    ),
    (
        "empty run",
        ["repro", "q", "--original", "empty", "--repeated", "c"],
        2,
        "empty: file is empty",
    ),
    (
        "three original runs",
        ["repro", "q", "--original", "a", "b", "c", "--repeated", "c", "d"],
        2,
        "--original takes a baseline run and at most an advanced run; got 3 runs",
    ),
    (
        "repeated pair of one run",
        ["repro", "q", "--original", "a", "b", "--repeated", "c"],
        2,
        "irgauge: error: --repeated: each repeated set has 2 runs",
    ),
    (
        "measure twice",
        [*REPRO, "-m", "AP", "-m", "AP"],
        2,
        "irgauge: error: -m: measure given twice: AP",
    ),
    ("unknown measure", [*REPRO, "-m", "bogus"], 2, "unknown measure 'bogus'"),
    ("count measure num_rel", [*REPRO, "-m", "num_rel"], 2, "ER is undefined for num_rel"),
    ("count measure num_rel_ret", [*REPRO, "-m", "num_rel_ret"], 0, None),
    (
        "identical runs",
        ["repro", "q", "--original", "a", "b", "--repeated", "a", "b", "-B", "20", "--seed", "1"],
        0,
        None,
    ),
    (
        "one run each side",
        ["repro", "q", "--original", "a", "--repeated", "same", "-B", "20"],
        0,
        None,
    ),
    (
        "ties everywhere",
        [
            "repro",
            "q",
            "--original",
            "a_ties",
            "b_ties",
            "--repeated",
            "a_ties",
            "b_ties",
            "-B",
            "20",
        ],
        0,
        None,
    ),
    (
        "gzip run",
        [
            "repro",
            "q",
            "--original",
            "a.gz",
            "b",
            "--repeated",
            "c",
            "d",
            "-B",
            "20",
            "--seed",
            "1",
        ],
        0,
        None,
    ),
    ("two repeated pairs", [*REPRO, "--repeated", "a", "b"], 0, None),
    # repro: options
    ("cutoff 0", [*REPRO, "--cutoffs", "0"], 2, "--cutoffs: expected a whole number from 1"),
    ("cutoff negative", [*REPRO, "--cutoffs", "-3"], 2, "--cutoffs: expected a whole number"),
    ("cutoff NaN", [*REPRO, "--cutoffs", "nan"], 2, "--cutoffs: expected a whole number"),
    ("cutoff huge", [*REPRO, "--cutoffs", "99999999999999999999"], 2, "--cutoffs: expected"),
    ("cutoffs repeated, unsorted", [*REPRO, "--cutoffs", "10,10,5"], 0, None),
    (
        "cutoffs in a replication",
        [*REPRO, "--repeated-qrels", "qX", "--cutoffs", "5"],
        2,
        "--cutoffs: cutoffs acts on the document order",
    ),
    ("rbo-p 0", [*REPRO, "--rbo-p", "0"], 2, "--rbo-p: expected a persistence in (0, 1)"),
    ("rbo-p 1", [*REPRO, "--rbo-p", "1"], 2, "--rbo-p: expected a persistence in (0, 1)"),
    ("rbo-p negative", [*REPRO, "--rbo-p", "-1"], 2, "--rbo-p: expected a persistence"),
    ("rbo-p NaN", [*REPRO, "--rbo-p", "nan"], 2, "--rbo-p: expected a persistence"),
    ("rbo-p 1e-300", [*REPRO, "--rbo-p", "1e-300"], 0, None),
    ("-B 0", [*REPRO, "-B", "0"], 2, "-B/--samples: expected a number of random draws"),
    ("-B 1", ["repro", "q", "--original", "a", "b", "--repeated", "c", "d", "-B", "1"], 0, None),
    ("-B 2^63", [*REPRO[:-4], "-B", str(2**63)], 2, "-B/--samples: expected a number"),
    ("--memory not an option", [*REPRO, "--memory", "1"], 2, "unrecognized arguments"),
    # repro: outputs
    (
        "--figures into a file",
        [*REPRO, "--figures", "afile"],
        1,
        "cannot write afile: exists and is not a folder",
    ),
    (
        "-o under a file",
        [*REPRO, "-o", "afile/out.tsv"],
        1,
        "cannot write afile/out.tsv: a folder above it is a file",
    ),
    ("-o onto an input", [*REPRO, "-o", "a"], 2, "output a: is the input a (the same file)"),
    # study reusability
    ("reuse depth given twice", [*REUSE, "--depth", "5", "--out", "u"], 2, "given twice"),
    ("reuse depth 0", [*REUSE[:6], "--depth", "0", "--out", "u"], 2, "--depth: expected a whole"),
    ("reuse depth huge", [*REUSE[:6], "--depth", "99999999999", "--out", "u"], 2, "--depth"),
    (
        "reuse run misses a topic: refused, naming -c/--complete",
        ["study", "reusability", "q", "a_missing", "b", "--depth", "10", "--out", "u"],
        2,
        "a_missing: its topics differ from the qrels': misses 1 topic of qrels q (1): "
        "-c/--complete (complete=True) scores a missing topic 0",
    ),
    (
        "reuse run misses a topic, -c: scored 0 there, as trec_eval -c",
        ["study", "reusability", "q", "a_missing", "b", "--depth", "10", "-c", "--out", "u"],
        0,
        None,
    ),
    (
        "reuse one run",
        ["study", "reusability", "q", "a", "--depth", "10", "--out", "u"],
        2,
        "leaving groups out needs at least 2 runs",
    ),
    (
        "reuse empty run",
        ["study", "reusability", "q", "a", "empty", "--depth", "10", "--out", "u"],
        2,
        "empty: file is empty",
    ),
    (
        "reuse qrels without a relevant document",
        ["study", "reusability", "q0", "r1", "r2", "--depth", "1", "--out", "u"],
        2,
        "q0: no topic has a document at relevance level >= 1",
    ),
    (
        "repro qrels without a relevant document",
        ["repro", "q0", "--original", "r1", "--repeated", "r2"],
        2,
        "q0: no topic has a document at relevance level >= 1",
    ),
    (
        "groups with blank lines, comments, header",
        [*REUSE, "--out", "u", "--groups", "gr_blank"],
        0,
        None,
    ),
    (
        "groups name an unknown run",
        [*REUSE, "--out", "u", "--groups", "gr_unknown"],
        2,
        "gr_unknown:2: --groups: groups name run 'zz'",
    ),
    (
        "a run in two groups",
        [*REUSE, "--out", "u", "--groups", "gr_twice"],
        2,
        "gr_twice:2: --groups: run 'run01' is given a group twice",
    ),
    (
        "groups line of three fields",
        [*REUSE, "--out", "u", "--groups", "gr_fields"],
        2,
        "gr_fields:1: expected two fields",
    ),
    (
        "groups file missing",
        [*REUSE, "--out", "u", "--groups", "nowhere"],
        2,
        "nowhere: cannot read file",
    ),
    ("one group holding every run", [*REUSE, "--out", "u", "--groups", "gr_all"], 0, None),
    ("count measure", [*REUSE, "--out", "u", "-m", "num_rel"], 0, None),
    (
        "reuse --out a file",
        [*REUSE, "--out", "afile"],
        1,
        "cannot write afile/reusability: a folder above it is a file",
    ),
    (
        "reuse gzip run",
        [
            "study",
            "reusability",
            "q",
            "a.gz",
            "b",
            "--depth",
            "10",
            "--out",
            "u",
            "--topic-resamples",
            "20",
            "--quiet",
        ],
        0,
        None,
    ),
    (
        "reuse --topic-resamples 0",
        [*REUSE[:8], "--out", "u", "--topic-resamples", "0"],
        2,
        "--topic-resamples: expected a whole number >= 2",
    ),
]


# a reusability study that completes takes a second: the first in the quick subset, the
# rest in the full suite (the refusals, a few milliseconds each, all quick)
_STUDIES_RUN = [c[0] for c in CASES if c[2] == 0 and c[1][:2] == ["study", "reusability"]]


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c[0], marks=[pytest.mark.slow] if c[0] in _STUDIES_RUN[1:] else [])
        for c in CASES
    ],
)
def test_hostile_case(files, cli, case):
    _, arguments, code, text = case
    found, out, err = cli(*arguments)
    assert found == code, err
    if text is None:
        assert out and "Traceback" not in err
        return
    assert text in err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err


@pytest.mark.slow  # repro, then the report of its outputs
def test_repro_records_its_seed_and_round_trips_into_report(files, cli):
    """The seed and every parameter are in the JSON and TSV outputs, and both outputs are
    read back by irgauge report."""
    for fmt in ("json", "tsv"):
        code, _, err = cli(*REPRO, "--format", fmt, "-o", f"o.{fmt}")
        assert code == 0, err
        text = Path(f"o.{fmt}").read_text()
        assert ('"seed": 1' in text) if fmt == "json" else ("# seed: 1" in text)
        code, _, err = cli("report", f"rep-{fmt}", f"o.{fmt}")
        assert code == 0, err


def test_identical_runs_give_zero_differences(files):
    import irgauge

    result = irgauge.reproducibility("q", ["a", "b"], ["a", "b"], samples=20, seed=1)
    table = result.table
    rows = table.set_index(["run", "measure", "statistic", "cutoff"])["value"]
    assert rows[("baseline", "AP", "RMSE", "")] == 0
    assert rows[("baseline", "AP", "nRMSE", "")] == 0
    assert rows[("baseline", "AP", "p", "")] == 1
    assert rows[("baseline", "", "KTU", 1000)] == 1
    assert result.parameters["seed"] == 1


def test_reusability_records_its_seed(files, cli):
    code, _, err = cli(*REUSE, "--out", "u")
    assert code == 0, err
    manifest = json.loads((Path("u") / "reusability" / "manifest.json").read_text())
    assert '"seed": 1,' in json.dumps(manifest)


def test_api_refuses_a_missing_qrels_or_run_in_one_line(files):
    import irgauge

    with pytest.raises(irgauge.InputError, match="^no qrels given$"):
        irgauge.reproducibility(None, "a", "c", samples=5)
    with pytest.raises(irgauge.InputError, match="^no run given$"):
        irgauge.reproducibility("q", "a", None, samples=5)
    with pytest.raises(irgauge.InputError, match="^no qrels given$"):
        irgauge.reusability(None, ["a", "b"], 5)


def test_a_baseline_arp_of_zero_is_noted_without_a_numpy_warning(files):
    import irgauge
    from tests.fuzz.fuzz_checks import command_warnings

    with command_warnings() as caught:  # this thread's and its pools': not an earlier test's
        result = irgauge.reproducibility("qq", ["z1", "z2"], ["z1", "z2"], samples=5, seed=1)
    assert any(
        "DeltaRI value" in n and "not finite: a baseline's ARP of 0" in n for n in result.notes
    )
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
