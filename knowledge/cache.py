"""The compiled-knowledge cache: files that spare a short CLI run the validation and compile work.

    data = cache.read(path)          # bytes, or None: absent, damaged, foreign, a symlink
    cache.write(path, data)          # atomic (temp file + rename), 0600 in a 0700 directory
    entries = [rebuild.model(Entry, r) for r in json_rows]   # trusted rows back into models

Every file name carries a digest of what it was made from (`digest`): the knowledge files, the code
that validates or compiles them and the library versions, so an edited entry, marker or module is
never answered from an old file. The cache is only an optimisation: any failure reading or writing it
means the work is done again, never an error.

A cache file is also a file another user could plant: a Hyperscan database is deserialised by C code
and cached entries skip validation. So a file is read only when it is a regular file (opened with
`O_NOFOLLOW`: a symlink is refused), owned by the effective user and writable by no one else, in a
directory that is owned by that user and writable by no one else. Anything else is ignored and never
written into. No pickle: entries are stored as JSON rows of plain values (`rows`, `Rebuilder`).
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import os
import stat
import types
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

#: a cache file larger than this is not ours (the largest, a Hyperscan database, is ~1 MB)
MAX_BYTES = 64 << 20

M = TypeVar("M", bound=BaseModel)


def digest(*parts: bytes | str) -> str:
    """A short hex digest of `parts` (each delimited, so `("ab", "c")` and `("a", "bc")` differ)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()[:32]


def file_digest(paths: Iterable[Path], *extra: str) -> str:
    """`digest` of each path's name and content (a missing file counts as such) and of `extra`."""
    parts: list[bytes | str] = list(extra)
    for p in paths:
        parts.append(p.name)
        try:
            parts.append(p.read_bytes())
        except OSError:
            parts.append("<missing>")
    return digest(*parts)


def _private(st: os.stat_result) -> bool:
    """Owned by the effective user and writable by no one else."""
    return st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def usable_dir(directory: Path) -> bool:
    """True when `directory` exists, is a directory (a symlink to one is fine: `~/.cache` often is)
    and is private to this user, so no one else can have put or swapped a file there."""
    try:
        st = os.stat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and _private(st)


def read(path: Path | None) -> bytes | None:
    """The content of cache file `path`, or None when it is absent, too large, or not trusted."""
    if path is None or not usable_dir(path.parent):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:  # absent, or a symlink (ELOOP)
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _private(st) or st.st_size > MAX_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_BYTES + 1)
        return data if len(data) <= MAX_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)


def write(path: Path | None, data: bytes) -> bool:
    """Store `data` at `path` atomically; False (and nothing written) when the directory cannot be
    created or is not private to this user, or the disk refuses: the cache is only an optimisation."""
    if path is None:
        return False
    directory = path.parent
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return False
    if not usable_dir(directory):
        return False
    import tempfile  # only when writing: not on the path of a run that finds its cache

    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")  # 0600, O_EXCL
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)  # replaces a planted symlink itself, never what it points to
        return True
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False


# --- models as plain JSON rows and back ------------------------------------------------------------


#: the key of a row that lists the fields that were set (no pydantic field can be named so)
SET_KEY = "__set__"


def rows(models: Iterable[BaseModel]) -> list[dict[str, Any]]:
    """Each model as JSON-ready values: every field (rebuilding then needs no defaults) and, under
    `SET_KEY`, which were set. Values JSON cannot hold make `json.dumps` fail: nothing is cached."""
    return [_row(m) for m in models]


def _row(m: BaseModel) -> dict[str, Any]:
    out = {n: _plain(getattr(m, n)) for n in type(m).model_fields}
    out[SET_KEY] = sorted(m.model_fields_set)
    return out


def _plain(v: Any) -> Any:
    if isinstance(v, BaseModel):
        return _row(v)
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


class Rebuilder:
    """Models rebuilt from `rows` output without validation (the values were validated before they
    were stored): nested models, enums, lists and optional values by the fields' annotations.

    A key the model lacks raises `KeyError` (a damaged or foreign row). Types this does not know are
    passed through as they are; `same` at store time refuses to cache what does not come back equal.
    One instance per load: it keeps how each model class converts (pydantic's own `model_construct`
    defaults cost a signature inspection per default factory, most of the time saved).
    """

    def __init__(self) -> None:
        self._plans: dict[type[BaseModel], dict[str, Callable[[Any], Any] | None]] = {}
        self._special: set[type[BaseModel]] = set()

    def model(self, cls: type[M], row: dict[str, Any]) -> M:
        plan = self._plans.get(cls)
        if plan is None:
            plan = self._plans[cls] = {n: self._converter(f.annotation) for n, f in cls.model_fields.items()}
            if (
                cls.__private_attributes__
                or cls.__pydantic_post_init__
                or cls.model_config.get("extra") == "allow"
            ):
                self._special.add(cls)  # state beyond the fields: pydantic's own `model_construct`
        values: dict[str, Any] = {}
        for name, v in row.items():
            if name != SET_KEY:
                conv = plan[name]
                values[name] = v if conv is None or v is None else conv(v)
        fields_set = set(row[SET_KEY])
        if len(values) == len(plan) and cls not in self._special:
            # every field at hand: set the state as unpickling does (`BaseModel.__setstate__`), a
            # third of what `model_construct` costs
            m = cls.__new__(cls)
            m.__setstate__(
                {
                    "__dict__": values,
                    "__pydantic_fields_set__": fields_set,
                    "__pydantic_extra__": None,
                    "__pydantic_private__": None,
                }
            )
            return m
        for name, field in cls.model_fields.items():  # a row without every field: not one `rows` wrote
            if name not in values:
                if field.is_required():
                    raise KeyError(name)  # never a model that lacks a field validation demands
                values[name] = _default(field)
        return cls.model_construct(fields_set, **values)

    def _converter(self, ann: Any) -> Callable[[Any], Any] | None:
        """How a stored value of type `ann` becomes the model's value; None: as it is."""
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if origin is typing.Union or origin is types.UnionType:
            options = [a for a in args if a is not type(None)]
            return self._converter(options[0]) if len(options) == 1 else None
        if origin is list or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
            item = self._converter(args[0])
            if item is None:
                return list if origin is list else tuple
            return (
                (lambda v: [item(x) for x in v]) if origin is list else (lambda v: tuple(item(x) for x in v))
            )
        if origin is dict and args and args[0] is str:
            value = self._converter(args[1])
            return dict if value is None else (lambda v: {k: value(x) for k, x in v.items()})
        if isinstance(ann, type) and origin is None:
            if issubclass(ann, BaseModel):
                return lambda v: self.model(ann, v)
            if issubclass(ann, enum.Enum):
                return ann
            if ann is float:
                return float
        return None


def _default(field: FieldInfo) -> Any:
    """A field's default as validation would give it (a fresh one from a factory)."""
    if field.default_factory is None:
        return field.get_default(call_default_factory=False)
    try:
        return field.default_factory()  # type: ignore[call-arg]
    except TypeError:  # a factory of the validated data: pydantic's own (slow) path
        return field.get_default(call_default_factory=True, validated_data={})


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down, set fields included (`==` alone says a `StrEnum`
    equals its string, and pydantic's ignores which fields were set)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, BaseModel):
        extra = (a.__pydantic_extra__, a.__pydantic_private__) == (
            b.__pydantic_extra__,
            b.__pydantic_private__,
        )
        return (
            extra
            and a.model_fields_set == b.model_fields_set
            and all(same(getattr(a, n), getattr(b, n)) for n in type(a).model_fields)
        )
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)
