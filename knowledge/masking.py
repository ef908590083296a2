"""Secret masking for every log line Denpex keeps, before it is stored, queued or sent anywhere.

Rules are data (`data/secrets.toml`). Each is a regex in the subset Python `re` and Hyperscan both
accept. The engine masks only the text it retains (hits, context, tails), through `mask()`: a
Hyperscan database of the rules (plain `re` when Hyperscan cannot be imported) finds the chunks and
rules that hit, and only those run through Python `re`, so lines without secrets cost next to
nothing. `mask_line` starts from rule ids a caller's own scan reported.

A secret becomes `[MASKED:<label>]`; key names, `Bearer `, `scheme://user:` and `@host` stay, so a
reader sees what was there (`HF_TOKEN=[MASKED:hf_token]`, `postgres://app:[MASKED:url_password]@db`).
Masking is idempotent: a mask token is never masked again.

Rules find secrets by structure as well as by vendor prefix: any assignment, flag, `setenv`, call
argument or YAML key whose name holds a secret-ish word is flagged, and `secret_checks` decides from
the name's words and the value's shape (so placeholders, paths and numbers stay). `mask()` is the one
entry point: `mask_bytes`, `mask_lines` and `mask_line` give the same result.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from knowledge import secret_checks as sc
from knowledge.mask_detect import Detector
from knowledge.secret_rules import RULES_PATH, SecretRule, decide, load_rules, mask_token

__all__ = ["RULES_PATH", "MaskStream", "Masker", "SecretRule", "TextMasker", "load_rules", "mask_token"]

CHUNK_CHARS = 32 << 10  # mask(): Python `re` runs only on the chunks the scan flagged
MAX_PASSES = 16  # _apply: passes until masking reaches a fixed point (two in practice)
MAX_BLOCK_LINES = 200  # a private key block without END stops being masked after this many lines

_END_MARKER = "-----END"
_KEY_MARKER = "PRIVATE KEY"
_PEM_BODY = re.compile(r"(?:^|[\s:\]>|])[A-Za-z0-9+/]{4,}={0,2}[ \t\r]*$")
_MASK_TOKENS = sc.MASK_TOKENS
_INDENT = re.compile(r"[ \t]*(?:-[ \t]+)?")


class TextMasker(Protocol):
    """What a consumer of masking needs: `Masker` satisfies it, tests may hand in their own."""

    def mask(self, text: str) -> str: ...


class Masker:
    """Masks secrets in log text. Build once (`Masker.default()`), reuse from any thread."""

    def __init__(
        self, rules: Sequence[SecretRule], *, use_hyperscan: bool = True, cache_dir: Path | None = None
    ) -> None:
        """`use_hyperscan=False` forces the pure-`re` detector (tests compare the two); `cache_dir`
        keeps the compiled Hyperscan databases between processes."""
        self._cache_dir = cache_dir
        self._rules = tuple(rules)
        self._compiled = tuple(re.compile(r.pattern, r.flags) for r in self._rules)
        self._index = {r.id: i for i, r in enumerate(self._rules)}
        self._block = frozenset(i for i, r in enumerate(self._rules) if r.block)
        self._pem = min((i for i, r in enumerate(self._rules) if r.block == "pem"), default=-1)
        self._indented = tuple(i for i, r in enumerate(self._rules) if r.block == "indented")
        self._detector = Detector(self._rules, self._compiled, use_hyperscan, cache_dir)

    @classmethod
    def default(cls, *, use_hyperscan: bool = True, cache_dir: Path | None = None) -> Masker:
        """The bundled rules of data/secrets.toml."""
        return cls(load_rules(), use_hyperscan=use_hyperscan, cache_dir=cache_dir)

    def __reduce__(self) -> tuple[Any, ...]:
        # a Hyperscan database does not pickle: rebuild it from the rules (or the cache)
        return (_rebuild, (self._rules, self.backend == "hyperscan", self._cache_dir))

    @property
    def rules(self) -> Sequence[SecretRule]:
        return self._rules

    @property
    def backend(self) -> str:
        """`hyperscan` or `python`: what finds the rules that hit in `mask()`."""
        return self._detector.backend

    def hits(self, text: str | bytes) -> list[str]:
        """Ids of the rules that match somewhere in `text` (what the engine's scan reports)."""
        return [self._rules[i].id for i in sorted(self._detector.hits(text))]

    def mask(self, text: str) -> str:
        """Mask every secret in `text`, which may hold many lines (private key blocks included).

        Chunk by chunk: one cheap scan per chunk; only a flagged chunk is scanned for the lines the
        rules hit, and only those lines go through Python `re`.
        """
        stream = MaskStream(self)
        out: list[str] = []
        pos, n = 0, len(text)
        while pos < n:
            end = text.find("\n", min(pos + CHUNK_CHARS, n) - 1)
            end = n if end < 0 else end + 1
            chunk = text[pos:end]
            flagged = stream.in_block or self._detector.hits(chunk)  # the cheap scan first
            hits = self._detector.line_hits(chunk) if flagged else {}
            out.append(stream.chunk(chunk, hits) if hits or stream.in_block else chunk)
            pos = end
        masked = "".join(out)
        first = masked.find(_KEY_MARKER)
        same_line_end = masked.rfind(_END_MARKER, 0, first) > masked.rfind("\n", 0, first)
        if first >= 0 and same_line_end and "-----BEGIN" not in masked[:first]:
            return "\n".join(self._orphan_block(masked.split("\n")))
        return masked

    def _orphan_block(self, lines: list[str]) -> list[str]:
        """Mask a key body whose BEGIN line was cut off (a tail or context window): the base64-only
        lines right before the first END marker, which no rule can recognise on their own."""
        end = next(i for i, line in enumerate(lines) if _KEY_MARKER in line)
        start = end
        while start > 0 and _PEM_BODY.search(lines[start - 1]):
            start -= 1
        body = [mask_token(self._rules[self._pem].label)] * (end - start)
        return [*lines[:start], *body, *lines[end:]]

    def mask_line(self, text: str, rule_ids: Iterable[str]) -> str:
        """Mask `text` starting from the rules `rule_ids` (the engine's scan); unknown ids are ignored.

        No usable id: the line is returned untouched, at no cost. Once a rule masked something the
        result is re-checked with every rule until it is stable, so the answer equals `mask(text)`.

        Stateless: on a `-----BEGIN … PRIVATE KEY-----` line it masks what follows the marker; the
        lines after it need `mask_lines` or a `stream()`.
        """
        idxs = {self._index[r] for r in rule_ids if r in self._index}
        return self._apply(text, idxs) if idxs else text

    def mask_bytes(self, data: bytes) -> bytes:
        """`mask()` on raw bytes (webhook bodies, kernel logs): the same result, invalid UTF-8 kept as is.

        No shortcut of its own: a key body cut off above its END line matches no rule, and `mask()`
        alone knows how to find it, so both entry points must take the same path.
        """
        return self.mask(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    def mask_lines(self, lines: list[str]) -> list[str]:
        """Mask a sequence of lines, including the body of private key blocks across lines."""
        if lines and not any("\n" in line for line in lines):
            return self.mask("\n".join(lines)).split("\n")  # one scan, not one per line
        stream = MaskStream(self)
        return [stream.line(line) for line in lines]

    def stream(self) -> MaskStream:
        """A per-source line masker that remembers an open private key block (see `MaskStream`)."""
        return MaskStream(self)

    def _apply(self, text: str, idxs: Iterable[int]) -> str:
        """Mask matches of rules `idxs` in `text`.

        Repeats until nothing changes: a mask token can create a word boundary a neighbouring secret
        needed (`AIza…_sk-ant-…`), and the result must be final, so masking stays idempotent. Each
        pass that changes anything masks at least one more character, so this ends. When the rules
        given (the engine's scan) masked something, the first pass is redone with every rule that
        hits, so labels and spans are those `mask()` gives.
        """
        idxs = set(idxs)
        out = self._apply_once(text, idxs)
        if out != text:
            idxs |= self._detector.hits(text)
            out = self._apply_once(text, idxs)
        for _ in range(MAX_PASSES):
            if out == text:
                break
            text = out
            hits = self._detector.hits(text)
            out = self._apply_once(text, hits) if hits else text
        return out

    def _opens_block(self, text: str) -> bool:
        """Whether `text` has a BEGIN … PRIVATE KEY marker with no END marker after it."""
        for i in (self._pem,) if self._pem >= 0 else ():
            last = None
            for last in self._compiled[i].finditer(text):  # noqa: B007 - the last match decides
                pass
            if last is not None and text.find(_END_MARKER, last.start()) < 0:
                return True
        return False

    def opens_indented(self, text: str) -> str | None:
        """The label for the lines below when `text` is a secret-ish YAML key with no value of its own."""
        for i in self._indented:
            m = self._compiled[i].search(text)
            if m is not None:
                name = sc.name_of(m.group(0).rsplit(":", 1)[0])
                if sc.strength(name) is not None:
                    return sc.label_of(name)
        return None

    def _apply_once(self, text: str, idxs: Iterable[int]) -> str:
        spans: list[tuple[int, int, int, str]] = []
        for i in sorted(idxs):
            rule, rx = self._rules[i], self._compiled[i]
            if rule.block == "indented":
                continue  # masks the lines below it (MaskStream), nothing on its own line
            pos = 0
            while (m := rx.search(text, pos)) is not None:
                groups = [g for g in range(1, (rx.groups or 0) + 1) if m.start(g) >= 0] or [0]
                taken = 0  # end of the last value taken: the next match may start right after it
                for g in groups:
                    s, e = m.span(g)
                    label = decide(rule, text, m.start(), s, e) if e > s else None
                    if label is not None:
                        spans.append((s, i, e, label))
                        taken = e
                # a rejected match must not hide one starting inside it (`KEY-----= "secret": "…"`)
                pos = max(taken, m.start() + 1)
        if not spans:
            return text
        spans.sort()
        out, last = [], 0
        cur_s, _, cur_e, cur_l = spans[0]
        for s, _i, e, label in [*spans[1:], (len(text) + 1, 0, 0, "")]:
            if s < cur_e:
                cur_e = max(cur_e, e)
                continue
            out.append(text[last:cur_s])
            secret = text[cur_s:cur_e]
            keep = _MASK_TOKENS.fullmatch(secret)
            out.append(secret if keep else mask_token(cur_l))
            last = cur_e
            cur_s, cur_e, cur_l = s, e, label
        out.append(text[last:])
        return "".join(out)


def _rebuild(rules: tuple[SecretRule, ...], use_hyperscan: bool, cache_dir: Path | None = None) -> Masker:
    return Masker(rules, use_hyperscan=use_hyperscan, cache_dir=cache_dir)


class MaskStream:
    """Masks the lines of one source in order, tracking an open private key block.

    The engine calls `line(text, rule_ids)` for every line its scan flagged, and for every line while
    `in_block` is true (body lines of a key block match no rule themselves). Body lines become one
    mask token each, so line numbers stay right; the END line keeps its marker. The same holds for
    the value lines under a secret-ish YAML key that has none on its own line (`client-key-data:`):
    every following line indented deeper than the key becomes its indentation and one mask token.
    """

    def __init__(self, masker: Masker) -> None:
        self._m = masker
        self._left = 0
        self._yaml: tuple[int, str] | None = None  # (indentation of the key, label) while under one
        self._yaml_left = 0

    @property
    def in_block(self) -> bool:
        return self._left > 0 or self._yaml is not None

    def line(self, text: str, rule_ids: Iterable[str] | None = None) -> str:
        """Mask one line (without its line break). `rule_ids=None`: find the rules that hit."""
        m = self._m
        if rule_ids is None:
            idxs = m._detector.hits(text)
        else:
            idxs = {m._index[r] for r in rule_ids if r in m._index}
        return self._line(text, idxs)

    def chunk(self, text: str, hits: dict[int, set[int]]) -> str:
        """Mask a chunk of whole lines given the rules that hit on each line (`line_hits`)."""
        parts = text.split("\n")
        if not self.in_block and not any(idxs & self._m._block for idxs in hits.values()):
            for i, idxs in hits.items():  # no rule crosses a line break: only flagged lines
                parts[i] = self._m._apply(parts[i], idxs)
            return "\n".join(parts)
        last = len(parts) - 1 if text.endswith("\n") else len(parts)  # "" after the final break
        masked = [self._line(p, hits.get(i, set())) for i, p in enumerate(parts[:last])]
        return "\n".join(masked + parts[last:])

    def _line(self, text: str, idxs: set[int]) -> str:
        if self._yaml is not None:
            indent, label = self._yaml
            body = text.rstrip("\r")
            lead = len(body) - len(body.lstrip(" \t"))
            if not body.strip():
                return text
            if lead > indent and self._yaml_left > 0:
                self._yaml_left -= 1
                return body[:lead] + mask_token(label) + text[len(body) :]
            self._yaml = None
            if not idxs:
                idxs = self._m._detector.hits(text)
        prefix = ""
        if self._left:
            self._left -= 1
            end = text.find(_END_MARKER)
            body = text if end < 0 else text[:end]
            cr = "\r" if body.endswith("\r") else ""
            prefix = mask_token(self._m._rules[min(self._m._block)].label) + cr if body.strip() else body
            if end < 0:
                return prefix
            self._left = 0
            text = text[end:]
            idxs = self._m._detector.hits(text)
        masked = self._m._apply(text, idxs) if idxs else text
        # before or after masking: a value rule may have swallowed either marker
        if "PRIVATE KEY" in text and (self._m._opens_block(text) or self._m._opens_block(masked)):
            self._left = MAX_BLOCK_LINES
        elif idxs and not self._left and text.rstrip().endswith((":", "|", ">", "-", "+")):
            opened = self._m.opens_indented(text)
            if opened is not None:
                lead_ws = _INDENT.match(text)  # matches the empty string at worst: never None
                self._yaml = (len(lead_ws.group(0)) if lead_ws else 0, opened)
                self._yaml_left = MAX_BLOCK_LINES
        return prefix + masked
