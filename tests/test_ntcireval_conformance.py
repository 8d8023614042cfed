"""irgauge against NTCIREVAL's own outputs, per topic.

Three sources (see each folder's README/CASES.txt in ../shared/data):
- ntcireval_generated: NTCIREVAL 20200527 printed to 10 decimals, normal and condensed
  (``j:``) passes, gains 1:2:3, cutoffs 10 and 1000; plus trec_eval 10.0 on the same data;
- ntcireval_samples: Sakai's sample TRECRUN against test.qrels (version 190111, 4 decimals,
  gains 1:2);
- pyntcireval_tests: the single-topic sample.rel / sample.res cases of pyNTCIREVAL.

NTCIREVAL's names are given verbatim, as its output prints them: its AP@l and Q@l divide by
min(l, R), its nDCG@l is Järvelin–Kekäläinen's and its RBP is graded (gain / max gain), and
the resolver must know it from the spelling alone.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irgauge import evaluate
from irgauge.cli import main
from irgauge.errors import MeasureError
from irgauge.measures import parse_measure

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
GENERATED = DATA / "ntcireval_generated"
SAMPLES = DATA / "ntcireval_samples"
PYNTCIREVAL = DATA / "pyntcireval_tests"

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"no conformance data at {DATA}")


def irgauge_name(ntcir: str) -> str:
    """NTCIREVAL's names are given to irgauge verbatim (``AP@0010``, ``nDCG@0010``,
    ``NCUrb,P``, ``RBP``): the resolver must give NTCIREVAL's measure for each. The four
    names whose @1000 spelling ir_measures prints with another meaning are refused; the
    refusal must name NTCIREVAL's explicit form, which is then used."""
    try:
        parse_measure(ntcir)
    except MeasureError as err:
        assert ntcir.split("@")[0] in ("AP", "nDCG", "ERR", "RBP"), err
        return re.search(r"NTCIREVAL means (\S+),", str(err)).group(1)
    return ntcir


def compare(expected: pd.DataFrame, result, tolerance: float) -> pd.DataFrame:
    """Join expected (run, measure, topic, value[, irgauge]) with irgauge's per-topic values."""
    got = result.per_topic.rename(columns={"measure": "irgauge", "value": "got"})
    joined = expected.merge(got, on=["run", "irgauge", "topic"], how="left")
    assert joined["got"].notna().all(), joined[joined["got"].isna()].head()
    joined["diff"] = (joined["got"] - joined["value"]).abs()
    bad = joined[joined["diff"] > tolerance]
    assert bad.empty, bad.sort_values("diff", ascending=False).head(10).to_string()
    return joined


# -- ntcireval_generated ------------------------------------------------------------------


@pytest.fixture(scope="module")
def generated():
    expected = pd.read_csv(GENERATED / "expected_ntcireval.tsv", sep="\t", dtype={"topic": str})
    expected["condensed"] = expected["measure"].str.startswith("j:")
    expected["ntcir"] = expected["measure"].str.replace("^j:", "", regex=True)
    expected["irgauge"] = expected["ntcir"].map(irgauge_name)
    runs = {f"run{k}": str(GENERATED / "runs" / f"run{k}.trec") for k in range(1, 6)}
    results = {}
    for condensed in (False, True):
        names = sorted(set(expected.loc[expected["condensed"] == condensed, "irgauge"]))
        # file order = NTCIREVAL's convention (the files are in score order, no ties)
        results[condensed] = evaluate(
            str(GENERATED / "qrels.ntcir"),
            runs,
            names,
            gains="1:2:3",
            order="file",
            judged_only=condensed,
        )
    return expected, results


def test_condensed_pass_by_name(generated):
    """``j:NAME`` verbatim (no judged_only option) gives NTCIREVAL's condensed pass."""
    expected, _ = generated
    rows = expected[expected["condensed"]].copy()
    rows["irgauge"] = "j:" + rows["irgauge"]
    runs = {f"run{k}": str(GENERATED / "runs" / f"run{k}.trec") for k in range(1, 6)}
    result = evaluate(
        str(GENERATED / "qrels.ntcir"),
        runs,
        sorted(set(rows["irgauge"])),
        gains="1:2:3",
        order="file",
    )
    compare(rows, result, 1e-9)


def test_every_ntcireval_measure_is_mapped(generated):
    expected, _ = generated
    assert expected["ntcir"].nunique() == 54  # 47 in both passes + 7 bpref/rpref
    assert len(expected) == 40 * (47 + 54)


@pytest.mark.parametrize("condensed", [False, True], ids=["normal", "condensed"])
def test_generated_per_topic_to_1e9(generated, condensed):
    expected, results = generated
    rows = expected[expected["condensed"] == condensed]
    joined = compare(rows, results[condensed], 1e-9)
    assert len(joined) == 40 * (54 if condensed else 47)


def test_generated_bpref_relative2_is_ap_prime_and_old_bpref(generated):
    """NTCIREVAL prints neither; bpref_relative2 = AP' (j:AP), and old_bpref = bpref when
    every topic's judged nonrelevant documents are all retrieved or min(R, N_ret) = min(R, N)."""
    expected, _ = generated
    runs = {f"run{k}": str(GENERATED / "runs" / f"run{k}.trec") for k in range(1, 6)}
    result = evaluate(
        str(GENERATED / "qrels.ntcir"),
        runs,
        ["bpref_relative2", "old_bpref", "bpref", "num_nonrel_judged_ret"],
        gains="1:2:3",
        order="file",
    )
    wide = result.per_topic.pivot_table(index=["run", "topic"], columns="measure", values="value")
    ap_prime = expected[expected["measure"] == "j:AP"].set_index(["run", "topic"])["value"]
    assert np.allclose(wide["bpref_relative2"].loc[ap_prime.index], ap_prime, atol=1e-9)
    # old bpref divides by min(R, nonrel retrieved): equal to bpref iff that is min(R, N)
    judgments = pd.read_csv(
        GENERATED / "qrels.trec",
        sep=r"\s+",
        header=None,
        names=["topic", "it", "doc", "grade"],
        dtype={"topic": str},
    )
    R = judgments[judgments.grade > 0].groupby("topic").size()
    N = judgments[judgments.grade <= 0].groupby("topic").size()
    topics = wide.index.get_level_values("topic")
    same = np.minimum(R[topics].to_numpy(), wide["num_nonrel_judged_ret"].to_numpy()) == np.minimum(
        R[topics].to_numpy(), N[topics].to_numpy()
    )
    assert np.allclose(wide["old_bpref"][same], wide["bpref"][same], atol=1e-12)
    assert (wide["old_bpref"][~same] <= wide["bpref"][~same] + 1e-12).all()  # smaller divisor
    assert (~same).any()  # the data exercise the difference


TREC_NAMES = [
    "map",
    "recip_rank",
    "P_5",
    "P_10",
    "P_20",
    "P_1000",
    "recall_10",
    "recall_1000",
    "ndcg",
    "ndcg_cut_10",
    "ndcg_cut_1000",
    "Rprec",
    "bpref",
    "map_cut_10",
    "map_cut_1000",
    "success_1",
    "success_10",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "gm_map",
    "gm_bpref",
]


def test_generated_trec_eval_names():
    """The same collection through trec_eval's names (score order, -c, default gains)."""
    expected = pd.read_csv(GENERATED / "expected_trec_eval.tsv", sep="\t", dtype={"topic": str})
    expected = expected[expected["measure"].isin(TREC_NAMES)].copy()
    expected["value"] = expected["value"].astype(float)
    expected["irgauge"] = expected["measure"]
    runs = [str(GENERATED / "runs" / f"run{k}.trec") for k in range(1, 6)]
    result = evaluate(str(GENERATED / "qrels.trec"), runs, TREC_NAMES, order="score", complete=True)
    per_topic = expected[expected["topic"] != "all"]
    compare(per_topic, result, 1e-9)
    means = result.means.rename(columns={"measure": "irgauge", "value": "got"})
    summary = expected[expected["topic"] == "all"].merge(means, on=["run", "irgauge"])
    assert len(summary) == 5 * len(TREC_NAMES)
    assert np.allclose(summary["got"], summary["value"], atol=1e-9)


# -- ntcireval_samples: TRECRUN.test.nev -----------------------------------------------------


def read_nev(path: Path, run: str) -> pd.DataFrame:
    """``<topic> <measure>= <value>`` lines; comment lines (``#``) are skipped."""
    rows = []
    for line in path.read_text().splitlines():
        match = re.match(r"^\s*(\S*)\s+([^#\s][^=]*)=\s+(\S+)\s*$", line)
        if match:
            rows.append((run, match.group(2), match.group(1) or "sample", float(match.group(3))))
    return pd.DataFrame(rows, columns=["run", "ntcir", "topic", "value"])


def test_trecrun_sample_at_4_decimals():
    expected = read_nev(SAMPLES / "TRECRUN.test.nev", "TRECRUN")
    assert expected["topic"].nunique() == 3 and len(expected) == 3 * 33
    expected["irgauge"] = expected["ntcir"].map(irgauge_name)
    # NTCIR-eval splits the run in file order; -g 1:2 although only L0/L1 occur, so graded
    # RBP divides by 2 and ERR's stop probability is 1/3
    result = evaluate(
        str(SAMPLES / "test.qrels"),
        [str(SAMPLES / "TRECRUN")],
        sorted(set(expected["irgauge"])),
        gains="1:2",
        order="file",
    )
    compare(expected, result, 5e-5 + 1e-12)


# -- pyntcireval_tests: sample.rel / sample.res ----------------------------------------------

PY_CASES = [  # expected file, gains, cutoff, condensed
    ("res_test_compute.txt", "1:2:3", 1000, False),
    ("res_test_compute_grade.txt", "1:4:9", 1000, False),
    ("res_test_compute_cutoff.txt", "1:2:3", 2, False),
    ("res_test_compute_label_j.txt", "1:2:3", 1000, True),
]


@pytest.mark.parametrize(
    "expected_file,gains,cutoff,condensed", PY_CASES, ids=[c[0][:-4] for c in PY_CASES]
)
def test_pyntcireval_cases(expected_file, gains, cutoff, condensed):
    expected = read_nev(PYNTCIREVAL / expected_file, "sample")
    expected["irgauge"] = expected["ntcir"].map(irgauge_name)
    assert f"AP@{cutoff:04d}" in set(expected["ntcir"])
    # a 2-column rel file and a 1-column ranked list: one topic named by the file stem
    result = evaluate(
        str(PYNTCIREVAL / "sample.rel"),
        {"sample": str(PYNTCIREVAL / "sample.res")},
        sorted(set(expected["irgauge"])),
        gains=gains,
        judged_only=condensed,
    )
    assert result.metadata["order"].startswith("file")
    compare(expected, result, 5e-5 + 1e-12)


def test_cli_on_the_pyntcireval_sample(capsys):
    """`irgauge eval REL RES -j --gains` as NTCIREVAL's label -j | compute."""
    assert (
        main(
            [
                "eval",
                str(PYNTCIREVAL / "sample.rel"),
                str(PYNTCIREVAL / "sample.res"),
                "-m",
                "Q-measure",
                "-m",
                "nERR@1000",
                "-m",
                "AP",
                "--gains",
                "1:2:3",
                "-j",
                "--format",
                "tsv",
                "-q",
            ]
        )
        == 0
    )
    out = pd.read_csv(
        __import__("io").StringIO(capsys.readouterr().out),
        sep="\t",
        comment="#",
        dtype={"topic": str},
    )
    values = out[out["topic"] == "sample"].set_index("measure")["value"]
    # NTCIREVAL's output for this sample: pyntcireval_tests/res_test_compute_label_j.txt
    # (Q-measure= 0.1083, nERR@1000= 0.4830, AP= 0.1167, printed to 4 decimals)
    assert values["Q-measure"] == pytest.approx(0.1083, abs=5e-5)
    assert values["nERR@1000"] == pytest.approx(0.4830, abs=5e-5)
    assert values["AP"] == pytest.approx(0.1167, abs=5e-5)


def _primed(name: str) -> str:
    """Sakai's primed spelling of a measure name: the prime after the name, before its
    parameters or cutoff (``Q-measure@1000`` -> ``Q-measure'@1000``)."""
    cut = min((i for i in (name.find("("), name.find("@")) if i >= 0), default=len(name))
    return name[:cut] + "'" + name[cut:]


def test_primed_names_give_the_condensed_pass(generated):
    """``NAME'`` (Sakai's notation) gives NTCIREVAL's condensed pass, as ``j:NAME`` does."""
    expected, _ = generated
    rows = expected[expected["condensed"]].copy()
    # the NCU names hold a comma (NCUrb,BR): no primed spelling of them is in use
    rows = rows[~rows["irgauge"].str.contains(",")]
    assert rows["ntcir"].nunique() >= 40
    rows["irgauge"] = rows["irgauge"].map(_primed)
    runs = {f"run{k}": str(GENERATED / "runs" / f"run{k}.trec") for k in range(1, 6)}
    result = evaluate(
        str(GENERATED / "qrels.ntcir"),
        runs,
        sorted(set(rows["irgauge"])),
        gains="1:2:3",
        order="file",
    )
    compare(rows, result, 1e-9)
