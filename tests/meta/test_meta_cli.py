"""CLI smoke tests for the meta-evaluation commands, and exit status 2 on bad input."""

import json

import pytest

from meta_paths import ADHOC8
from irgauge.cli import main


@pytest.fixture(scope="module")
def files():
    if not ADHOC8.is_dir():
        pytest.skip("shared data not available")
    return [f"{m}={ADHOC8 / f'adhoc8_{m}.csv'}" for m in ("ap", "p10", "rr")]


def run_json(capsys, argv):
    assert main(argv + ["--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_discpower_json_records_everything(capsys, files):
    out = run_json(
        capsys, ["discpower", *files[:2], "--top-k", "12", "--by", "ap", "--seed", "5", "-B", "200"]
    )
    meta = out["metadata"]
    assert meta["seed"] == 5 and meta["bootstrap_samples"] == 200
    assert len(meta["systems"]) == 12 and len(meta["topics"]) == 50
    assert meta["select_top_k"] == 12 and meta["select_by"] == "ap"
    assert {r["measure"] for r in out["results"]} == {"ap", "p10"}
    again = run_json(
        capsys, ["discpower", *files[:2], "--top-k", "12", "--by", "ap", "--seed", "5", "-B", "200"]
    )
    assert again == out


def test_each_command_runs_and_writes_figures(capsys, files, tmp_path):
    common = ["--top-k", "10", "--by", "ap", "--seed", "1", "--figures", str(tmp_path)]
    for argv in (
        ["swap", *files, "--trials", "50", "--bins"],
        ["stability", *files, "--trials", "50"],
        ["correlate", *files, "--top-k", "10", "--by", "ap", "--figures", str(tmp_path)],
        ["predictive", *files, "-P", "50", "-k", "5,10"],
        ["compare", files[0], "--pair", "run1", "run2", "-B", "100"],
        ["compare", files[0], "--correction", "bh", "--tests", "t,sign", "-B", "100"],
    ):
        argv = argv if argv[0] in ("correlate", "compare") else argv + common
        if argv[0] == "compare":
            argv += ["--top-k", "10", "--by", "ap"] if "--pair" not in argv else []
        out = run_json(capsys, argv)
        assert out["results"], argv[0]
    written = {p.name for p in tmp_path.iterdir()}
    for stem in ("swap_rates", "minority_ties", "kendall_tau", "phi_vs_k"):
        assert {f"{stem}.png", f"{stem}.svg"} <= written
    curve = run_json(
        capsys, ["predictive", *files, "-P", "50", "-k", "5,10", "--curve", "--seed", "4"]
    )
    assert {(r["measure_a"], r["k"]) for r in curve["results"]} >= {("ap", 5), ("rr", 10)}
    assert main(["predictive", *files, "-P", "50", "--curve"]) == 2
    assert "--curve needs" in capsys.readouterr().err


def test_compare_two_systems_tsv(capsys, files):
    assert (
        main(
            [
                "compare",
                files[0],
                "--pair",
                "run1",
                "run2",
                "--seed",
                "3",
                "-B",
                "100",
                "--format",
                "tsv",
            ]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "# seed: 3" in text
    header, row = [l for l in text.splitlines() if not l.startswith("#")]
    assert row.split("\t")[1:3] == ["run1", "run2"]


@pytest.mark.parametrize(
    "content,argv_extra,problem",
    [
        ("run1,run2\n0.1,0.2\n0.3\n", [], "missing cell"),
        ("run1,run2\n0.1,zz\n0.3,0.4\n", [], "non-numeric"),
        ("run1\n0.1\n0.3\n", [], "at least 2 are needed"),
        ("run1,run2\n0.1,0.2\n0.3,0.4\n0.5,0.5\n", ["-k", "2"], "disjoint subsets of 2 topics"),
    ],
)
def test_bad_input_exits_2(capsys, tmp_path, content, argv_extra, problem):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    assert main(["swap", str(path), "--seed", "1", *argv_extra]) == 2
    err = capsys.readouterr().err
    assert problem in err
    if "subsets" not in problem:
        assert str(path) in err


def test_duplicate_rows_and_topic_mismatch_exit_2(capsys, tmp_path):
    dup = tmp_path / "dup.tsv"
    dup.write_text("run\tmeasure\ttopic\tvalue\nA\tap\t1\t0.1\nA\tap\t1\t0.2\n")
    assert main(["discpower", str(dup)]) == 2
    assert "duplicate row" in capsys.readouterr().err
    mixed = tmp_path / "mixed.tsv"
    mixed.write_text(
        "run\tmeasure\ttopic\tvalue\nA\tap\t1\t0.1\nB\tap\t1\t0.2\nA\trr\t2\t0.1\nB\trr\t2\t0.2\n"
    )
    assert main(["correlate", str(mixed)]) == 2
    assert "different topics" in capsys.readouterr().err
    assert main(["discpower"]) == 2


def test_scores_computed_in_process(capsys):
    from meta_paths import DATA
    from irgauge.evaluation import score_matrices

    folder = DATA / "ntcireval_generated"
    if not folder.is_dir():
        pytest.skip("shared data not available")
    runs = sorted(str(p) for p in (folder / "runs").iterdir())
    qrels = str(folder / "qrels.trec")
    matrices = score_matrices(qrels, runs, ["ap", "ndcg"])
    assert list(matrices) == ["ap", "ndcg"] and matrices["ap"].values.shape == (5, 8)
    out = run_json(capsys, ["correlate", "--qrels", qrels, "--run", *runs, "-m", "ap,ndcg"])
    assert len(out["results"]) == 4 and len(out["metadata"]["systems"]) == 5
    assert main(["discpower", "--qrels", qrels, "-m", "ap"]) == 2
    assert "--qrels and --run go together" in capsys.readouterr().err
