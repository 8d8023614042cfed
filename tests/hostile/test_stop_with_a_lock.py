"""A stop that comes while irgauge holds a lock is raised once the lock is released.

A with statement's exit is not safe from a signal handler's exception: a stop raised as
the block ends, before the lock's exit runs, left the inputs' lock taken, and the input
scope's own exit, on the stop's way out, then waited for it forever (the fuzz harness's
signal test hung so). Every lock taken again on the way out is taken through
``stops.held_lock``; the stop is tried here at every line of noting an input."""

from __future__ import annotations

import signal
import sys
from _thread import allocate_lock

import pytest

from irgauge.io import noted_inputs, stops

sys.path.insert(0, __file__.rsplit("/hostile/", 1)[0] + "/fuzz")
from fuzz_checks import signal_at  # noqa: E402  (the fuzz harness's signal at a line)


def _stop(signum, frame):
    raise KeyboardInterrupt(signum)


@pytest.fixture
def stopping():
    previous = signal.signal(signal.SIGHUP, _stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_a_stop_while_a_lock_is_held_comes_after_its_release(stopping):
    lock = allocate_lock()
    with pytest.raises(KeyboardInterrupt):
        with stops.held_lock(lock):
            signal.raise_signal(signal.SIGHUP)
            assert lock.locked()  # held, not raised, while the lock is taken
    assert not lock.locked()


def test_a_stop_at_any_line_of_noting_an_input_leaves_its_lock_free(
    stopping, tmp_path, monkeypatch
):
    path = tmp_path / "qrels.txt"
    path.write_text("1 0 d 1\n")
    monkeypatch.setattr(noted_inputs, "_INPUTS", {})  # a scope open, without its exit
    in_module = lambda frame: frame.f_code.co_filename == noted_inputs.__file__  # noqa: E731
    line = 0
    while True:
        line += 1
        stopped = False
        try:
            with signal_at(line, signal.SIGHUP, in_module) as run:
                noted_inputs.note_input(path)
        except KeyboardInterrupt:
            stopped = True
        leaked = noted_inputs._INPUTS_LOCK.locked()
        if leaked:  # free it for the other tests before failing
            noted_inputs._INPUTS_LOCK.release()
        assert not leaked, f"the inputs' lock left taken by a stop at line {line}"
        if not stopped and run.lines < line:
            break
    assert line > 3  # the stop was tried at every line the noting ran
