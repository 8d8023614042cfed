"""Counts without a natural end are capped by one check each (irgauge._checks), the same
for the API as for the command line: --jobs (and IRGAUGE_THREADS, jobs=) at MAX_JOBS,
a pool depth at MAX_COUNT. 2^63 is refused in one line naming the option or parameter,
never taken silently."""

from __future__ import annotations

import pytest

from irgauge._checks import MAX_COUNT, MAX_JOBS
from irgauge.cli import main
from irgauge.errors import InputError
from test_every_option_acts import all_commands, options_of

HUGE = str(2**63)


def _commands_with(option: str):
    return sorted(
        command
        for command, parser in all_commands().items()
        if any(option in action.option_strings for action in options_of(parser))
    )


@pytest.mark.parametrize("command", _commands_with("--jobs"))
@pytest.mark.parametrize("value", [HUGE, str(MAX_JOBS + 1)])
def test_jobs_beyond_the_cap_is_refused_naming_jobs(capsys, command, value):
    try:
        code = main([*command.split(), "--jobs", value])
    except SystemExit as stop:  # argparse's refusal: the usage, then one line
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "argument --jobs" in err[-1] and f"got {value}" in err[-1]


def test_threads_beyond_the_cap_is_refused_by_the_api(tmp_path, monkeypatch):
    import irgauge

    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 r\n")
    with pytest.raises(InputError) as caught:
        irgauge.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), jobs=2**63)
    assert caught.value.parameter == "jobs"
    monkeypatch.setenv("IRGAUGE_THREADS", HUGE)
    with pytest.raises(InputError):
        irgauge.evaluate(str(tmp_path / "q"), str(tmp_path / "r"))


@pytest.mark.parametrize("depth", [2**63, MAX_COUNT + 1])
def test_a_depth_beyond_the_cap_is_refused_by_the_api_as_by_the_cli(depth):
    import irgauge

    qrels = {"1": {"a": 1}}
    runs = {"x": {"1": {"a": 1.0}}, "y": {"1": {"b": 1.0}}}
    for call in (
        lambda: irgauge.reusability(qrels, runs, depth),
        lambda: irgauge.depth_pool(runs, depth),
    ):
        with pytest.raises(InputError) as caught:
            call()
        assert caught.value.parameter == "depth" and f"got {depth}" in str(caught.value)
