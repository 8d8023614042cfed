"""A run file given twice where runs are compared as groups (reusability's leave-one-out,
the pooling study, pool): refused in one line naming the file, since the twin left in the
pool would keep every document of the run left out (io.runs.read_runs(distinct=True))."""

from __future__ import annotations

import os

import pytest

from irgauge.cli import main
from irgauge.errors import InputError

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 d 1\n"
RUNS = {
    "r1.txt": "1 Q0 a 1 3 r1\n1 Q0 b 2 2 r1\n2 Q0 d 1 1 r1\n",
    "r2.txt": "1 Q0 c 1 3 r2\n1 Q0 a 2 2 r2\n2 Q0 d 1 1 r2\n",
}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    os.symlink("r1.txt", tmp_path / "alias.txt")
    return tmp_path


@pytest.mark.parametrize("twin", ["r1.txt", "alias.txt", "./r1.txt"])
@pytest.mark.parametrize(
    "argv",
    [
        ["study", "reusability", "--out", "OUT", "--depth", "2", "q.txt"],
        ["pool", "--depth", "2"],
    ],
)
def test_a_run_file_given_twice_is_refused_naming_it(folder, capsys, argv, twin):
    assert main([*argv, "r1.txt", twin, "r2.txt"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"irgauge: error: {twin}: this run file is given twice: runs compared as groups "
        "must differ (a twin stays in the pool when the other is left out)"
    ]
    assert not (folder / "OUT").exists()


def test_the_apis_refuse_it_too(folder):
    import irgauge
    from irgauge.studies.pooling import compute_pooling

    with pytest.raises(InputError) as caught:
        irgauge.reusability("q.txt", ["r1.txt", "r1.txt", "r2.txt"], 2)
    assert caught.value.parameter == "runs"
    with pytest.raises(InputError) as caught:
        compute_pooling(
            "q.txt", ["r2.txt", "alias.txt", "r1.txt"], ["depth"], [2], ["AP"], 2,
            None, 1, {}, 5,
        )  # fmt: skip
    assert str(caught.value).startswith("r1.txt: this run file is given twice")


def test_distinct_run_files_and_runs_given_as_data_are_read(folder):
    import irgauge

    irgauge.reusability("q.txt", ["r1.txt", "r2.txt"], 2)
    run = {"1": {"a": 1.0}, "2": {"d": 1.0}}
    irgauge.reusability("q.txt", {"x": run, "y": run}, 2)  # not files: two runs, as given
