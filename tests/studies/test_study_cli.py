"""``irgauge study NAME``: each study's own options, recorded in the manifest or refused;
several collections in one command; notes on stderr."""

import json

import pytest

from irgauge.cli import main


def _help(capsys, *args):
    with pytest.raises(SystemExit) as done:
        main(["study", *args, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_each_study_has_its_own_help_with_the_papers_defaults(capsys):
    onerel = _help(capsys, "onerel")
    assert "--swap-mode" in onerel and "--replacement" in onerel and "--gains" in onerel
    assert "--subset-size" in onerel and "default: --top-k 30 by AP" in onerel
    assert "Bootstrap-based comparisons" in onerel  # cites the paper
    incomplete = _help(capsys, "incomplete")
    assert "--reductions" in incomplete and "--rates" in incomplete
    assert "--trials" not in incomplete  # no trials to ignore
    qa = _help(capsys, "qa")
    assert "--second-size" in qa and "--list-task" in qa and "(default: 50)" in qa
    predictive = _help(capsys, "predictive")
    assert "(default: 2000)" in predictive and "--samples" not in predictive
    assert "--alpha" not in predictive
    assert len({onerel, incomplete, qa, predictive}) == 4
    for text in (onerel, incomplete, qa, predictive):
        assert "seed 00" not in text and "SPEC" not in text


@pytest.mark.slow
@pytest.mark.usefixtures("undrawn_figures")
def test_options_are_recorded(collection, tmp_path, capsys):
    qrels, runs = collection
    code = main(
        [
            "study",
            "incomplete",
            str(qrels),
            *map(str, runs),
            "--out",
            str(tmp_path),
            "-B",
            "50",
            "--reductions",
            "2",
            "--rates",
            "50",
            "--top-k",
            "5",
            "--seed",
            "3",
            "--alpha",
            "0.01",
            "--rel-level",
            "2",
            "--order",
            "file",
            "--quiet",
        ]
    )
    assert code == 0
    manifest = json.loads((tmp_path / "incomplete" / "manifest.json").read_text())
    p = manifest["parameters"]
    assert p["reductions"] == 2 and p["rates"] == [100, 50] and p["alpha"] == 0.01
    assert p["eval_options"]["rel_level"] == 2 and p["eval_options"]["order"] == "file"
    assert len(manifest["seeds"]["reductions"]) == 2


@pytest.mark.slow
@pytest.mark.usefixtures("undrawn_figures")
def test_qa_options_recorded_and_skip_printed(collection, tmp_path, capsys):
    from irgauge.studies.qa import qa_collection_from_adhoc

    qrels, runs = collection
    made = qa_collection_from_adhoc(qrels, runs, tmp_path / "data")
    code = main(
        [
            "study",
            "qa",
            str(made["gold"]),
            *map(str, made["runs"]),
            "--out",
            str(tmp_path),
            "--trials",
            "30",
            "--repetitions",
            "2",
            "--rel-level",
            "2",
            "--answer-order",
            "file",
            "--seed",
            "1",
            "--sign-alphas",
            "0.05",
            "--gains",
            "1:1:1,10:5:1",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    manifest = json.loads((tmp_path / "qa" / "manifest.json").read_text())
    assert manifest["parameters"]["gain_variants"] == ["1:1:1", "10:5:1"]
    assert manifest["parameters"]["measures"]["Q 10:5:1"] == "Q-measure(gains=1:5:10)"
    assert "Q 2:1.5:1" not in manifest["parameters"]["measures"]
    assert manifest["parameters"]["qa_options"]["rel_level"] == 2
    assert manifest["parameters"]["conventions"]["rel_level"] == 2
    assert manifest["parameters"]["sign_alphas"] == [0.05]
    assert "c = 50 skipped" in captured.err  # a skipped experiment is said on the terminal
    assert "DERIVED" in captured.err


@pytest.mark.slow
@pytest.mark.usefixtures("undrawn_figures")
def test_several_collections_side_by_side(collection, tmp_path, capsys):
    qrels, runs = collection
    rundir = runs[0].parent
    toml = tmp_path / "collections.toml"
    toml.write_text(f'[collections.second]\nqrels = "{qrels}"\nruns = "{rundir}"\n')
    code = main(
        [
            "study",
            "predictive",
            "--collection",
            f"first={qrels}:{rundir}",
            "--collections",
            str(toml),
            "--out",
            str(tmp_path / "o"),
            "-P",
            "40",
            "--seed",
            "2",
            "--quiet",
        ]
    )
    assert code == 0
    out = tmp_path / "o"
    assert (out / "first" / "predictive" / "manifest.json").exists()
    assert (out / "second" / "predictive" / "manifest.json").exists()
    manifest = json.loads((out / "predictive-comparison" / "manifest.json").read_text())
    names = {e["name"] for e in manifest["tables"]}
    assert {"collection_statistics", "phi_side_by_side", "phi"} <= names
    side = (out / "predictive-comparison" / "tables" / "phi_side_by_side.csv").read_text()
    assert side.splitlines()[0] == "predictor,second,first"  # file first, then options
    stats = out / "predictive-comparison" / "tables" / "collection_statistics.csv"
    # Table 2 of Sakai (2006) is onerel's; predictive's statistics do not cite it
    assert "Bootstrap-based comparisons" not in json.dumps(manifest["tables"][0]["caption"])
    assert manifest["tables"][0]["caption"] == "Collection statistics"
    assert len(stats.read_text().splitlines()) == 3


def test_bad_collection_spec_is_one_line_error(tmp_path, capsys):
    assert main(["study", "onerel", "--collection", "nope", "--out", str(tmp_path)]) == 2
    assert "NAME=QRELS:RUNDIR" in capsys.readouterr().err


@pytest.mark.slow
def test_interrupted_study_leaves_previous_output(collection, tmp_path, monkeypatch):
    from irgauge.studies import _plots
    from irgauge.studies.predictive import run_predictive

    qrels, runs = collection
    run_predictive(qrels, runs, tmp_path, halvings=20, seed=1)
    before = (tmp_path / "predictive" / "manifest.json").read_bytes()

    def interrupted(*args, **kwargs):  # Ctrl-C while the figures are drawn
        raise KeyboardInterrupt

    monkeypatch.setattr(_plots, "heatmap", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_predictive(qrels, runs, tmp_path, halvings=30, seed=2)
    assert (tmp_path / "predictive" / "manifest.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["collection", "predictive"]


def test_progress_only_on_a_terminal_and_not_with_quiet(monkeypatch):
    import argparse
    import sys

    from irgauge.cli import _study_options

    args = argparse.Namespace(study="onerel", quiet=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert _study_options._progress(args) is None
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    factory = _study_options._progress(args)
    assert callable(factory) and callable(factory("swap"))
    args.quiet = True
    assert _study_options._progress(args) is None


@pytest.mark.parametrize(
    "body, where, problem",
    [
        # read as text without the input module: a UnicodeDecodeError traceback
        (b'[collections.c]\nqrels = "q\xff"\n', ":2:", "not UTF-8 text"),
        # a number, a list of numbers, a table: TypeErrors from the path arithmetic
        (b'[collections.c]\nqrels = 3\nruns = "runs"\n', ":2:", "'qrels' is an integer"),
        (b'[collections.c]\nqrels = "q"\nruns = [1]\n', ":3:", "'runs' is an integer"),
        (b'[collections.c]\nqrels = "q"\nruns = { a = 1 }\n', ":3:", "'runs' is a table"),
        (b'[collections.c]\nqrels = "q\\u0000"\nruns = "r"\n', ":2:", "holds a NUL character"),
        (b'[collections.c]\nqrels = "q"\nruns = []\n', ":3:", "'runs' is an empty list"),
    ],
)
def test_collections_file_with_bad_values_is_one_line_error(tmp_path, capsys, body, where, problem):
    toml = tmp_path / "c.toml"
    toml.write_bytes(body)
    code = main(["study", "onerel", "--collections", str(toml), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{toml}{where}" in err and problem in err, err
    assert not (tmp_path / "o").exists()


def test_collections_file_with_cr_line_ends_reads_as_lf(collection, tmp_path, capsys):
    """A lone CR ends a line in every reader; TOML itself refuses it."""
    qrels, runs = collection
    toml = tmp_path / "c.toml"
    toml.write_bytes(f'[collections.c]\rqrels = "{qrels}"\rruns = "{runs[0].parent}"\r'.encode())
    from irgauge.studies.collections import read_collections_toml

    assert read_collections_toml(toml) == {"c": (qrels, sorted(runs))}


# a collection's name is its results' folder: a path would put them elsewhere, and the
# comparison's own name would have them replaced by the comparison (found by the red team)
BAD_COLLECTION_NAMES = [
    "..",
    "../up",
    "a/b",
    ".",
    " ",
    "predictive-comparison",
    "Predictive-Comparison",
]


@pytest.mark.parametrize("name", BAD_COLLECTION_NAMES)
@pytest.mark.parametrize("how", ["option", "toml"])
def test_collection_name_that_is_not_a_folder_name_is_refused(
    collection, tmp_path, capsys, name, how
):
    qrels, runs = collection
    rundir = runs[0].parent
    if how == "option":
        given = ["--collection", f"{name}={qrels}:{rundir}"]
    else:
        toml = tmp_path / "c.toml"
        toml.write_text(f'[collections."{name}"]\nqrels = "{qrels}"\nruns = "{rundir}"\n')
        given = ["--collections", str(toml)]
    out = tmp_path / "o"
    code = main(["study", "predictive", *given, "--out", str(out), "-P", "5", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and f"collection name {name!r}" in err
    if how == "toml" and name.lower() != "predictive-comparison":  # the file's own check
        assert str(toml) in err
    assert not out.exists() and not (tmp_path / "up").exists()


def test_collection_names_refused_by_the_api_before_any_writing(tmp_path):
    from irgauge import InputError
    from irgauge.studies.collections import run_on_collections

    for name in BAD_COLLECTION_NAMES:
        with pytest.raises(InputError, match="collection name"):
            run_on_collections("predictive", {name: ("q", [])}, tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_collection_names_that_differ_only_in_case_are_refused(tmp_path):
    """Their result folders are one folder on a case-insensitive file system: the second
    collection's results would replace the first's."""
    from irgauge import InputError
    from irgauge.studies.collections import run_on_collections

    with pytest.raises(InputError, match="'trec' and 'TREC' differ only in case"):
        run_on_collections("predictive", {"trec": ("q", []), "TREC": ("q", [])}, tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_a_default_filter_is_not_reported_as_asked_for():
    """ "6 systems (all 6; the top 30 by AP were asked for)" where nobody asked: the
    study's default filter is called its default."""
    from irgauge.studies._common import systems_phrase

    default = systems_phrase(6, 6, 30, None, "AP", default=(30, None))
    assert default == "6 systems (all 6; the default filter, the top 30 by AP, keeps them all)"
    asked = systems_phrase(6, 6, 40, None, "AP", default=(30, None))
    assert asked == "6 systems (all 6; the top 40 by AP were asked for)"
    assert systems_phrase(6, 8, 6, None, "AP") == "6 systems (the top 6 of 8 by AP)"


@pytest.mark.slow  # runs a study
@pytest.mark.usefixtures("undrawn_figures")
def test_a_study_with_no_selection_names_its_default(collection, tmp_path, capsys):
    qrels, runs = collection
    argv = ["study", "incomplete", str(qrels), *map(str, runs), "--out", str(tmp_path)]
    argv += ["-B", "20", "--reductions", "1", "--rates", "50", "--topic-resamples", "2"]
    assert main([*argv, "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "asked for" not in out and "the default filter, the top 30 by AP" in out
