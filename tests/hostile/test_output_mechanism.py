"""Safe by construction: every output goes through io/atomic.py and io/staging.py, which
refuse an input as a target, pipes and sockets, a file name ending in '/', keep links and
modes, keep temporary names short, clean up on signals and failures, and end concurrent
writers with one complete result; standard output errors and a second '-' end in one line;
the topic id 'all' is refused; figures leave the caller's matplotlib alone."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from tests.conftest import examples

from irgauge.cli import _PIPE_CLOSED as PIPE_CLOSED, main
from irgauge.errors import InputError
from irgauge.io import atomic, staging
from irgauge.io.file_text import read_bytes
from irgauge.io.noted_inputs import input_scope

from hostile_data import QRELS, RUN

SCORES = "run\tmeasure\ttopic\tvalue\n" + "".join(
    f"{r}\tAP\t{t}\t{v}\n"
    for r, vals in (("a", (0.1, 0.5, 0.3)), ("b", (0.2, 0.4, 0.9)), ("c", (0.3, 0.1, 0.2)))
    for t, v in zip(("1", "2", "3"), vals)
)
SIMULATE = ["--topics", "3", "--runs", "2", "--depth", "5", "--pool-depth", "5", "--quiet"]


def state(folder) -> dict:
    """{relative path: what it is} of everything under ``folder`` (links not followed)."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                what = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                what = ("file", Path(path).read_bytes(), stat.S_IMODE(info.st_mode))
            else:
                what = (stat.S_IFMT(info.st_mode),)
            found[os.path.relpath(path, folder)] = what
    return found


def changed(before: dict, after: dict) -> set:
    return {k for k in set(before) | set(after) if before.get(k) != after.get(k)}


@pytest.fixture
def files(tmp_path):
    """qrels, run and score files in tmp_path."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "scores.tsv").write_text(SCORES)
    return tmp_path


def run_cli(*args):
    """(exit code, stdout, stderr) of ``irgauge ARGS`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


def command(kind: str, d: Path, target) -> list:
    """The arguments of a command writing to ``target``."""
    if kind == "eval":
        return ["eval", d / "qrels.txt", d / "run.txt", "-o", target]
    if kind == "discpower":
        return ["discpower", d / "scores.tsv", "-B", "20", "--seed", "1", "--quiet", "-o", target]
    return ["simulate", "--out", target, *SIMULATE]


# ------------------------------------------------------------------ inputs as targets


@pytest.mark.parametrize(
    "kind, input_name", [("eval", "run.txt"), ("eval", "qrels.txt"), ("discpower", "scores.tsv")]
)
@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "dotted"])
def test_an_input_is_never_an_output(files, kind, input_name, how):
    source = files / input_name
    target = {
        "same": source,
        "dotted": f"{files}/./{input_name}",
        "symlink": files / "alias",
        "hardlink": files / "other-name",
    }[how]
    if how == "symlink":
        target.symlink_to(source)
    if how == "hardlink":
        os.link(source, target)
    before = state(files)
    code, out, err = run_cli(*command(kind, files, target))
    assert code == 2, err
    assert err.startswith(f"irgauge: error: output {target}: is the input ")
    assert str(source) in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert state(files) == before


def test_an_input_inside_a_folder_to_replace_is_refused(files, tmp_path):
    """A staged output folder entry that holds an input is not replaced."""
    out = tmp_path / "col"
    assert run_cli("simulate", "--out", out, *SIMULATE)[0] == 0
    before = state(tmp_path)
    with input_scope():
        read_bytes(next((out / "runs").iterdir()))
        with pytest.raises(InputError, match="would replace the input"):
            with staging.staged_outputs(out) as stage:
                (stage / "runs").mkdir()
                (stage / "runs" / "x.run").write_text("1 Q0 d 1 1 x\n")
    assert state(tmp_path) == before


def test_library_use_without_scope_keeps_the_old_behaviour(files):
    read_bytes(files / "run.txt")  # no input_scope: nothing noted
    atomic.write_text(files / "run.txt", "replaced")
    assert (files / "run.txt").read_text() == "replaced"


# ------------------------------------------------------------------ kinds of targets


@pytest.mark.parametrize("kind", ["eval", "discpower", "simulate"])
def test_named_pipe_is_refused(files, kind):
    fifo = files / "pipe"
    os.mkfifo(fifo)
    before = state(files)
    code, out, err = run_cli(*command(kind, files, fifo))
    assert code == 1 and "Traceback" not in err
    assert "named pipe" in err or "not a folder" in err
    assert state(files) == before and stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("kind", ["eval", "discpower"])
def test_symlink_is_written_through_and_kept(files, kind):
    (files / "real.txt").write_text("old")
    os.chmod(files / "real.txt", 0o640)
    (files / "link.txt").symlink_to("real.txt")
    code, _, err = run_cli(*command(kind, files, files / "link.txt"))
    assert code == 0, err
    assert os.readlink(files / "link.txt") == "real.txt"
    assert (files / "real.txt").read_text() != "old"
    assert stat.S_IMODE(os.stat(files / "real.txt").st_mode) == 0o640
    assert not [p for p in os.listdir(files) if p.startswith(".")]


def test_dangling_symlink_creates_its_target_and_loop_is_refused(files):
    (files / "dangling").symlink_to("made.txt")
    assert run_cli(*command("eval", files, files / "dangling"))[0] == 0
    assert (files / "made.txt").read_text().startswith("#")
    assert os.readlink(files / "dangling") == "made.txt"
    (files / "loop").symlink_to("loop")
    code, _, err = run_cli(*command("eval", files, files / "loop"))
    assert code == 1 and "leads back to itself" in err
    assert os.readlink(files / "loop") == "loop"


def test_symlink_to_folder_is_kept_for_folder_outputs(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    assert run_cli("simulate", "--out", tmp_path / "link", *SIMULATE)[0] == 0
    assert os.readlink(tmp_path / "link") == "real"
    assert (tmp_path / "real" / "manifest.json").is_file()
    assert sorted(os.listdir(tmp_path)) == ["link", "real"]


def test_character_device_is_written_directly(files):
    """/dev/null takes the output without a temporary file (nothing is created in /dev);
    /dev/full gives one line and exit 1."""
    before = set(os.listdir("/dev"))
    assert run_cli(*command("eval", files, "/dev/null"))[0] == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    code, _, err = run_cli(*command("eval", files, "/dev/full"))
    assert code == 1 and err == "irgauge: error: cannot write /dev/full: No space left on device\n"
    assert set(os.listdir("/dev")) == before


@pytest.mark.parametrize("kind", ["eval", "discpower"])
def test_trailing_slash_names_a_folder(files, kind):
    before = state(files)
    for target in (f"{files}/new/", f"{files}/qrels.txt/", f"{files}/"):
        code, _, err = run_cli(*command(kind, files, target))
        assert code == 1 and "ends with '/'" in err, err
        assert state(files) == before


def test_simulate_trailing_slash_is_a_folder(tmp_path):
    assert run_cli("simulate", "--out", f"{tmp_path}/col/", *SIMULATE)[0] == 0
    assert sorted(os.listdir(tmp_path)) == ["col"] and (tmp_path / "col" / "qrels.txt").exists()


@pytest.mark.parametrize("name", ["a" * 255, "é" * 127 + "a", "x" * 200 + ".tsv.gz"])
@pytest.mark.parametrize("kind", ["eval", "discpower", "simulate"])
def test_longest_legal_name_works(files, name, kind):
    name = name[: len(name)]
    assert len(name.encode()) <= 255
    code, _, err = run_cli(*command(kind, files, files / name))
    assert code == 0, err
    assert name in os.listdir(files)
    assert not [p for p in os.listdir(files) if p.startswith(".")]


def test_modes_follow_the_umask_and_existing_files(files):
    script = (
        f"umask 027; {sys.executable} -m irgauge eval {files}/qrels.txt {files}/run.txt "
        f"-o {files}/new.tsv && {sys.executable} -m irgauge simulate --out {files}/col "
        + " ".join(SIMULATE)
    )
    subprocess.run(["sh", "-c", script], check=True)
    assert stat.S_IMODE(os.stat(files / "new.tsv").st_mode) == 0o640
    assert stat.S_IMODE(os.stat(files / "col").st_mode) == 0o750
    assert stat.S_IMODE(os.stat(files / "col" / "qrels.txt").st_mode) == 0o640
    os.chmod(files / "new.tsv", 0o604)
    assert run_cli(*command("eval", files, files / "new.tsv"))[0] == 0
    assert stat.S_IMODE(os.stat(files / "new.tsv").st_mode) == 0o604


def test_no_umask_calls_in_the_package():
    package = Path(atomic.__file__).resolve().parents[1]
    for path in package.rglob("*.py"):
        assert "os.umask(" not in path.read_text(), path


# ------------------------------------------------------------------ failures leave nothing


def test_failed_commands_leave_nothing_new(files, monkeypatch):
    before = state(files)
    code, out, err = run_cli(*command("eval", files, files / "missing" / "deeper" / "x.tsv"))
    assert code == 1 and state(files) == before
    (files / "afile").write_text("x")
    before = state(files)
    code, out, err = run_cli(
        "discpower", files / "scores.tsv", "-B", "20", "--quiet", "--figures", files / "afile"
    )
    assert code == 1 and out == "" and "not a folder" in err
    assert state(files) == before
    from irgauge.collection import simulate

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(simulate, "write_run", broken)
    code, _, err = run_cli("simulate", "--out", files / "new" / "col", *SIMULATE)
    assert code == 1 and "No space left" in err
    assert state(files) == before


def test_atomic_directory_removes_the_parents_it_made(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with atomic.atomic_directory(tmp_path / "a" / "b" / "study") as work:
            (work / "x").write_text("x")
            raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_figures_into_new_folder_drawn_first(tmp_path, monkeypatch):
    from irgauge.report import style

    fig, ax = style.new_figure()
    ax.plot([1, 2], [1, 2])

    def broken(*args, **kwargs):
        raise ValueError("cannot draw")

    monkeypatch.setattr(type(fig), "savefig", broken)
    with pytest.raises(ValueError):
        style.save(fig, tmp_path / "new" / "figs", "x")
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------ signals


# The console script, with its first run file written into the staging folder: it tells
# the test through a pipe, then waits there for the signal. The test signalled once it saw
# the output folder, polling: under load it could look too late, when the command had
# already finished (exit 0), or at another moment each run.
PAUSED_IN_THE_WRITE = """
import os, signal, sys, time
from irgauge.collection import simulate
written = simulate.write_run
def write_run(*args, **kwargs):
    path = written(*args, **kwargs)
    # "i": the signal is ignored (inherited so, as under nohup): it would wait for nothing
    os.write({ready}, b"i" if signal.getsignal({signum}) == signal.SIG_IGN else b"w")
    time.sleep(600)
    return path
simulate.write_run = write_run
from irgauge.cli import console_main
sys.argv[1:] = {argv!r}
sys.exit(console_main())
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_stop_signals_clean_up(tmp_path, signum):
    out = tmp_path / "big"
    ready, tell = os.pipe()
    argv = ["simulate", "--out", str(out), *SIMULATE]
    script = PAUSED_IN_THE_WRITE.format(ready=tell, argv=argv, signum=int(signum))
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(tell,),
    )
    os.close(tell)
    with os.fdopen(ready, "rb") as pipe:
        paused = pipe.read(1)  # blocks until a run is written (or the command ended)
    if paused != b"w":
        proc.kill()
    assert paused != b"i", f"{signum.name} is ignored in the command (inherited): see conftest"
    assert paused == b"w", proc.communicate()[1].decode()
    assert [p.name for p in out.iterdir()][0].startswith(".irgauge.")  # staged, not moved yet
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 128 + signum
    word = "interrupted" if signum == signal.SIGINT else signal.Signals(signum).name
    assert word in err.decode() and len(err.decode().splitlines()) == 1
    assert os.listdir(tmp_path) == []


def test_main_leaves_signal_handlers_alone(files):
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    assert run_cli(*command("eval", files, files / "x.tsv"))[0] == 0
    assert handlers == {s: signal.getsignal(s) for s in handlers}


# ------------------------------------------------------------------ concurrent writers


def _race(writers: int, write) -> None:
    barrier = threading.Barrier(writers)
    errors = []

    def one(i):
        barrier.wait()
        try:
            write(i)
        except OSError as err:  # a lost race may fail cleanly, never leave debris
            errors.append(err)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) < writers


def test_concurrent_folder_writers_leave_one_complete_folder(tmp_path):
    target = tmp_path / "study"
    target.mkdir()
    (target / "old").write_text("old")

    def write(i):
        with atomic.atomic_directory(target) as work:
            for k in range(20):
                (work / f"f{k}").write_text(str(i))

    for _ in range(5):
        _race(8, write)
        assert os.listdir(tmp_path) == ["study"]
        contents = {(target / f"f{k}").read_text() for k in range(20)}
        assert len(contents) == 1 and sorted(os.listdir(target)) == sorted(
            f"f{k}" for k in range(20)
        )


def test_concurrent_file_and_staged_writers(tmp_path):
    target = tmp_path / "out.txt"
    _race(8, lambda i: atomic.write_text(target, str(i) * 10000))
    assert os.listdir(tmp_path) == ["out.txt"] and len(set(target.read_text())) == 1

    out = tmp_path / "col"

    def staged(i):
        with staging.staged_outputs(out) as stage:
            (stage / "runs").mkdir()
            for k in range(5):
                (stage / "runs" / f"r{k}").write_text(str(i))
            (stage / "manifest.json").write_text(str(i))

    _race(6, staged)
    assert sorted(os.listdir(out)) == ["manifest.json", "runs"]
    runs = {(out / "runs" / f"r{k}").read_text() for k in range(5)}
    assert len(runs) == 1 and sorted(os.listdir(out / "runs")) == [f"r{k}" for k in range(5)]


# ------------------------------------------------------------------ standard streams


def test_full_disk_on_stdout_is_one_line(files):
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "irgauge", "eval", files / "qrels.txt", files / "run.txt"],
            stdout=full,
            stderr=subprocess.PIPE,
        )
    assert proc.returncode == 1
    assert proc.stderr.decode() == (
        "irgauge: error: cannot write standard output: No space left on device\n"
    )


def test_closed_pipe_ends_quietly(tmp_path):
    out = tmp_path / "col"
    assert run_cli("simulate", "--out", out, "--topics", "50", "--runs", "3", "--quiet")[0] == 0
    runs = sorted(str(p) for p in (out / "runs").iterdir())
    proc = subprocess.Popen(
        [sys.executable, "-m", "irgauge", "eval", "-q", out / "qrels.txt", *runs],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=600) == 0 and "Traceback" not in err and "Exception" not in err


def _with_stdout_closed(folder, *args) -> tuple:
    """(exit status, stderr) of the console script whose standard output is a pipe that
    its reader closed before the command started: every write to it fails, whatever the
    machine's load (a reader closing after a few bytes could be too late on a busy one)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "irgauge", *map(str, args)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            cwd=folder,
            timeout=600,
        )
    finally:
        os.close(write_end)
    return proc.returncode, proc.stderr.decode()


def test_closed_stdout_carrying_the_summary_does_not_stop_the_command(files):
    """The summary (the table of reduced files) finds the pipe closed: the files commit
    all the same, exit 0, nothing on stderr (before: exit 0 and no file committed)."""
    code, err = _with_stdout_closed(files, "reduce", "qrels.txt", "--out", "red", "--seed", "1")
    assert (code, err) == (0, "")
    assert "manifest.json" in os.listdir(files / "red") and len(os.listdir(files / "red")) > 1


def test_closed_stdout_as_an_output_commits_nothing(files):
    """``-o -``: the pool written to standard output is incomplete, so its manifest (the
    command's other output) does not commit either; exit 128 + SIGPIPE with one line
    (before: exit 0, as if the pool had been written)."""
    (files / "run2.txt").write_text(RUN.replace(" r\n", " r2\n"))
    before = state(files)
    code, err = _with_stdout_closed(files, "pool", "run.txt", "run2.txt", "--depth", "3", "-o", "-")
    assert code == 128 + signal.SIGPIPE
    assert err == f"irgauge: {PIPE_CLOSED}\n"
    assert state(files) == before


@pytest.mark.parametrize("failure", ["closed pipe", "full disk"])
def test_main_in_a_users_program_leaves_a_failed_stdout_as_it_was(files, monkeypatch, failure):
    """In-process, ``main`` pointed the user's file descriptor 1 at os.devnull and
    replaced ``sys.stdout`` when writing to it failed: only the console scripts, whose
    process it is, silence it (for the flush at exit)."""
    if failure == "closed pipe":
        read_end, write_end = os.pipe()
        os.close(read_end)
    else:
        if not os.path.exists("/dev/full"):
            pytest.skip("no /dev/full")
        write_end = os.open("/dev/full", os.O_WRONLY)
    target = os.readlink(f"/proc/self/fd/{write_end}")
    stream = open(write_end, "w")
    monkeypatch.setattr(sys, "stdout", stream)
    try:
        code = main(["eval", str(files / "qrels.txt"), str(files / "run.txt")])
        assert sys.stdout is stream
        assert os.readlink(f"/proc/self/fd/{write_end}") == target
    finally:
        monkeypatch.undo()
        with contextlib.suppress(OSError):
            stream.close()
    assert code == (0 if failure == "closed pipe" else 1)


@pytest.mark.parametrize(
    "args",
    [["eval", "-", "-"], ["eval", "QRELS", "-", "-"], ["reduce", "-", "--out", "OUT", "-"]],
)
def test_stdin_twice_is_refused(files, args):
    args = [str(files / "qrels.txt") if a == "QRELS" else a for a in args]
    args = [str(files / "red") if a == "OUT" else a for a in args]
    proc = subprocess.run(
        [sys.executable, "-m", "irgauge", *args],
        input=RUN.encode(),
        capture_output=True,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "Traceback" not in err
    if args[0] == "eval":
        assert "standard input ('-') is given as two inputs" in err


# ------------------------------------------------------------------ identifiers


def test_topic_all_is_refused_at_file_and_line(files):
    (files / "q2.txt").write_text("1 0 d1 1\n# note\nall 0 d2 1\n")
    code, _, err = run_cli("eval", files / "q2.txt", files / "run.txt")
    assert code == 2 and err.startswith(f"irgauge: error: {files / 'q2.txt'}:3: topic id 'all'")
    (files / "r2.txt").write_text("1 Q0 d1 1 2 r\nall Q0 d2 2 1 r\n")
    code, _, err = run_cli("eval", files / "qrels.txt", files / "r2.txt")
    assert code == 2 and err.startswith(f"irgauge: error: {files / 'r2.txt'}:2: topic id 'all'")
    (files / "all.run").write_text("d1\nd2\n")  # one-topic ranked list named by its stem
    code, _, err = run_cli("eval", files / "qrels.txt", files / "all.run")
    assert code == 2 and ":1: topic id 'all'" in err


def test_topic_all_and_merged_keys_refused_in_python_inputs():
    import pandas as pd

    from irgauge import evaluate

    run = {"1": {"d1": 1.0}}
    cases = [
        ({"all": {"d1": 1}}, run, "key 'all'"),
        ({"1": {"d1": 1}}, {"all": {"d1": 1.0}}, "key 'all'"),
        ({1: {"d1": 1}, "1": {"d1": 1}}, run, "keys 1 and '1'"),
        ({"1": {"d1": 1, b"d1": 0}}, run, "keys 'd1' and b'd1'"),
        (pd.DataFrame({"query_id": ["all"], "doc_id": ["d"], "relevance": [1]}), run, "row 0"),
        (
            pd.DataFrame({"query_id": [1, "1"], "doc_id": ["d", "e"], "relevance": [1, 1]}),
            run,
            "holds 1 and '1'",
        ),
    ]
    for qrels, runs, words in cases:
        with pytest.raises(InputError, match=words.replace("(", r"\(")):
            evaluate(qrels, runs, ["P@5"])


# ------------------------------------------------------------------ matplotlib manners


def test_figures_leave_backend_and_rcparams_alone(tmp_path):
    code = f"""
import matplotlib
matplotlib.use("svg")
matplotlib.rcParams["font.size"] = 17
matplotlib.rcParams["axes.grid"] = False
from irgauge.report import figures, style
fig, ax = style.new_figure(title="t")
style.band(ax, [1, 2], [1, 2], [0, 1], [2, 3], 0, "a")
style.line(ax, [1, 2], [1, 2], 1, "b")
style.heatmap(ax, [[1, 2], [3, 4]], ["a", "b"], ["c", "d"], "x")
style.legend_outside(ax)
style.save(fig, {str(tmp_path)!r}, "s")
import sys
assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
assert matplotlib.rcParams["font.size"] == 17
assert matplotlib.rcParams["axes.grid"] is False
assert "matplotlib.pyplot" not in sys.modules
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip() == "ok", proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["s.pdf", "s.png", "s.svg"]


# ------------------------------------------------------------------ fuzzing targets

NAME = st.text(
    st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1
).filter(lambda n: n not in (".", "..") and len(n.encode()) <= 255)
FIXED = ["qrels.txt", "run.txt", "old.txt", "folder", "pipe", "link", "runlink", "dangling"]
TARGET = st.one_of(
    st.sampled_from(FIXED),
    NAME,
    st.builds(lambda n: f"folder/{n}", NAME),
    st.builds(lambda n: f"missing/{n}", NAME),
).flatmap(lambda t: st.sampled_from([t, t + "/", t + "//"]))


def _playground(d: Path) -> None:
    (d / "qrels.txt").write_text(QRELS)
    (d / "run.txt").write_text(RUN)
    (d / "old.txt").write_text("old")
    (d / "folder").mkdir()
    (d / "folder" / "keep.txt").write_text("keep")
    os.mkfifo(d / "pipe")
    (d / "link").symlink_to("old.txt")
    (d / "runlink").symlink_to("run.txt")
    (d / "dangling").symlink_to("nowhere.txt")


def _allowed(d: Path, target: str, before: dict) -> set:
    """What the command may change: the target itself (and missing folders above it), or
    the file its link leads to."""
    name = target.rstrip("/")
    parts = name.split("/")
    allowed = {"/".join(parts[: i + 1]) for i in range(len(parts))} - set(before)
    allowed.add(name)
    path = d / name
    if path.is_symlink():
        allowed.add(os.path.relpath(os.path.realpath(path), os.path.realpath(d)))
    return allowed


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(target=TARGET, kind=st.sampled_from(["eval", "simulate"]))
def test_fuzzed_output_targets(target, kind):
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        _playground(d)
        before = state(d)
        args = command(kind, d, f"{d}/{target}")
        if kind == "eval":
            args[-2:] = [f"--output={d}/{target}"]
        code, out, err = run_cli(*args)
        after = state(d)
        assert code in (0, 1, 2), (code, err)
        assert "Traceback" not in err
        assert after["qrels.txt"] == before["qrels.txt"] and after["run.txt"] == before["run.txt"]
        allowed = _allowed(d, target, before)
        assert all(
            k in allowed or any(k.startswith(a + "/") for a in allowed)
            for k in changed(before, after)
        ), (target, changed(before, after))
        if code != 0:
            assert changed(before, after) == set(), (target, err)
