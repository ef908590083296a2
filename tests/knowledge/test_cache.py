"""The compiled-knowledge cache (`knowledge/cache.py`): same answers, rebuilt on any change, and a
file someone else could have planted (foreign owner, symlink, writable by others) is never loaded."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from denpex.cli import diagnose as cli_diagnose
from knowledge import cache
from knowledge import engine as engine_mod
from knowledge.engine import Engine
from knowledge.patterns import Pattern, PatternSet, load_db
from knowledge.phases import Marker
from knowledge.schema import ENTRIES_DIR, Entry, EntryError, Xid
from knowledge.sources import discover
from tests.knowledge import scenarios
from tests.knowledge.engine_support import entries_dir

IS_ROOT = os.geteuid() == 0
PLANTED = "PLANTED by someone else"


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The entries as this module found them (they may be edited while it runs: same patterns for all)."""
    dest = tmp_path_factory.mktemp("entries") / "entries"
    shutil.copytree(entries_dir() or ENTRIES_DIR, dest)
    return dest


@pytest.fixture(scope="module")
def warm(entries: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Engine]]:
    """A cache filled by one engine that compiled everything itself (compiling is the slow part)."""
    path = tmp_path_factory.mktemp("warm") / "cache"
    yield path, Engine.load(entries, cache_dir=path)


@pytest.fixture(scope="module")
def validated(entries: Path) -> tuple[list[Entry], dict[int, Xid], list[Marker]]:
    """The knowledge as validation gives it, no cache involved."""
    return engine_mod._load_knowledge(entries, None, None)


def _compiled_only(warm: tuple[Path, Engine], dest: Path, knowledge: bool = False) -> Path:
    """A private cache dir holding the warm Hyperscan databases and literals, and the validated
    knowledge only when `knowledge`."""
    dest.mkdir(mode=0o700)
    for f in warm[0].iterdir():
        if knowledge or not f.name.startswith("knowledge-"):
            shutil.copy(f, dest / f.name)
            (dest / f.name).chmod(0o600)
    return dest


def _knowledge_file(cache_dir: Path) -> Path:
    (found,) = cache_dir.glob("knowledge-*.json")
    return found


def _no_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on validating an entry fails the test: what loads must come from the cache."""

    def refuse(*_: object) -> None:
        raise AssertionError("validated again")

    monkeypatch.setattr(engine_mod, "load_entries", refuse)


def _entries_copy(entries: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "entries"
    shutil.copytree(entries, dest)
    return dest


def _knowledge(entries: Path, cache_dir: Path) -> tuple[list[Entry], dict[int, Xid], list[Marker]]:
    """What `Engine.load` loads before it compiles anything (the compile is the same either way)."""
    return engine_mod._load_knowledge(entries, None, cache_dir)


def test_cached_knowledge_is_the_validated_knowledge(
    entries: Path, warm: tuple[Path, Engine], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _compiled_only(warm, tmp_path / "cache")
    first = Engine.load(entries, cache_dir=path)
    assert _knowledge_file(path).stat().st_mode & 0o777 == 0o600
    _no_validation(monkeypatch)
    second = Engine.load(entries, cache_dir=path)
    assert cache.same(list(second.entries.values()), list(first.entries.values()))
    assert cache.same(second.xids, first.xids) and cache.same(second.markers, first.markers)
    job = scenarios.desync(tmp_path / "job")
    a, b = first.diagnose(discover([job])), second.diagnose(discover([job]))
    assert a.model_dump(exclude={"stats"}) == b.model_dump(exclude={"stats"})


def test_an_edited_entry_is_validated_again(entries: Path, tmp_path: Path) -> None:
    mine = _entries_copy(entries, tmp_path)
    path = tmp_path / "cache"
    _knowledge(mine, path)
    victim = sorted(mine.glob("*.toml"))[0]
    text = victim.read_text(encoding="utf-8")
    title = next(line for line in text.splitlines() if line.startswith("title"))
    victim.write_text(text.replace(title, 'title = "An edited title of this entry"', 1), encoding="utf-8")
    got, _, _ = _knowledge(mine, path)
    assert {e.id: e.title for e in got}[victim.stem] == "An edited title of this entry"
    assert len(list(path.glob("knowledge-*.json"))) == 2  # keyed by content: a new file
    category = next(line for line in text.splitlines() if line.startswith("category"))
    victim.write_text(text.replace(category, 'category = "no_such_category"', 1), encoding="utf-8")
    with pytest.raises(EntryError, match="category"):  # a bad file fails every time, cache or not
        _knowledge(mine, path)


@pytest.mark.parametrize(
    "damage",
    [b"", b"{not json", b'{"entries": [], "xids": [], "markers": []', b'{"entries": [{"id": 1}]}', b"[1, 2]"],
)
def test_a_damaged_cache_file_is_ignored_and_written_anew(
    entries: Path, warm: tuple[Path, Engine], validated: tuple[object, ...], tmp_path: Path, damage: bytes
) -> None:
    path = _compiled_only(warm, tmp_path / "cache", knowledge=True)
    _knowledge_file(path).write_bytes(damage)
    assert cache.same(_knowledge(entries, path), validated)
    assert json.loads(_knowledge_file(path).read_bytes())["entries"]  # rebuilt whole


def test_a_truncated_cache_file_is_ignored(
    entries: Path, warm: tuple[Path, Engine], validated: tuple[object, ...], tmp_path: Path
) -> None:
    path = _compiled_only(warm, tmp_path / "cache", knowledge=True)
    target = _knowledge_file(path)
    target.write_bytes(target.read_bytes()[: target.stat().st_size // 2])
    assert cache.same(_knowledge(entries, path), validated)


def test_an_unusable_cache_dir_costs_only_time(
    entries: Path, validated: tuple[object, ...], tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    unusable = blocker / "cache"  # mkdir fails: nothing is cached, everything still loads
    assert cache.same(_knowledge(entries, unusable), validated)
    assert cache.write(unusable / "x.db", b"data") is False and cache.read(unusable / "x.db") is None
    few = [Pattern(0, "CUDA out of memory", False, "primary", "s", "e", 1.0, 0)]
    assert [idx for idx, _ in PatternSet(few, unusable).scan(b"x\ntorch: CUDA out of memory.\n")] == [0]


def _planted(warm: tuple[Path, Engine], tmp_path: Path) -> tuple[Path, Path, bytes]:
    """A private cache with valid knowledge, and the same knowledge with one title changed: what
    someone who can write a file there would put in its place."""
    path = _compiled_only(warm, tmp_path / "cache", knowledge=True)
    target = _knowledge_file(path)
    data = json.loads(target.read_bytes())
    data["entries"][0]["title"] = PLANTED
    return path, target, json.dumps(data).encode()


def _titles(entries: Path, path: Path) -> set[str]:
    return {e.title for e in _knowledge(entries, path)[0]}


def test_the_plant_would_load_if_it_were_ours(
    entries: Path, warm: tuple[Path, Engine], tmp_path: Path
) -> None:
    """The premise of the tests below: a private, well-formed file is trusted as it is."""
    path, target, plant = _planted(warm, tmp_path)
    target.write_bytes(plant)
    assert PLANTED in _titles(entries, path)


@pytest.mark.skipif(not IS_ROOT, reason="giving a file to another user takes root")
def test_a_cache_file_owned_by_someone_else_is_not_loaded(
    entries: Path, warm: tuple[Path, Engine], tmp_path: Path
) -> None:
    path, target, plant = _planted(warm, tmp_path)
    target.write_bytes(plant)
    os.chown(target, 65534, 65534)
    assert PLANTED not in _titles(entries, path)


def test_a_cache_file_others_may_write_is_not_loaded(
    entries: Path, warm: tuple[Path, Engine], tmp_path: Path
) -> None:
    path, target, plant = _planted(warm, tmp_path)
    target.write_bytes(plant)
    target.chmod(0o666)
    assert PLANTED not in _titles(entries, path)


def test_a_symlinked_cache_file_is_not_followed(
    entries: Path, warm: tuple[Path, Engine], tmp_path: Path
) -> None:
    path, target, plant = _planted(warm, tmp_path)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(plant)
    elsewhere.chmod(0o600)
    target.unlink()
    target.symlink_to(elsewhere)
    assert PLANTED not in _titles(entries, path)
    assert not target.is_symlink()  # written anew as a file of ours, the link's target untouched
    assert elsewhere.read_bytes() == plant


def test_a_cache_dir_others_may_write_is_neither_read_nor_written(
    entries: Path, warm: tuple[Path, Engine], tmp_path: Path
) -> None:
    path, target, plant = _planted(warm, tmp_path)
    target.write_bytes(plant)
    path.chmod(0o777)
    try:
        assert PLANTED not in _titles(entries, path)
        assert cache.write(path / "new.json", b"{}") is False and not (path / "new.json").exists()
        assert target.read_bytes() == plant  # not rewritten either
    finally:
        path.chmod(0o700)


def test_hyperscan_databases_from_the_cache_scan_identically(
    warm: tuple[Path, Engine], tmp_path: Path
) -> None:
    path, compiled = warm
    loaded = PatternSet(compiled.patterns, path)
    assert loaded.backend == compiled.pattern_set.backend
    logs = sorted(Path(__file__).parent.parent.joinpath("corpus").rglob("*.log"))[:200]
    data = b"".join(p.read_bytes()[:20000] for p in logs) + scenarios_text(tmp_path)
    assert len(data) > 100_000
    assert loaded.scan(data) == compiled.pattern_set.scan(data)


def scenarios_text(tmp_path: Path) -> bytes:
    job = scenarios.desync(tmp_path / "job")
    return b"".join(p.read_bytes() for p in sorted(job.iterdir()) if p.is_file())


def test_a_planted_hyperscan_database_is_not_deserialised(warm: tuple[Path, Engine], tmp_path: Path) -> None:
    (db,) = list(warm[0].glob("hs-*.db"))[:1]
    path = _compiled_only(warm, tmp_path / "cache")
    assert load_db(path / db.name) is not None
    link = path / "hs-link.db"
    link.symlink_to(path / db.name)
    assert load_db(link) is None
    (path / db.name).chmod(0o644 | stat.S_IWGRP)
    assert load_db(path / db.name) is None
    (path / "garbage.db").write_bytes(b"\0" * 4096)
    (path / "garbage.db").chmod(0o600)
    assert load_db(path / "garbage.db") is None


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    tmp_path.chmod(0o700)
    os.mkfifo(tmp_path / "knowledge-x.json", 0o600)
    assert cache.read(tmp_path / "knowledge-x.json") is None


def test_the_cli_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DENPEX_CACHE_DIR", str(tmp_path / "mine"))
    assert cli_diagnose._cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("DENPEX_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cli_diagnose._cache_dir() == tmp_path / "xdg" / "denpex"


def test_the_tests_never_share_the_users_cache(denpex_cache_dir: Path) -> None:
    assert Path(os.environ["DENPEX_CACHE_DIR"]) == denpex_cache_dir
    assert not str(denpex_cache_dir).startswith(str(Path.home() / ".cache"))


def test_rebuilder_keeps_types_and_set_fields() -> None:
    from knowledge.schema import Role, Signature

    sig = Signature.model_validate({"id": "a-b", "pattern": "CUDA out of memory", "role": "collateral"})
    (row,) = cache.rows([sig])
    back = cache.Rebuilder().model(Signature, json.loads(json.dumps(row)))
    assert back.role is Role.collateral and type(back.weight) is float
    assert back.model_fields_set == sig.model_fields_set and cache.same(back, sig)
    assert not cache.same(sig.model_copy(update={"role": "collateral"}), sig)  # a str is not the enum
    with pytest.raises(KeyError):
        cache.Rebuilder().model(Signature, {**row, "unknown": 1})
    with pytest.raises(KeyError):  # a required field missing: never a half model
        cache.Rebuilder().model(Signature, {k: v for k, v in row.items() if k != "pattern"})
    partial = {"id": "a-b", "pattern": "CUDA out of memory", cache.SET_KEY: ["id", "pattern"]}
    assert cache.Rebuilder().model(Signature, partial).weight == 1.0  # defaults as validation gives
