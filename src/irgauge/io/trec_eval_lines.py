"""trec_eval 10.0's line grammar, where it differs from the one irgauge's readers share.

irgauge's tokenizer (:mod:`irgauge.io._tokens`) ends a line at LF, CRLF or a lone CR,
skips blank lines and reads a line whose first token starts with ``#`` as a comment, in
every file. trec_eval 10.0 ends lines at LF only, a CR being a space to it, and its qrels
reader (get_qrels.c) is stricter than its run reader (get_trec_results.c): it refuses a
blank or whitespace-only line, takes a line for a comment only where ``#`` is its first
byte and the line before is not a comment (it reads the next line as a judgment), and
reads past its buffer after a comment that ends the file. Read by the tokenizer alone,
such files would give the drop-in output where trec_eval fails, or other output.

The drop-in checks its two files against this grammar before reading them: what trec_eval
refuses or reads otherwise is refused at FILE:LINE (lines counted as irgauge counts them).
A lone CR followed by text on the same line is refused in a run too, where trec_eval would
read the text after it as the rest of one line and drop it, and so is a UTF-8 byte order
mark in either file (irgauge's readers drop it; trec_eval reads it as part of a topic).
trec_eval's runid, the tag of the run's last data line, is found on the way.
"""

from __future__ import annotations

import mmap
import os
from typing import Iterator, Optional, Tuple

import numpy as np

from irgauge.errors import InputError
from irgauge.io._source import count_line_ends, is_compressed, iter_blocks, read_twice
from irgauge.io.file_text import starts_with_bom
from irgauge.io._tokens import BLOCK_BYTES, separator_mask

LF, CR, HASH = 10, 13, ord("#")
TAIL_BYTES = 1 << 16  # the end of a run read for its last data line, doubled until found


def refuse_qrels_lines(path: str, name: Optional[str] = None) -> None:
    """An InputError at the first line of a qrels file that trec_eval's get_qrels refuses
    or misreads while irgauge's tokenizer would read it (see the module's text).
    ``name``: the file as the user named it, when ``path`` is a copy of it."""
    name = path if name is None else name
    _refuse_byte_order_mark(path, name)
    after_comment = False
    for piece, offset, last in _lf_pieces(path):
        if _plain_lines(piece):
            after_comment = False
            continue
        lines = _LfLines(piece, last)
        comment = lines.comment_start()
        problems = [
            (lines.first_blank(), "a blank line, which trec_eval's qrels reader refuses"),
            (lines.first_text_after_lone_cr(), _LONE_CR),
            (
                lines.first_indented_comment(),
                "'#' after spaces: trec_eval reads a comment only where '#' is the "
                "line's first byte (this line would be a judgment to it)",
            ),
            (
                lines.first_where(comment & np.append(after_comment, comment[:-1])),
                "a comment right after a comment: trec_eval reads it as a judgment",
            ),
        ]
        if last and len(comment) and comment[-1]:
            problems.append(
                (
                    int(lines.starts[-1]),
                    "a comment as the last line, after which trec_eval 10.0 reads past "
                    "its buffer (it crashes)",
                )
            )
        _raise_first(problems, path, name, offset)
        if len(comment):
            after_comment = bool(comment[-1])


def check_run_lines(path: str, name: Optional[str] = None) -> Optional[str]:
    """The tag (sixth field) of the run's last data line, which trec_eval prints as runid
    (None without one); an InputError at the first line holding a lone CR followed by text,
    which trec_eval reads as part of that line. ``path`` must be readable twice; ``name``:
    the run's name in errors (``path`` is a copy of it), default ``path``."""
    _refuse_byte_order_mark(path, name or path)
    if _plain_file(path):
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                return None
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                if mapped.find(b"\r") < 0:  # the usual file: no CR, no line end to doubt
                    return _tag_from_the_end(mapped)
    tag = None
    for piece, offset, last in _lf_pieces(path):
        if _holds_lone_cr(piece):  # CRLF alone needs no closer look
            lines = _LfLines(piece, last)
            problem = [(lines.first_text_after_lone_cr(), _LONE_CR)]
            _raise_first(problem, path, name or path, offset)
        found, piece_tag = _last_tag(piece)
        if found:
            tag = piece_tag
    return tag


_LONE_CR = (
    "a CR that is not part of a CRLF, followed by text: trec_eval ends lines at LF only, "
    "so it reads that text as the rest of this line"
)


class _LfLines:
    """The LF-ended lines of a piece of a file (trec_eval's lines) as arrays: each line's
    start and end (its LF, or the piece's end for a last line without one)."""

    def __init__(self, piece: bytes, last: bool):
        self.buf = np.frombuffer(piece, np.uint8)
        lf = np.flatnonzero(self.buf == LF)
        ends = (
            lf if (len(lf) and lf[-1] == len(piece) - 1) or not last else np.append(lf, len(piece))
        )
        self.starts = np.append(0, ends[:-1] + 1) if len(ends) else ends
        self.ends = ends
        self.solid = np.append(np.flatnonzero(~separator_mask(self.buf)), len(piece))
        self.first_solid = self.solid[np.searchsorted(self.solid, self.starts)]

    def first_where(self, mask: np.ndarray) -> Optional[int]:
        """The start of the first line where ``mask`` holds, or None."""
        hits = np.flatnonzero(mask)
        return int(self.starts[hits[0]]) if len(hits) else None

    def first_blank(self) -> Optional[int]:
        return self.first_where(self.first_solid >= self.ends)

    def comment_start(self) -> np.ndarray:
        """Whether each line's first byte is '#'."""
        filled = self.ends > self.starts
        return filled & (self.buf[np.minimum(self.starts, max(len(self.buf) - 1, 0))] == HASH)

    def first_indented_comment(self) -> Optional[int]:
        text = self.first_solid < self.ends
        at = np.minimum(self.first_solid, max(len(self.buf) - 1, 0))
        return self.first_where(text & (self.buf[at] == HASH) & (self.first_solid > self.starts))

    def first_text_after_lone_cr(self) -> Optional[int]:
        """The offset of the first CR not before an LF that text follows on its line."""
        cr = np.flatnonzero(self.buf == CR)
        lone = cr[
            (cr + 1 < len(self.buf)) & (self.buf[np.minimum(cr + 1, len(self.buf) - 1)] != LF)
        ]
        if len(lone) == 0:
            return None
        line_end = self.ends[np.minimum(np.searchsorted(self.ends, lone), len(self.ends) - 1)]
        after = self.solid[np.searchsorted(self.solid, lone)]
        hits = np.flatnonzero(after < line_end)
        return int(lone[hits[0]]) if len(hits) else None


def _plain_lines(piece: bytes) -> bool:
    """Whether every line of ``piece`` starts with a token and none holds a '#' or a CR:
    then both grammars read it alike, and the closer look (a tenth of the time) is not
    needed. A blank or whitespace-only line starts with a separator."""
    if b"#" in piece or b"\r" in piece:
        return False
    buf = np.frombuffer(piece, np.uint8)
    line_starts = np.append(0, np.flatnonzero(buf[:-1] == LF) + 1)
    return not separator_mask(buf[line_starts]).any()


def _refuse_byte_order_mark(path: str, name: str) -> None:
    """irgauge's readers drop a UTF-8 byte order mark; trec_eval reads it as the start of
    the first line's topic, another topic than the same id on the next lines (in a
    compressed file too, whose content irgauge reads as it reads a plain one)."""
    if starts_with_bom(path):
        raise InputError(
            "a UTF-8 byte order mark, which trec_eval reads as part of the first "
            "line's topic; remove it",
            name,
            1,
        )


def _holds_lone_cr(piece: bytes) -> bool:
    """Whether a CR before the piece's last byte is not followed by an LF."""
    if b"\r" not in piece:
        return False
    buf = np.frombuffer(piece, np.uint8)
    cr = np.flatnonzero(buf[:-1] == CR)
    return bool((buf[cr + 1] != LF).any())


def _raise_first(problems, path: str, name: str, offset: int) -> None:
    """The problem found earliest in the piece at ``offset`` of ``path``, raised at its
    line (as irgauge counts lines), naming the file ``name``."""
    found = [(at, problem) for at, problem in problems if at is not None]
    if not found:
        return
    at, problem = min(found, key=lambda item: item[0])
    raise InputError(problem, name, _line_at(path, offset + at))


def _line_at(path: str, at: int) -> int:
    """The line holding byte ``at`` of the content: counted once a problem is found, not
    for every piece read."""
    lines = 0
    for piece, offset, _ in _lf_pieces(path):
        if offset + len(piece) > at:
            return lines + count_line_ends(piece[: at - offset]) + 1
        lines += count_line_ends(piece)
    return lines + 1


def _lf_pieces(path: str) -> Iterator[Tuple[bytes, int, bool]]:
    """The file's content in pieces that end at an LF (the last one may not), each with
    its offset in the content and whether it is the last."""
    carry, offset = b"", 0
    blocks = iter_blocks(path, BLOCK_BYTES)
    try:
        block = next(blocks, None)
    except InputError:  # an empty file, a line too long: the reader that follows says so
        return
    while block is not None:
        try:
            following = next(blocks, None)
        except InputError:
            return
        data = carry + block if carry else block  # a block ends at an LF but after a lone CR
        cut = data.rfind(b"\n") + 1 if following is not None else len(data)
        piece, carry = data[:cut], data[cut:]
        if piece:
            yield piece, offset, following is None
            offset += len(piece)
        block = following


def _plain_file(path: str) -> bool:
    """A regular file that is not compressed."""
    if not read_twice(path) or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        magic = handle.read(6)
    return not is_compressed(magic)


def _tag_from_the_end(mapped: mmap.mmap) -> Optional[str]:
    """The last data line's tag of a file without CR, read from its end."""
    size, count = len(mapped), TAIL_BYTES
    while True:
        start = max(size - count, 0)
        tail = mapped[start:]
        if start:  # the first line of the tail may be cut: from the next one
            tail = tail[tail.find(b"\n") + 1 :]
        found, tag = _last_tag(tail)
        if found or start == 0:
            return tag
        count *= 2


def _last_tag(data: bytes) -> Tuple[bool, Optional[str]]:
    """Whether ``data`` (whole lines) holds a data line, and the tag of its last one, read
    line by line from the end (the last line is nearly always one)."""
    end = len(data)
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        fields = data[start:end].split()
        if fields and not fields[0].startswith(b"#"):
            tag = fields[5].decode("utf-8", "backslashreplace") if len(fields) >= 6 else None
            return True, tag
        end = start - 1
    return False, None
