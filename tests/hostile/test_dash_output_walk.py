"""``-o -`` on every command that has ``-o``: standard output, and no file but those the
command writes without ``-o``. The commands come from the parser (the walk of
test_every_option_acts), so a command is covered the day it lands: ``pool -o -`` wrote
its manifest to a file named ``-.json`` beside nothing the user named."""

from __future__ import annotations

import pytest

import test_every_option_acts as acts
from test_every_option_acts import BASELINES, all_commands, expand, figure_texts, outcome

files = acts.files  # the walk's small collection (a fixture)


def _with_output():
    for command, parser in sorted(all_commands().items()):
        for action in parser._actions:
            if action.dest == "output" and "-o" in action.option_strings:
                yield command


@pytest.mark.parametrize("command", list(_with_output()))
def test_dash_is_standard_output_and_writes_no_file(command, files, tmp_path, monkeypatch):
    from irgauge.report import style

    monkeypatch.setattr(style, "save", figure_texts)
    base = [*command.split(), *expand(BASELINES[command], files)]
    code, out, err, written = outcome([*base, "-o", "-"], tmp_path / "dash")
    assert code == 0, err
    assert not [name for name in written if name.startswith("-")], written
    assert out
    if written:  # only what the command writes without -o (less the file -o names)
        plain = outcome(base, tmp_path / "plain")
        assert set(written) <= set(plain[3]), sorted(set(written) - set(plain[3]))
