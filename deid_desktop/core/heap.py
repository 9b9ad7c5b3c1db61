"""Keep freed heap pages for the next batch (Linux, glibc): ``keep_freed_pages``.

The scan makes and frees some MB of numpy arrays per batch of notes. By default glibc
gives the free top of its heap back to the system once it passes a threshold that it
raises only as far as twice the largest block freed so far (a few MB here), so every
batch asked for its pages again: about 35,000 page faults per 10 MB of notes, each a
page zeroed by the kernel and missed in the cache (measured: 10-20 % of a dense scan's
CPU time, a tenth of it system time). Setting the two thresholds to the values glibc's
own policy reaches at most (blocks up to 32 MB from the heap, 64 MB of free top kept)
keeps those pages: a scan's later batches reuse them. Memory given back on purpose
(``malloc_trim``, gui.workers.release_free_memory) is still given back.
"""

from __future__ import annotations

import ctypes
import functools
import sys

#: glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: Blocks up to this size come from the heap (glibc's own ceiling for its dynamic
#: threshold on 64-bit systems).
MMAP_THRESHOLD = 32 << 20
#: Free memory at the top of the heap kept, not given back (twice the above, as glibc
#: sets it when it raises the threshold itself).
TRIM_THRESHOLD = 64 << 20


@functools.cache
def keep_freed_pages() -> bool:
    """Set glibc's two thresholds, once per process; whether they are set (False off
    Linux, or where the C library is not glibc)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc: left as it is
        return False
    return bool(
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
        and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    )
