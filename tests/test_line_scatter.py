"""Lines of a text run scattered by their first token (io.line_scatter): the lines and
tokens found agree with a plain Python reading of the bytes, keys tell short tokens apart
exactly, and grouping by key keeps every group together in a stable order."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irgauge.io.line_scatter import GATHER_WIDTH, first_tokens, gathered, line_bounds, token_keys
from irgauge.io.topic_grouping import grouped_by_hash
from tests.conftest import examples

PIECES = [b"a", b"bb", b"#", b" ", b"\t", b"\r", b"\r\n", b"\n", b"x" * 300, b"abcdefgh", b"\xff"]
PIECES += [b"\x01", b"\x0b", b"\x1f"]  # a control byte is part of a token; VT separates
SPACE = b"\t\n\x0b\x0c\r "  # the tokenizer's separators (C's isspace)


def _pool(data: bytes) -> np.ndarray:
    pool = np.zeros(len(data) + GATHER_WIDTH + 1, np.uint8)
    pool[: len(data)] = np.frombuffer(data, np.uint8)
    return pool


def _python_lines(data: bytes):
    """Lines with their line ends (LF, CRLF, lone CR), as the tokenizer cuts them."""
    return [line for line in re.findall(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", data) if line]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=40))
def test_lines_and_first_tokens_are_those_of_a_plain_reading(pieces):
    data = b"".join(pieces)
    pool = _pool(data)
    starts, ends = line_bounds(pool[: len(data)], has_cr=b"\r" in data)
    lines = [data[a:b] for a, b in zip(starts, ends)]
    assert lines == _python_lines(data)
    rows, token, lengths = first_tokens(pool, len(data), starts, ends)
    expected = []
    for row, line in enumerate(lines):
        fields = re.split(rb"[\t\n\x0b\x0c\r ]+", line.strip(SPACE))
        if fields[0] and not fields[0].startswith(b"#"):  # blank and comment lines left out
            # the key's bytes: the first token up to a control byte, if it holds one
            expected.append((row, re.match(rb"[^\x00-\x20]*", fields[0]).group()))
    found = [(int(r), data[t : t + n]) for r, t, n in zip(rows, token, lengths)]
    assert found == expected
    copied = gathered(pool, starts[rows[::-1]], (ends - starts)[rows[::-1]])
    assert copied.tobytes() == b"".join(lines[r] for r in rows[::-1])


def test_keys_tell_tokens_of_up_to_eight_bytes_apart():
    tokens = [b"1", b"10", b"1000000", b"10000000", b"01000000", b"abcdefgh", b"abcdefg"]
    tokens += [b"a-much-longer-topic-id", b"a-much-longer-topic-id", b"abcdefgh"]
    data = b" ".join(tokens) + b"\n"
    pool = _pool(data)
    starts = np.array([0] + [m.end() for m in re.finditer(rb" ", data)], np.int64)
    lengths = np.array([len(t) for t in tokens], np.int64)
    keys = token_keys(pool, starts, lengths)
    for i, a in enumerate(tokens):
        for j, b in enumerate(tokens):
            assert (keys[i] == keys[j]) == (a == b), (a, b)


def test_grouping_keeps_groups_together_and_in_order_when_slots_are_shared():
    rng = np.random.default_rng(3)
    # 300 distinct keys with only 4 different top 16 bits: most slots hold several keys
    distinct = (rng.integers(0, 4, 300).astype(np.uint64) << np.uint64(48)) | rng.integers(
        0, 1 << 40, 300
    ).astype(np.uint64)
    keys = distinct[rng.integers(0, 300, 5000)]
    order = grouped_by_hash(keys)
    assert sorted(order.tolist()) == list(range(len(keys)))
    grouped = keys[order]
    heads = grouped[np.concatenate(([True], grouped[1:] != grouped[:-1]))]
    assert len(heads) == len(np.unique(keys))  # each key's entries together
    for key in np.unique(keys):
        mine = order[grouped == key]
        assert np.all(np.diff(mine) > 0)  # in their first order
