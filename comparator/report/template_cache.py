"""The report's templates compiled once, not on every run: Jinja's bytecode cache in the
user's cache folder (``$XDG_CACHE_HOME/suanli/templates-<tag>/``, by platformdirs).

Compiling the 13 templates of a quote took 0.43 s of every ``suanli quote -o`` (cProfile of
the README's LoRA quote at 1M offers, 2026-12-03: ``Environment.compile``); loading their code
from the cache takes milliseconds. Jinja names each cached template by its
name and file path and keeps the SHA-1 of its source beside the code, so an edited template
compiles again; the folder's tag covers what else shapes the code (Jinja's version and the
environment's options). The cache only saves time, it never fails a report: a folder that
cannot be made, or that another user owns or may write into (it holds code that is run), means
no cache; a file that cannot be read or written is compiled in memory as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket


class TemplateBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's file cache, quiet about files it cannot read or write."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # a damaged file of any kind: compile the template again
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):  # full disk, read-only folder: next run compiles
            super().dump_bytecode(bucket)


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/suanli`` (``~/.cache/suanli``), or the platform's user cache folder."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("suanli", appauthor=False))


def template_cache(
    options: Mapping[str, object], root: Path | None = None
) -> TemplateBytecodeCache | None:
    """The bytecode cache for an environment made with ``options``, or None when its folder
    under ``root`` (default :func:`cache_root`) cannot be made or is not safely the user's."""
    shape = repr((jinja2.__version__, sorted((k, repr(v)) for k, v in options.items())))
    tag = hashlib.sha256(shape.encode()).hexdigest()[:12]
    folder = (root or cache_root()) / f"templates-{tag}"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = folder.lstat()
    except OSError:
        return None
    if not _private(status):
        return None
    return TemplateBytecodeCache(str(folder), "%s.cache")


def _private(status: os.stat_result) -> bool:
    """A real folder of this user that nobody else may write into."""
    getuid = getattr(os, "getuid", None)
    mine = getuid is None or status.st_uid == getuid()
    return stat.S_ISDIR(status.st_mode) and mine and not status.st_mode & 0o022
