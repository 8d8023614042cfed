"""Hostile score matrices and output paths through every meta-evaluation command at once.

The contract, for each input: the command gives the result the clean file gives, or exits
2 with ONE line on stderr naming the file (and the line where there is one). Never a
traceback, never exit 0 over a dropped or guessed row. Outputs that name an input are
refused before anything is written; an output that cannot be written gives one line.
The mutations are drawn from a fixed seed, so a failure reproduces."""

from __future__ import annotations

import os
import random

import pytest

# every command that reads score matrices, with the smallest settings that exercise it
COMMANDS = {
    "discpower": ["-B", "20", "--seed", "1"],
    "compare": ["-B", "20", "--permutations", "20", "--seed", "1"],
    "correlate": [],
    "stability": ["--trials", "5", "-k", "1", "--seed", "1"],
    "swap": ["--trials", "5", "-k", "1", "--seed", "1"],
    "predictive": ["-P", "3", "--top-fraction", "1", "--seed", "1"],
    "topics": ["--min-diff", "0.1"],
}
WIDE = "topic,a,b,c\n1,0.1,0.2,0.3\n2,0.4,0.5,0.1\n3,0.3,0.2,0.6\n4,0.2,0.1,0.5\n"
LONG = "run\tmeasure\ttopic\tvalue\n" + "".join(
    f"{system}\tm\t{topic}\t{(k * 7 + j * 3) % 10 / 10}\n"
    for k, system in enumerate("abc")
    for j, topic in enumerate("1234")
)
TREC_Q = "".join(f"map  \t{t}\t0.{t}\n" for t in "1234") + "map  \tall\t0.25\n"

# the same matrix, spelled differently: the result must be the clean file's, byte for byte
SAME_MATRIX = {
    "CRLF": WIDE.replace("\n", "\r\n").encode(),
    "lone CR": WIDE.replace("\n", "\r").encode(),
    "BOM": b"\xef\xbb\xbf" + WIDE.encode(),
    "spaces around names": WIDE.replace("topic,a,b,c", "topic, a ,b ,c").encode(),
    "comment and blank lines": ("# from a script\n\n" + WIDE + "\n").encode(),
}

# whole files that hold no usable matrix: (content, line named in the message or None)
REFUSED_FILES = {
    "empty": (b"", None),
    "blank lines only": (b"\n\n\n", None),
    "header only": (b"topic,a,b\n", None),
    "NUL bytes": (b"\0" * 4096, 1),
    "NUL in a name": (WIDE.replace("b,c", "b\0,c").encode(), 1),
    "Latin-1": (WIDE.replace("3,0.3", "caf\xe9,0.3").encode("latin-1"), 4),
    "line over 1 MiB": (b"topic,a,b\n1,0.1," + b"0" * (1 << 21) + b"\n", 2),
    "duplicate system": (b"topic,a,a\n1,0.1,0.2\n2,0.3,0.1\n", 1),
    "system named all": (b"topic,all,b\n1,0.1,0.2\n2,0.3,0.1\n", 1),
    "column of means": (b"topic,a,b,mean\n1,0.1,0.2,0.15\n2,0.3,0.1,0.2\n", 1),
    "single system": (b"topic,a\n1,0.1\n2,0.3\n", None),
    "long: extra column": (LONG.replace("value\n", "value\tnote\n", 1).encode(), 1),
    "long: only means": (b"run\tmeasure\ttopic\tvalue\na\tm\tall\t0.1\nb\tm\tall\t0.2\n", None),
    "long: missing cell": (LONG.rsplit("c\tm\t4", 1)[0].encode(), None),
    # trec_eval -q output is no score matrix; its 'all' lines must not decide that
    "trec_eval -q": (TREC_Q.encode(), 1),
    "trec_eval -q, no all line": (TREC_Q.replace("map  \tall\t0.25\n", "").encode(), 1),
    "trec_eval -q, all twice": ((TREC_Q + "map  \tall\t0.25\n").encode(), 1),
    "trec_eval -q, runid first": (("runid\tall\tr1\n" + TREC_Q).encode(), 1),
}

# one cell or name of a good file replaced: each must be refused at its line
BAD_CELLS = ["", "nan", "NaN", "inf", "-Infinity", "x", "0_5", "\u00a00.5", "\uff10.5", "1e999"]
BAD_TOPICS = ["", "all", "ALL", "mean", "Average", "avg"]
BAD_LONG_ROWS = [
    "a\tm\t1\t0.1\textra",  # a field that would be dropped
    "a\tm\t1",
    "\tm\t1\t0.1",  # no run
    "a\t\t1\t0.1",  # no measure
    "a\tm\t\t0.1",  # no topic
    "a\tm\tmean\t0.1",
    "a\tm\t1\t0_1",
    "a\tm\t1\t0.1",  # the row again: a duplicate
]


def run_cli(cli, command, *args):
    return cli(command, *args, *COMMANDS[command], "--quiet", "--format", "tsv")


def assert_refused(code, err, path, line):
    """Exit 2 and one line naming the file (at ``line`` when given)."""
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("irgauge: error: "), err
    where = f"{path}:{line}: " if line else f"{path}"
    assert where in err, err


def mutations(seed=23):
    """(name, file text, line of the mutation) drawn from ``seed``: each bad cell and bad
    topic in a random row of the wide file, each bad row at a random place of the long file."""
    draw = random.Random(seed)
    rows = WIDE.splitlines()
    for cell in BAD_CELLS:
        r, c = draw.randrange(1, len(rows)), draw.randrange(1, 4)
        fields = rows[r].split(",")
        fields[c] = cell
        yield f"cell {cell!r}", "\n".join(rows[:r] + [",".join(fields)] + rows[r + 1 :]), r + 1
    for topic in BAD_TOPICS:
        r = draw.randrange(1, len(rows))
        fields = rows[r].split(",")
        fields[0] = topic
        yield f"topic {topic!r}", "\n".join(rows[:r] + [",".join(fields)] + rows[r + 1 :]), r + 1
    long_rows = LONG.splitlines()
    for bad in BAD_LONG_ROWS:
        r = draw.randrange(2, len(long_rows) + 1)
        text = "\n".join(long_rows[:r] + [bad] + long_rows[r:]) + "\n"
        yield f"long row {bad!r}", text, r + 1


@pytest.fixture(scope="module")
def clean_outputs(tmp_path_factory):
    """Each command's output on the clean wide file (to compare the respellings with)."""
    from irgauge.cli import main

    folder = tmp_path_factory.mktemp("clean")
    path = folder / "m.csv"
    path.write_text(WIDE)
    outputs = {}
    for command in COMMANDS:
        out = folder / f"{command}.tsv"
        assert main([command, str(path), *COMMANDS[command], "--quiet", "-o", str(out)]) == 0
        outputs[command] = out.read_text()
    return outputs


@pytest.mark.parametrize("command", COMMANDS)
def test_respelled_matrix_gives_the_clean_result(tmp_path, cli, clean_outputs, command):
    for label, content in SAME_MATRIX.items():
        path = tmp_path / "m.csv"
        path.write_bytes(content)
        out = tmp_path / "out.tsv"
        code, _, err = cli(command, path, *COMMANDS[command], "--quiet", "-o", out)
        assert code == 0, (label, err)
        assert out.read_text() == clean_outputs[command], label


@pytest.mark.parametrize("command", COMMANDS)
def test_hostile_files_refused_in_one_line(tmp_path, cli, command):
    for label, (content, line) in REFUSED_FILES.items():
        path = tmp_path / ("m.tsv" if label.startswith("long") else "m.csv")
        path.write_bytes(content)
        code, _, err = run_cli(cli, command, path)
        assert_refused(code, err, path, line)


@pytest.mark.parametrize("command", COMMANDS)
def test_seeded_mutations_refused_at_their_line(tmp_path, cli, command):
    for label, text, line in mutations():
        path = tmp_path / ("m.tsv" if label.startswith("long") else "m.csv")
        path.write_text(text, encoding="utf-8")
        code, _, err = run_cli(cli, command, path)
        try:
            assert_refused(code, err, path, line)
        except AssertionError as failure:
            raise AssertionError(f"{label}: {failure}") from None


def output_spellings(folder, source):
    """Names of ``source`` that the output check must see through."""
    (folder / "link").symlink_to(source)
    os.link(source, folder / "hard")
    sub = folder / "sub"
    sub.mkdir()
    return [
        str(source),
        str(folder / "link"),
        str(folder / "hard"),
        f"{folder}/./{source.name}",
        f"{sub}/../{source.name}",
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_output_naming_an_input_is_refused_before_writing(tmp_path, cli, command):
    source = tmp_path / "m.csv"
    source.write_text(WIDE)
    for target in output_spellings(tmp_path, source):
        code, out, err = run_cli(cli, command, source, "-o", target)
        assert_refused(code, err, target, None)
        assert "is the input" in err and out == ""
        assert source.read_text() == WIDE


@pytest.mark.parametrize("command", COMMANDS)
def test_unwritable_output_gives_one_line(tmp_path, cli, command):
    source = tmp_path / "m.csv"
    source.write_text(WIDE)  # discpower's and swap's results hold NaNs: notes on stderr
    targets = [str(tmp_path / "missing" / "out.tsv"), str(tmp_path), f"{tmp_path}/"]
    if os.path.exists("/dev/full"):
        targets.append("/dev/full")
    for target in targets:
        code, out, err = run_cli(cli, command, source, "-o", target)
        assert code == 1 and err.count("\n") == 1 and target in err, (target, err)
        assert err.startswith("irgauge: error: cannot write"), err


# [NAME=]FILE: a file whose own name holds '=' is that file; an argument both readings
# make sense of, or with an empty name or file, is refused rather than guessed
@pytest.mark.parametrize("command", COMMANDS)
def test_name_equals_file_is_read_or_refused_never_guessed(tmp_path, cli, command, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m=wide.csv").write_text(WIDE)
    code, out, err = cli(command, "m=wide.csv", *COMMANDS[command])
    assert code == 0, err  # read as the file 'm=wide.csv', where 'wide.csv' was looked for
    (tmp_path / "wide.csv").write_text(WIDE)
    for spec, message in [
        ("m=wide.csv", "names both the file"),
        ("=wide.csv", "expected [NAME=]FILE"),
        ("m=", "expected [NAME=]FILE"),
    ]:
        code, out, err = cli(command, spec, *COMMANDS[command])
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    code, out, err = cli(command, "./m=wide.csv", *COMMANDS[command])
    assert code == 0, err


@pytest.mark.parametrize("command", COMMANDS)
def test_ranking_measure_without_scores_is_refused_even_keeping_every_system(
    tmp_path, cli, command
):
    """--by is recorded with the results: a name with no scores was recorded as if systems
    had been ranked by it when no --top-k or --top-fraction asked for a selection."""
    source = tmp_path / "m.csv"
    source.write_text(WIDE)
    code, out, err = cli(command, source, *COMMANDS[command], "--by", "nosuch")
    assert code == 2 and out == "", err
    assert len(err.strip().splitlines()) == 1 and "cannot select systems by nosuch" in err, err
    code, out, err = cli(command, source, *COMMANDS[command], "--by", "m")
    assert code == 0, err
