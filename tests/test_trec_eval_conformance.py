"""irgauge against trec_eval 10.0's own test suite (../shared/data/trec_eval_tests).

QUICKTEST_COMMANDS.txt gives the trec_eval options behind each out.test* file; the same
options are passed to ``irgauge eval --format trec`` and every value of every measure
irgauge shares with trec_eval is compared per topic and for 'all' at the printed
precision (|ours - theirs| <= 5e-5; counts exactly).

Conventions that make irgauge read the files as trec_eval does, given on every call:
``--order score`` (score descending, ties by docno descending), ``--empty-topics zero``
(trec_eval averages every topic it evaluates, relevant documents or not) and, for
qrels.rel_level, ``--negative unjudged`` (trec_eval reads a negative level as "in the pool
but unjudged", where irgauge's default is "judged nonrelevant"). With -l2 nothing else
changes: trec_eval's ndcg/G/rbp give every level its gain whatever -l says, and so does
irgauge by default (nDCG's ``levels=all``); binary measures use the threshold.

trec_eval measures deliberately not supported (trec_names.py: NOT_MEASURES and
UNSUPPORTED_REASONS, each asserted not to
parse, so that a new irgauge measure forces this mapping to grow):
- runid, num_q: not measures; the report prints them (num_q is checked against
  topics_averaged);
- relstring: the string of relevance values of the top documents, not a number;
- the preference measures (prefs_*, *_avgjg with -R prefs / qrels_prefs) and qrels_jg:
  they need preference or multi-judge qrels formats that irgauge does not read;
- out.test.aqZ (-Z z-scores standardised against a per-topic mean/sd file): a
  standardisation of the values, not a measure; not offered.
"""

from __future__ import annotations

import io
import re
from contextlib import redirect_stdout
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from irgauge.cli import main
from irgauge.errors import MeasureError
from irgauge.measures import parse_measure
from trec_names import NOT_MEASURES, irgauge_measure, unsupported_reason

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_eval_tests"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"no trec_eval test data at {DATA}")

TOLERANCE = 5e-5 + 1e-9  # half a unit of the 4th decimal that trec_eval prints

# (expected file, qrels, run, extra irgauge options, per topic?)
CASES = {
    "out.test": ("qrels.test", "results.test", [], False),
    "out.test.with-comments": ("qrels.test.with-comments", "results.test", [], False),
    "out.comment.test": ("qrels.comment.test", "results.comment.test", [], False),
    "out.test.a": ("qrels.test", "results.test", [], False),
    "out.test.aq": ("qrels.test", "results.test", [], True),
    "out.test.aqc": ("qrels.test", "results.trunc", ["-c"], True),
    "out.test.aqcM": ("qrels.test", "results.trunc", ["-c", "-M", "100"], True),
    "out.test.aql": (
        "qrels.rel_level",
        "results.test",
        ["-l", "2", "--negative", "unjudged"],
        True,
    ),
    "out.test.meas_params": ("qrels.test", "results.test", [], True),
}
EXPECTED_FILE = {"out.test.with-comments": "out.test"}

Rows = Dict[Tuple[str, str], str]


def read_trec_output(text: str) -> Rows:
    """(measure, topic) -> value text, from trec_eval's `measure<TAB>topic<TAB>value`."""
    rows: Rows = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and not line.startswith("#"):
            rows[(parts[0].strip(), parts[1])] = parts[2]
    return rows


def expected(case: str) -> Rows:
    return read_trec_output((DATA / EXPECTED_FILE.get(case, case)).read_text())


def run_irgauge(case: str, measures: List[str]) -> Rows:
    qrels, run, options, per_topic = CASES[case]
    argv = [
        "eval",
        str(DATA / qrels),
        str(DATA / run),
        "--format",
        "trec",
        "--order",
        "score",
        "--empty-topics",
        "zero",
        *options,
        *(["-q"] if per_topic else []),
    ]
    for measure in measures:
        argv += ["-m", measure]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(argv) == 0
    return read_trec_output(out.getvalue())


def shared_names(rows: Rows) -> Dict[str, str]:
    names = dict.fromkeys(name for name, _ in rows)
    return {n: irgauge_measure(n) for n in names if irgauge_measure(n) is not None}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_shared_measure_matches_trec_eval(case):
    theirs = expected(case)
    mapping = shared_names(theirs)
    assert mapping, "no shared measure found"
    ours = run_irgauge(case, list(mapping.values()))
    label = {m: n for n, m in mapping.items()}
    compared, mismatches = 0, []
    for (name, topic), text in theirs.items():
        if name not in mapping:
            continue
        mine = ours.get((mapping[name], topic))
        if mine is None:
            mismatches.append(f"{name} {topic}: missing (trec_eval {text})")
            continue
        compared += 1
        if abs(float(mine) - float(text)) > TOLERANCE:
            mismatches.append(f"{name} [{mapping[name]}] {topic}: irgauge {mine}, trec_eval {text}")
    # trec_eval prints gm_map and gm_bpref for 'all' only
    extra = {(label[m], t) for m, t in ours if m in label and not label[m].startswith("gm_")} - set(
        theirs
    )
    assert not mismatches, f"{len(mismatches)} of {compared}:\n" + "\n".join(mismatches[:40])
    assert not extra, f"topics trec_eval did not print: {sorted(extra)[:10]}"
    if ("num_q", "all") in theirs:
        assert ours[("num_q", "all")] == theirs[("num_q", "all")]


@pytest.mark.parametrize("case", sorted(set(CASES) - {"out.test.meas_params"}))
def test_counts_print_as_integers(case):
    theirs = expected(case)
    ours = run_irgauge(case, ["num_ret", "num_rel_ret"])
    assert ours[("num_ret", "all")] == theirs[("num_ret", "all")]
    assert ours[("num_rel_ret", "all")] == theirs[("num_rel_ret", "all")]


def all_trec_eval_names() -> List[str]:
    names = []
    for path in sorted(DATA.glob("out.*")):
        names += [name for name, _ in read_trec_output(path.read_text())]
    return list(dict.fromkeys(names))


def test_mapping_covers_every_trec_eval_measure():
    """Every name trec_eval prints in its test suite is mapped, or is not a measure, or
    is one of the deliberately unsupported families."""
    unknown = [
        n
        for n in all_trec_eval_names()
        if irgauge_measure(n) is None and n not in NOT_MEASURES and unsupported_reason(n) is None
    ]
    assert not unknown, f"trec_eval measures neither mapped nor listed: {unknown}"


def test_unsupported_names_really_are_unsupported():
    """If irgauge learns one of these, the mapping above must learn it too."""
    names = [
        n for n in all_trec_eval_names() if irgauge_measure(n) is None and n not in NOT_MEASURES
    ]
    assert names  # relstring and the prefs measures are in the suite
    parsable = []
    for name in names:
        try:
            parse_measure(name)
            parsable.append(name)
        except MeasureError:
            pass
    assert not parsable, f"irgauge parses these now; map them: {parsable}"


def test_trec_eval_names_parse_to_the_mapped_measures():
    """The trec_eval spellings are aliases of exactly the measures the mapping names."""
    for name in all_trec_eval_names():
        target = irgauge_measure(name)
        if target is None or not re.fullmatch(r"[A-Za-z0-9_.]+", name):
            continue  # -m name.params spellings are trec_eval's command line, not names
        if name.startswith(("utility_", "11pt_avg_", "ndcg_")) and "," in name:
            continue
        alias, mapped = parse_measure(name), parse_measure(target)
        assert (alias.canonical, alias.cutoff) == (mapped.canonical, mapped.cutoff), name


def test_max_docs_keeps_the_first_documents_in_evaluation_order(tmp_path):
    """-M 2 on a run whose file order differs from its score order."""
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 1.0 r\n1 Q0 b 2 3.0 r\n1 Q0 c 3 2.0 r\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    rows = {}
    for max_docs in ("2", "3"):
        out = io.StringIO()
        with redirect_stdout(out):
            main(
                [
                    "eval",
                    str(qrels),
                    str(run),
                    "--format",
                    "trec",
                    "-M",
                    max_docs,
                    "-m",
                    "num_ret",
                    "-m",
                    "num_rel_ret",
                ]
            )
        rows[max_docs] = read_trec_output(out.getvalue())
    # score order is b, c, a: the first two hold one relevant document (c)
    assert rows["2"][("num_ret", "all")] == "2" and rows["2"][("num_rel_ret", "all")] == "1"
    assert rows["3"][("num_rel_ret", "all")] == "2"
