"""irgauge demo: every study on the bundled sample, then the report (its own file: the
demo is the longest single test, and --dist loadfile runs a file on one worker)."""

import pytest

from irgauge.cli import main

pytestmark = pytest.mark.slow  # each test runs the demo


def test_demo_prints_report_first(tmp_path, capsys):
    # small samples: what is checked is the report line, every study's output and no skip
    argv = ["--B", "20", "--trials", "20", "--topic-resamples", "10"]
    assert main(["demo", "--out", str(tmp_path), *argv]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"REPORT: {(tmp_path / 'report.html').resolve()}"
    for study in ("collection", "onerel", "incomplete", "qa", "predictive", "topicset"):
        assert (tmp_path / study / "manifest.json").exists()
    assert "skipped" not in "\n".join(lines)


def test_a_failed_demo_leaves_no_folder(tmp_path):
    """The demo wrote the collection summary before a study refused its options, and left
    that folder behind; the command line now refuses one topic resample when parsing."""
    from irgauge.cli.cmd_demo import run_demo
    from irgauge.errors import InputError

    with pytest.raises(InputError, match="at least 2"):
        run_demo(tmp_path / "demo", B=20, trials=20, topic_resamples=1)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SystemExit) as refused:
        main(["demo", "--out", str(tmp_path / "demo"), "--topic-resamples", "1"])
    assert refused.value.code == 2
    assert list(tmp_path.iterdir()) == []
