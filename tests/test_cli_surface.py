"""The command line's surface: one meaning per short flag across every command, text-table
headers that stay short whatever the input's size, and progress bars on a terminal's stderr
only."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict

import pytest

from irgauge.cli import build_parser, main

RUNS, TOPICS = 40, 300
MAX_HEADER_LINES, MAX_HEADER_WIDTH = 8, 120


def _options(parser, path=()):
    """(command path, option strings) of every option of ``parser`` and its sub-commands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _options(sub, path + (name,))
        elif action.option_strings:
            yield " ".join(path), action.option_strings


# trec_eval's own flags, spelled as trec_eval spells them (the drop-in takes its command
# line unchanged); each shared short flag means what irgauge's means (-o is obsolete there)
TREC_EVAL_MEANS = {
    "-q": "--per-topic",
    "-c": "--complete",
    "-l": "--rel-level",
    "-M": "--max-docs",
    "-m": "--measure",
}


def test_a_short_flag_means_one_thing_in_every_command():
    meanings = defaultdict(lambda: defaultdict(list))
    commands = set()
    for command, strings in _options(build_parser()):
        commands.add(command)
        if command == "trec_eval":
            continue
        shorts = [s for s in strings if not s.startswith("--")]
        longs = [s for s in strings if s.startswith("--")]
        for short in shorts:
            meanings[short][longs[0] if longs else None].append(command or "irgauge")
    assert {"study onerel", "study qa", "qa eval", "swap", "eval"} <= commands
    clashes = {s: dict(m) for s, m in meanings.items() if len(m) > 1}
    assert not clashes, f"a short flag with two meanings: {clashes}"
    assert set(meanings["-q"]) == {"--per-topic"}  # trec_eval's -q
    assert set(meanings["-c"]) == {"--complete"}  # trec_eval's -c
    assert set(meanings["-k"]) == {"--subset-size"}
    assert {"swap", "stability", "predictive", "study onerel"} <= set(
        meanings["-k"]["--subset-size"]
    )


def test_the_trec_eval_drop_in_shares_the_meaning_of_each_short_flag():
    shared = {}
    for command, strings in _options(build_parser()):
        if command == "trec_eval":
            shared.update({s: None for s in strings if not s.startswith("--")})
    meanings = {}
    for command, strings in _options(build_parser()):
        if command == "eval":
            longs = [s for s in strings if s.startswith("--")]
            meanings.update({s: longs[0] for s in strings if not s.startswith("--")})
    for short, meaning in TREC_EVAL_MEANS.items():
        assert short in shared and meanings[short] == meaning, short


def _parsers(parser, path=()):
    yield " ".join(path) or "irgauge", parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def test_help_shows_no_default_for_a_flag():
    """A flag's help never claims "(default: True)": a store_false flag's default is the
    state the flag turns off (--headerless-scores once said so while it was off)."""
    claims = [
        command
        for command, parser in _parsers(build_parser())
        if "(default: True)" in parser.format_help() or "(default: False)" in parser.format_help()
    ]
    assert claims == []


def test_quiet_has_no_short_flag(capsys):
    for command, strings in _options(build_parser()):
        if "--quiet" in strings:
            assert strings == ["--quiet"], command
    with pytest.raises(SystemExit):
        main(["study", "onerel", "-q", "--out", "x"])
    assert "unrecognized arguments: -q" in capsys.readouterr().err


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """40 runs on 300 topics; some runs miss topics, one answers a topic not in the qrels."""
    folder = tmp_path_factory.mktemp("large")
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{t}-{d} {d % 2}\n" for t in range(TOPICS) for d in range(3)))
    runs = []
    for r in range(RUNS):
        path = folder / f"system-with-a-long-name-{r:02d}.run"
        topics = range(TOPICS - r) if r < 5 else range(TOPICS)
        lines = [
            f"{t} Q0 d{t}-{(d + r) % 4} {d + 1} {10 - d} s{r}\n" for t in topics for d in range(3)
        ]
        if r == 7:
            lines.append("9999 Q0 x 1 1 s7\n")
        path.write_text("".join(lines))
        runs.append(str(path))
    return str(qrels), runs


def _header(text):
    return [line for line in text.splitlines() if line.startswith("#")]


def test_eval_table_header_stays_short(large, capsys, tmp_path):
    qrels, runs = large
    assert main(["eval", qrels, *runs, "-m", "AP,P@10"]) == 0
    header = _header(capsys.readouterr().out)
    assert 3 <= len(header) <= MAX_HEADER_LINES
    assert all(len(line) <= MAX_HEADER_WIDTH for line in header), header
    assert "--format json" in header[-1]
    assert any(f"({RUNS} in all)" in line for line in header)  # runs named by file, counted

    # TSV keeps a line per key with every run; JSON keeps everything
    tsv = tmp_path / "e.tsv"
    assert main(["eval", qrels, *runs, "-m", "AP", "--format", "tsv", "-o", str(tsv)]) == 0
    runs_line = next(line for line in _header(tsv.read_text()) if line.startswith("# runs:"))
    assert all(path in runs_line for path in runs)
    assert main(["eval", qrels, *runs, "-m", "AP", "--format", "json"]) == 0
    metadata = json.loads(capsys.readouterr().out)["metadata"]
    assert sorted(metadata["runs"].values()) == sorted(runs)
    assert len(metadata["topics_missing_from_run"]) == 4


def test_meta_command_table_header_stays_short(large, capsys, tmp_path):
    qrels, runs = large
    scores = tmp_path / "scores.tsv"
    argv = ["eval", qrels, *runs[5:], "-m", "AP", "-q", "--format", "tsv", "-o", str(scores)]
    assert main(argv) == 0
    assert main(["discpower", str(scores), "-B", "20", "--seed", "1"]) == 0
    header = _header(capsys.readouterr().out)
    assert len(header) <= MAX_HEADER_LINES
    assert all(len(line) <= MAX_HEADER_WIDTH for line in header), header
    assert main(["discpower", str(scores), "-B", "20", "--seed", "1", "--format", "tsv"]) == 0
    full = _header(capsys.readouterr().out)
    systems = next(line for line in full if line.startswith("# systems:"))
    assert json.loads(systems.split(": ", 1)[1]) == [f"s{r}" for r in range(5, RUNS)]


def test_table_header_summaries():
    from irgauge.io.tables import table_header

    text = table_header(
        {
            "method": "m",
            "runs": {f"r{i}": f"/data/runs/r{i}.txt" for i in range(50)},
            "averaged": {f"r{i}": 20 for i in range(50)},
            "topics": [str(t) for t in range(1000)],
            "empty": [],
            "nothing": None,
            "notes": ["first note " * 3, "second note"],
            **{f"key{i}": i for i in range(60)},
        }
    )
    lines = text.splitlines()
    assert len(lines) <= MAX_HEADER_LINES and all(len(line) <= 104 for line in lines)
    assert "runs: r0.txt, r1.txt, r2.txt, ... (50 in all)" in text
    assert "averaged: 20 (each of 50)" in text and "(1000 in all)" in text
    assert "empty" not in text and "nothing" not in text
    assert any(line.startswith("# notes: first note") and "(+1 more)" in line for line in lines)
    assert lines[-2].startswith("# also: ")  # keys that did not fit are named
    assert table_header({}) == ""


# ------------------------------------------------ progress bars


def _run_on_pty(argv, env=None):
    """Run ``irgauge argv`` with stderr on a pseudo-terminal; (exit code, stderr bytes)."""
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "irgauge", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env={**os.environ, **(env or {})},
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(), b"".join(chunks)


SIMULATE = ["simulate", "--topics", "5", "--runs", "3", "--depth", "20", "--overwrite"]
AT_ONCE = {"IRGAUGE_PROGRESS_AFTER": "0"}


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals")
def test_simulate_draws_a_bar_on_a_terminal_only(tmp_path):
    argv = [*SIMULATE, "--out", str(tmp_path / "c")]
    code, err = _run_on_pty(argv, AT_ONCE)
    assert code == 0
    assert b"simulate: drawing runs" in err and b"simulate: writing files" in err
    assert b"%|" in err  # tqdm's bar
    code, err = _run_on_pty([*argv, "--quiet"], AT_ONCE)
    assert code == 0 and b"%|" not in err and err.startswith(b"wrote ")
    piped = subprocess.run(
        [sys.executable, "-m", "irgauge", *argv],
        capture_output=True,
        env={**os.environ, **AT_ONCE},
        check=True,
    )
    assert piped.stderr.decode().splitlines() == [piped.stderr.decode().strip()]
    assert piped.stderr.startswith(b"wrote ") and b"\r" not in piped.stderr


@pytest.mark.slow  # a command in a pseudo-terminal and another through a pipe
@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals")
def test_meta_command_bar_on_a_terminal_and_silence_on_a_pipe(tmp_path):
    # 120 systems: 7140 pairs, worked through in blocks that each report progress
    scores = tmp_path / "ap.csv"
    rows = [
        ",".join(f"{s / 130 + ((s * 7 + t * 3) % 10) / 100:.4f}" for s in range(120))
        for t in range(12)
    ]
    scores.write_text(",".join(f"s{s}" for s in range(120)) + "\n" + "\n".join(rows) + "\n")
    argv = ["swap", str(scores), "--trials", "2000", "--seed", "1", "-o", str(tmp_path / "out")]
    code, err = _run_on_pty(argv, AT_ONCE)
    assert code == 0 and b"swap" in err and b"%|" in err
    piped = subprocess.run(
        [sys.executable, "-m", "irgauge", *argv], capture_output=True, env={**os.environ, **AT_ONCE}
    )
    assert piped.returncode == 0 and piped.stderr == b""


def test_bars_wait_for_a_slow_step_and_close_once(monkeypatch):
    from irgauge.cli import _bars

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.delenv(_bars.DELAY_VARIABLE, raising=False)
    assert _bars.bar("x", quiet=True) is None
    clock = [0.0]
    monkeypatch.setattr(_bars.time, "monotonic", lambda: clock[0])
    quick = _bars.bar("quick")
    for done in range(4):
        quick(done, 3)
    assert quick.tqdm is None  # over within the delay: never drawn, tqdm not needed
    opened = []
    monkeypatch.setattr(_bars._Bar, "_open", lambda self, *a: opened.append(a) or _Fake())
    slow = _bars.bar("slow")  # the step starts here, before its first report
    clock[0] = _bars.SHOW_AFTER - 1
    slow(3, 10)
    clock[0] = _bars.SHOW_AFTER + 0.5
    slow(4, 10)
    slow(10, 10)
    slow(10, 10)
    assert opened == [(4, 10, _bars.SHOW_AFTER + 0.5)] and slow.tqdm.closed == 1
    monkeypatch.setenv(_bars.DELAY_VARIABLE, "not a number")
    assert _bars.show_after() == _bars.SHOW_AFTER


class _Fake:
    n, closed = 0, 0

    def update(self, k):
        self.n += k

    def close(self):
        self.closed += 1


def test_library_draws_no_bar(capfd):
    from irgauge.collection.simulate import simulate_collection

    calls = []
    simulate_collection(4, 3, 10, 1, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 4) and calls[-1] == (4, 4)
    simulate_collection(4, 3, 10, 1)
    assert capfd.readouterr().err == ""


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals")
def test_eval_draws_a_bar_while_reading_runs(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "irgauge", *SIMULATE, "--out", str(tmp_path / "c"), "--quiet"],
        check=True,
        capture_output=True,
    )
    runs = sorted(str(p) for p in (tmp_path / "c" / "runs").iterdir())
    argv = ["eval", str(tmp_path / "c" / "qrels.txt"), *runs, "-o", str(tmp_path / "out")]
    code, err = _run_on_pty(argv, AT_ONCE)
    assert code == 0 and b"reading runs" in err and b"%|" in err
    code, err = _run_on_pty([*argv, "--quiet"], AT_ONCE)
    assert code == 0 and err == b""


def test_evaluate_reports_each_run_and_the_scoring():
    from irgauge import evaluate, sample_paths

    qrels, runs = sample_paths()
    calls = []
    evaluate(qrels, runs[:3], ["AP"], progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]


def test_the_parsers_subclass_only_argparse_public_classes():
    """A subclass of argparse's private classes (``_StoreAction``, ...) may break with any
    Python release: irgauge's actions and formatters build on public ones only."""

    def private_bases(cls):
        ours = [c for c in cls.__mro__ if c.__module__.startswith("irgauge")]
        return {
            f"{c.__name__}({b.__name__})"
            for c in ours
            for b in c.__bases__
            if b.__module__ == "argparse" and b.__name__.startswith("_")
        }

    found = set()
    for _, parser in _parsers(build_parser()):
        found |= private_bases(parser.formatter_class)
        for action in parser._actions:
            found |= private_bases(type(action))
    assert not found


def test_store_actions_keep_argparse_behaviour_given_once(capsys):
    """irgauge's store actions store as argparse's do; each is refused given twice, unless
    the parser takes the last (``once = False``, the trec_eval drop-in)."""
    from irgauge.cli import Parser

    parser = Parser(prog="p")
    parser.add_argument("--value", type=int, default=7)
    parser.add_argument("--maybe", nargs="?", const="c")
    parser.add_argument("--const", action="store_const", const=3)
    parser.add_argument("--yes", action="store_true")
    parser.add_argument("--no", action="store_false")
    parser.add_argument("word")
    args = parser.parse_args(["w"])
    assert (args.value, args.maybe, args.const, args.yes, args.no, args.word) == (
        7, None, None, False, True, "w"
    )  # fmt: skip
    args = parser.parse_args(["--value", "5", "--maybe", "--const", "--yes", "--no", "w"])
    assert (args.value, args.maybe, args.const, args.yes, args.no) == (5, "c", 3, True, False)
    assert args.given_options == {
        "value": "--value", "maybe": "--maybe", "const": "--const", "yes": "--yes", "no": "--no"
    }  # fmt: skip
    for twice in (["--value", "1", "--value=2"], ["--const", "--const"], ["--no", "--no"]):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args([*twice, "w"])
        assert stop.value.code == 2
        assert f"error: argument {twice[0].split('=')[0]}: given twice" in capsys.readouterr().err
    parser.once = False
    assert parser.parse_args(["--value", "1", "--value", "2", "w"]).value == 2
    with pytest.raises(ValueError):
        parser.add_argument("--none", nargs=0)


def test_an_option_given_twice_is_refused(capsys):
    """The second value of an option would silently replace the first: refused, naming the
    option, for options with a value and flags alike (repeatable ones such as -m say so)."""
    from irgauge.cli import main

    for argv, option in (
        (["eval", "q", "r", "--format", "tsv", "--format", "json"], "--format"),
        (["eval", "q", "r", "-c", "--complete"], "-c/--complete"),
        (["study", "onerel", "q", "r", "--out", "o", "--seed", "1", "--seed", "2"], "--seed"),
        (["swap", "s.tsv", "--trials", "5", "--trials", "6"], "--trials"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert f"error: argument {option}: given twice" in err, err
