"""Reduced relevance data (SPEC 4) and the incomplete-judgment study."""

import json
import math

import numpy as np
import pytest

from irgauge.cli import main
from irgauge.collection import Qrels
from irgauge.errors import InputError
from irgauge.collection.reduce import parse_rates, reduce_qrels, write_reduced
from irgauge.studies.incomplete_result import incomplete_study
from irgauge.io.qrels import read_qrels
from irgauge.collection.simulate import sample_paths


def make_qrels(sizes):
    """{topic: (R, N)} -> Qrels with R relevant (levels 1..3) and N nonrelevant docs."""
    topics, docnos, levels = [], [], []
    for t, (r, n) in sizes.items():
        for i in range(r):
            topics.append(t), docnos.append(f"{t}-r{i}"), levels.append(1 + i % 3)
        for i in range(n):
            topics.append(t), docnos.append(f"{t}-n{i}"), levels.append(0 if i % 4 else -1)
    enc = lambda xs: np.array([x.encode() for x in xs])  # noqa: E731
    return Qrels.from_arrays(enc(topics), enc(docnos), np.array(levels))


SIZES = {"a": (0, 5), "b": (1, 3), "c": (7, 9), "d": (13, 11), "e": (40, 250), "f": (3, 0)}
RATES = (90, 70, 50, 33, 12.5, 10, 1)


def kept_sets(reduction, rate):
    q = reduction.qrels_at(rate)
    return {(t, d) for t, d in zip(q.topics, q.docnos)}, q


def test_kept_counts_follow_the_rule():
    reduction = reduce_qrels(make_qrels(SIZES), RATES, seed=7)
    for rate in RATES:
        _, q = kept_sets(reduction, rate)
        for topic, (r, n) in SIZES.items():
            mine = q.topics == topic.encode()
            want_r = min(r, max(1, math.trunc(r * rate / 100)))
            want_n = min(n, max(10, math.trunc(n * rate / 100)))
            assert int((q.levels[mine] >= 1).sum()) == want_r, (topic, rate)
            assert int((q.levels[mine] < 1).sum()) == want_n, (topic, rate)
    manifest = reduction.manifest()
    # topic e by the rule above: R = min(40, max(1, trunc(40 * rate / 100))), N likewise
    # with floor 10, e.g. at 12.5%: trunc(5.0) = 5 and trunc(31.25) = 31
    assert manifest["topics"]["e"] == {
        "R": 40,
        "N": 250,
        "kept": {
            "90": {"R": 36, "N": 225},
            "70": {"R": 28, "N": 175},
            "50": {"R": 20, "N": 125},
            "33": {"R": 13, "N": 82},
            "12.5": {"R": 5, "N": 31},
            "10": {"R": 4, "N": 25},
            "1": {"R": 1, "N": 10},
        },
    }


def test_nested_across_rates_and_100_is_everything():
    reduction = reduce_qrels(make_qrels(SIZES), RATES, seed=3)
    previous, _ = kept_sets(reduction, 100)
    assert len(previous) == len(reduction.qrels)
    for rate in sorted(RATES, reverse=True):
        current, _ = kept_sets(reduction, rate)
        assert current <= previous
        previous = current


def test_seeded_reproducible_and_seeds_differ():
    q = make_qrels(SIZES)
    same = [kept_sets(reduce_qrels(q, (50,), seed=11), 50)[0] for _ in range(2)]
    assert same[0] == same[1]
    other = kept_sets(reduce_qrels(q, (50,), seed=12), 50)[0]
    assert other != same[0] and len(other) == len(same[0])
    assert reduce_qrels(q, (50,)).seed >= 0  # a fresh seed is drawn and reported


def test_every_document_can_be_drawn():
    q = make_qrels({"t": (10, 10)})
    seen = set()
    for seed in range(60):
        seen |= kept_sets(reduce_qrels(q, (10,), seed=seed), 10)[0]
    assert len(seen) == 20  # R_10 = 1: all ten relevant documents get drawn at some seed


@pytest.mark.parametrize("rates", ["0", "-5", "100.5", "90,abc", "", [150]])
def test_bad_rates(rates):
    with pytest.raises(InputError):
        parse_rates(rates)


def test_parse_rates_sorted_unique():
    assert parse_rates("10,90,50,90") == [90, 50, 10]
    fractional = 12.5  # a rate need not be whole
    assert parse_rates([fractional, 100]) == [100, fractional]


def test_write_keeps_input_format(tmp_path):
    path = tmp_path / "ntcir.rel"
    lines = [
        f"T{t} D{t}-{i} {'L3' if i == 0 else 'L1' if i < 4 else 'L0'}"
        for t in range(3)
        for i in range(30)
    ]
    path.write_text("\n".join(lines) + "\n")
    manifest = write_reduced(reduce_qrels(path, (50, 10), seed=5), tmp_path / "out")
    assert manifest["files"] == {"50": "ntcir.50.rel", "10": "ntcir.10.rel"}
    written = (tmp_path / "out" / "ntcir.10.rel").read_text().splitlines()
    assert set(written) <= set(lines) and len(written) == 3 * (1 + 10)
    assert read_qrels(tmp_path / "out" / "ntcir.10.rel").fmt == "ntcir"
    saved = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert saved["seed"] == 5 and saved["topics"]["T1"]["R"] == 4


def test_condensed_equals_original_at_100_when_complete():
    # every retrieved document judged: condensed lists are the lists themselves
    q = make_qrels({"a": (4, 12), "b": (6, 10), "c": (2, 15)})
    runs = {}
    rng = np.random.default_rng(0)
    for k in range(4):
        run = {}
        for t, n in (("a", 16), ("b", 16), ("c", 17)):
            docs = [d.decode() for tt, d in zip(q.topics, q.docnos) if tt == t.encode()]
            run[t] = {d: float(s) for d, s in zip(docs, rng.random(len(docs)))}
        runs[f"r{k}"] = run
    result = incomplete_study(
        q, runs, ["AP", "Q-measure", "nDCG@10"], rates=(50,), seed=1, samples=50
    )
    full = result.table[result.table["rate"] == 100].set_index("measure")
    for m in ("AP", "Q-measure", "nDCG@10"):
        assert full.loc[m, "mean"] == pytest.approx(full.loc[m + "'", "mean"])
    assert (full["tau"] == 1.0).all()
    half = result.table[result.table["rate"] == 50].set_index("measure")
    assert half.loc["AP", "mean"] != pytest.approx(half.loc["AP'", "mean"])


def test_cli_reduce_and_incomplete(tmp_path, capsys):
    qrels, runs = sample_paths()
    assert (
        main(
            [
                "reduce",
                str(qrels),
                "--rates",
                "50,10",
                "--seed",
                "4",
                "--out",
                str(tmp_path / "red"),
            ]
        )
        == 0
    )
    assert "50\t930\t" in capsys.readouterr().out
    out = tmp_path / "inc"
    assert (
        main(
            [
                "incomplete",
                str(qrels),
                *map(str, runs[:4]),
                "-m",
                "AP bpref",
                "--rates",
                "50",
                "--seed",
                "4",
                "-B",
                "50",
                "--format",
                "tsv",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "# seed: 4" in text and "AP'\tcondensed\t50\t" in text
    for stem in ("incomplete_mean", "incomplete_tau", "incomplete_discpower"):
        assert (out / f"{stem}.png").stat().st_size > 0 and (out / f"{stem}.svg").exists()
    assert (out / "qrels" / "manifest.json").exists()


def test_cli_bad_rates_exit_2(tmp_path, capsys):
    qrels, _ = sample_paths()
    with pytest.raises(SystemExit) as stop:  # refused as it is parsed, naming the option
        main(["reduce", str(qrels), "--rates", "90,0", "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert "argument --rates: rate '0' is outside (0, 100]" in capsys.readouterr().err


@pytest.mark.parametrize("end", [b"\r", b"\r\n", b"\n"])
def test_reduced_files_hold_the_lines_the_reader_numbered(tmp_path, end):
    """The kept lines are read again by the input module's line reader, which ends lines
    where the qrels reader does: a file of lone-CR line ends (once split on LF only, an
    IndexError) and a gzip file give the kept lines as written (a comment line counted)."""
    import gzip

    lines = [b"# judged by two", b"1 0 a 1", b"1 0 b 0", b"1 0 c 2", b"2 0 d 1", b"2 0 e 0"]
    plain, packed = tmp_path / "q.txt", tmp_path / "z.txt.gz"
    plain.write_bytes(end.join(lines) + end)
    packed.write_bytes(gzip.compress(end.join(lines)))
    for source in (plain, packed):
        reduction = reduce_qrels(source, [50], seed=3)
        manifest = write_reduced(reduction, tmp_path / source.name.split(".")[0])
        written = (tmp_path / source.name.split(".")[0] / manifest["files"]["50"]).read_bytes()
        kept = written.split(b"\n")[:-1]
        assert len(kept) == int(reduction.keep_mask(50).sum()) == manifest["judgments"]["50"]
        assert set(kept) <= set(lines[1:])
        numbers = reduction.qrels.line_numbers[reduction.keep_mask(50)]
        assert kept == [lines[n - 1] for n in sorted(numbers)]
