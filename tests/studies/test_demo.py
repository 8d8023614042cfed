"""irgauge demo: every study on the bundled sample, then the report (its own file: the
demo is the longest single test, and --dist loadfile runs a file on one worker)."""

import json

import pytest

from irgauge.cli import main


@pytest.mark.slow  # it runs the demo
def test_demo_says_where_it_wrote_first(tmp_path, capsys, monkeypatch):
    # small samples: what is checked is the first lines, every study's output, no skip
    # and summaries wrapped to the terminal (printed at up to 1,259 columns)
    monkeypatch.setenv("COLUMNS", "72")
    argv = ["-B", "20", "--trials", "20", "-P", "20", "--topic-resamples", "10"]
    assert main(["demo", "--out", str(tmp_path), *argv]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"demo: wrote {tmp_path.resolve()}"
    assert lines[1] == f"REPORT: {(tmp_path / 'report.html').resolve()}"
    bullets = [line for line in lines if line.lstrip().startswith(("* ", "! "))]
    assert len(bullets) > 10 and max(map(len, bullets)) <= 72
    for study in ("collection", "onerel", "incomplete", "qa", "predictive", "topicset"):
        assert (tmp_path / study / "manifest.json").exists()
    assert "skipped" not in "\n".join(lines)
    topicset = json.loads((tmp_path / "topicset" / "manifest.json").read_text())
    assert topicset["parameters"]["topic_resamples"] == 10  # --topic-resamples, not --trials


def test_each_value_goes_to_its_own_concept(tmp_path, monkeypatch):
    """The demo handed its --trials (topic-subset draws, halvings) to the topic set design
    as its bootstrap resamples of the topics: every study now takes its topic resamples
    from --topic-resamples, and --trials goes only to the studies that draw topic subsets."""
    import irgauge.studies as studies
    from irgauge.cli import cmd_demo
    from irgauge.report import html
    from irgauge.studies import collection_record, qa

    given = {}

    def study(name):
        def run(*inputs, **options):
            given[name] = options

        return run

    monkeypatch.setattr(studies, "study_function", study)
    monkeypatch.setattr(collection_record, "collection_summary", lambda *a: None)
    monkeypatch.setattr(qa, "qa_collection_from_adhoc", lambda *a: {"gold": 0, "runs": 0})
    monkeypatch.setattr(html, "write_report", lambda *a, **k: tmp_path / "report.html")
    cmd_demo.run_demo(tmp_path, seed=1, samples=7, trials=8, topic_resamples=9, halvings=6)
    assert {name: options.get("topic_resamples") for name, options in given.items()} == {
        name: 9 for name in studies.PAPERS
    }
    draws = {name: options["trials"] for name, options in given.items() if "trials" in options}
    assert draws == {"onerel": 8, "qa": 8}
    # predictive's halvings are -P/--halvings, as in study predictive, not --trials
    halvings = {
        name: options["halvings"] for name, options in given.items() if "halvings" in options
    }
    assert halvings == {"predictive": 6}


@pytest.mark.slow  # it runs the demo up to a study
def test_a_failed_demo_leaves_no_folder(tmp_path):
    """The demo wrote the collection summary before a study refused its options, and left
    that folder behind; the command line now refuses one topic resample when parsing."""
    from irgauge.cli.cmd_demo import run_demo
    from irgauge.errors import InputError

    with pytest.raises(InputError, match="at least 2"):
        run_demo(tmp_path / "demo", samples=20, trials=20, topic_resamples=1)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SystemExit) as refused:
        main(["demo", "--out", str(tmp_path / "demo"), "--topic-resamples", "1"])
    assert refused.value.code == 2
    assert list(tmp_path.iterdir()) == []


def test_the_default_folder_is_named_as_the_default(tmp_path, monkeypatch):
    """Without --out the first line says that the folder is the default, in the current
    folder (a checkout, where .gitignore covers it)."""
    import argparse

    from irgauge.cli.cmd_demo import where_written

    monkeypatch.chdir(tmp_path)
    default = argparse.Namespace(out="irgauge-demo", given_options={})
    assert where_written(default) == (
        f"demo: wrote {tmp_path.resolve() / 'irgauge-demo'} "
        "(the default, ./irgauge-demo; --out DIR writes elsewhere)"
    )
    given = argparse.Namespace(out="x", given_options={"out": "--out"})
    assert where_written(given) == f"demo: wrote {tmp_path.resolve() / 'x'}"


def test_the_gitignore_covers_the_demo_folder():
    from pathlib import Path

    ignored = (Path(__file__).parents[2] / ".gitignore").read_text().split()
    assert "irgauge-demo/" in ignored
