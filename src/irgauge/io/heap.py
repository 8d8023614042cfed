"""glibc's heap, where irgauge reaches it: the C library handle, and returning free memory
to the system between the parts of a run read in parts.

numpy's arrays below glibc's mmap threshold (up to 32 MB) come from the heap; after a part
is scored its arrays are freed, but the heap keeps the pages, fragmented between longer-lived
allocations, and the resident set creeps up part by part (measured: +40 MB a part of 1.1M
lines, up to 650 MB under a 400M budget; with a trim after each part, 440 MB). ``malloc_trim``
hands the free pages back; it changes no setting of the allocator, so a library may call it.
"""

from __future__ import annotations

_LIBC = None


def libc():
    """glibc loaded through ctypes, or False where the C library is not glibc."""
    global _LIBC
    if _LIBC is None:
        try:
            import ctypes

            _LIBC = ctypes.CDLL("libc.so.6")
            _LIBC.mallopt  # glibc's, not another libc's
            _LIBC.malloc_trim
        except (OSError, AttributeError):
            _LIBC = False
    return _LIBC


def release_free_memory() -> None:
    """Return the heap's free pages to the system (a no-op without glibc)."""
    handle = libc()
    if handle:
        handle.malloc_trim(0)
