"""irgauge's gzip reader against Python's gzip module: the same bytes for any split into
members, any NUL padding between and after them and any read sizes; the same refusals of
truncated data and of trailing bytes that are not gzip."""

from __future__ import annotations

import gzip
import io

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from irgauge.io.gzip_members import GzipMembers
from tests.conftest import examples

members = st.lists(
    st.tuples(st.binary(max_size=3000), st.integers(0, 2000)), min_size=1, max_size=4
)


def compressed(parts) -> bytes:
    return b"".join(gzip.compress(data) + b"\0" * pad for data, pad in parts)


@settings(max_examples=examples(300), deadline=None)
@given(parts=members, sizes=st.lists(st.integers(0, 5000), min_size=1, max_size=20))
# found by this test: a read that stops inside a member, then a read to the end (CPython's
# decompressor keeps an old unconsumed_tail beside unused_data at a member's end)
@example(parts=[(b"\x00\x00", 0), (b"\x00", 0)], sizes=[1])
def test_same_bytes_as_the_gzip_module(parts, sizes):
    data = compressed(parts)
    reader = GzipMembers(io.BytesIO(data))
    reader.CHUNK = 512  # small chunks: members and padding cross chunk boundaries
    got = b"".join(reader.read(size) for size in sizes) + reader.read()
    assert got == gzip.decompress(data)


@pytest.mark.parametrize("cut", [1, 6, 10])
def test_truncated_data_is_refused_as_gzip_refuses_it(cut):
    data = gzip.compress(b"1 0 d1 1\n" * 100)[:-cut]
    with pytest.raises(EOFError):
        gzip.decompress(data)
    with pytest.raises(EOFError):
        GzipMembers(io.BytesIO(data)).read()


def test_trailing_bytes_that_are_not_gzip_are_refused():
    data = gzip.compress(b"1 0 d1 1\n") + b"\0\0garbage"
    with pytest.raises(gzip.BadGzipFile):
        gzip.decompress(data)
    with pytest.raises(Exception, match="not gzip"):
        GzipMembers(io.BytesIO(data)).read()
