"""Text normalizers applied before counting: OpenAI Whisper's rules by name, then the user's own rules.

A `TextNormalizer` is built by `get_normalizer`:

- ``name``: ``"none"`` (text unchanged, the default), ``"whisper_english"`` (Whisper's
  ``EnglishTextNormalizer``: numbers, currencies, British spellings, contractions, fillers,
  brackets and punctuation) or ``"whisper_basic"`` (Whisper's ``BasicTextNormalizer``: brackets,
  symbols and punctuation, lower case; for any language). Both come from the PyPI package
  ``whisper-normalizer``, a copy of openai-whisper's ``whisper/normalizers/``; lightscore drops the
  four replacements that package added to the English table (kinda, sorta, dunno, cause), so the
  output equals openai-whisper's (tests/test_normalize.py checks this against answers made by
  openai-whisper itself).
- ``substitutions``: a ``from<TAB>to`` file (or a mapping) of whole-word replacements.
- ``fillers``: words to drop (a list, or a file with one word per line).

User rules run after the named normalizer, on whitespace-separated words: fillers are dropped,
then substitutions replace whole words or word sequences in one left-to-right pass (longest source
first), and the words are joined by single spaces. They are idempotent (a second pass changes
nothing) because `get_normalizer` rejects tables where a second pass could: a target holding a
source word or a filler, a source holding a filler, or a rule the named normalizer would rewrite.

Whisper's English rules themselves are *not* idempotent everywhere: ``"20mm"`` becomes
``"20 mm"``, and a second pass drops ``"mm"``, one of Whisper's fillers. lightscore keeps Whisper's
behaviour, since equality with it is the point; normalize once.

`TextNormalizer` pickles as plain data; each process builds the Whisper normalizer it needs once,
on first use (also after unpickling).

>>> norm = get_normalizer("whisper_english")
>>> norm("Mr. Smith paid $20.50 for the colour TV!")
'mister smith paid $20.50 for the color tv'
>>> norm.describe()  # doctest: +ELLIPSIS
'whisper_english (whisper-normalizer ...)'
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from lightscore.io.text_files import strip_bom
from lightscore.text.choices import NORMALIZERS

__all__ = [
    "NAMES",
    "NormalizerError",
    "TextNormalizer",
    "english_rules_sha1",
    "get_normalizer",
    "whisper_normalizer",
]

NAMES = NORMALIZERS  # defined in lightscore.text.choices: the command line reads it without importlib.metadata
PACKAGE = "whisper-normalizer"
# Replacements whisper-normalizer added to openai-whisper's English table (0.1.12 to 0.1.15).
ADDED_REPLACERS = (r"\bkinda\b", r"\bsorta\b", r"\bdunno\b", r"\bcause\b")
# english_rules_sha1 of openai-whisper 20250625's own EnglishTextNormalizer, recorded in
# tests/data/whisper_normalizer_golden.json by tests/data/make_whisper_golden.py.
OPENAI_ENGLISH_RULES_SHA1 = "b1f34e4641c06a0580b349910bb1288a9804c95e"

Rule = tuple[str, str, str]  # (where, source, target): where is "path:line" or "substitutions['key']"
Filler = tuple[str, str]  # (where, word)


class NormalizerError(ValueError):
    """An unknown normalizer name or a bad user rule: the message names the file and the line."""


@dataclass(frozen=True)
class TextNormalizer:
    """A named Whisper normalizer followed by user rules; call it on a text. Build it with `get_normalizer`.

    Attributes:
        name: one of `NAMES`.
        substitutions: ``(source, target)`` pairs of words separated by single spaces.
        fillers: words dropped after the named normalizer.
        labels: how `describe` names the user rules (file name and sha1).

    >>> import pickle
    >>> norm = get_normalizer("whisper_basic", fillers=["uh"])
    >>> pickle.loads(pickle.dumps(norm))("Uh, (laughs) HELLO!")
    'hello'
    """

    name: str = "none"
    substitutions: tuple[tuple[str, str], ...] = ()
    fillers: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name)
        # Checked again here (get_normalizer checked them naming file and line), so a normalizer
        # built directly keeps the idempotence promise too.
        _check_rules(
            self.name,
            [(f"substitutions[{source!r}]", source, target) for source, target in self.substitutions],
            [(f"fillers[{i}]", word) for i, word in enumerate(self.fillers)],
        )

    def __call__(self, text: str) -> str:
        """Return ``text`` normalized: the named normalizer first, then the user rules."""
        if self.name != "none":
            text = whisper_normalizer(self.name)(text)
        if self.substitutions or self.fillers:
            text = _user_rules(self.substitutions, self.fillers)(text)
        return text

    def describe(self) -> str:
        """Name everything that changes the number, with versions and file hashes.

        >>> get_normalizer().describe()
        'none'
        >>> get_normalizer("none", substitutions={"okay": "ok"}, fillers=["um", "uh"]).describe()
        'none + 1 substitutions (sha1 f1daa471) + 2 fillers (sha1 e515c6a9)'
        """
        head = self.name if self.name == "none" else f"{self.name} ({PACKAGE} {_version()})"
        return " + ".join((head, *self.labels))


def get_normalizer(
    name: str = "none",
    substitutions: str | os.PathLike | Mapping[str, str] | None = None,
    fillers: str | os.PathLike | Iterable[str] | None = None,
) -> TextNormalizer:
    """Build a `TextNormalizer` from a name and optional user rules, checking the rules.

    Args:
        name: ``"none"``, ``"whisper_english"`` or ``"whisper_basic"``.
        substitutions: a file of ``from<TAB>to`` lines (blank lines and ``#`` comment lines are
            skipped; ``to`` and ``from`` may hold several words), or a mapping ``{from: to}``.
        fillers: words to drop, as a list or a file with one word per line (blank lines and
            ``#`` comment lines skipped).

    Returns:
        The normalizer, picklable; `TextNormalizer.describe` names what it does.

    Raises:
        NormalizerError: an unknown name; a malformed line, an empty field or a duplicate
            (naming the file and line); or a rule a second pass would apply again, or that can
            never match the named normalizer's output.
        FileNotFoundError: a rule file is missing.

    >>> norm = get_normalizer("whisper_basic", substitutions={"okay": "ok", "all right": "alright"}, fillers=["um"])
    >>> norm("Okay, um, ALL RIGHT!")
    'ok alright'
    >>> get_normalizer("whisper_basic", substitutions={"OK": "ok"})
    Traceback (most recent call last):
    ...
    lightscore.text.normalize.NormalizerError: substitutions['OK']: whisper_basic turns source 'OK' into 'ok'...
    """
    _check_name(name)  # before any file is read
    rules, labels = [], []
    if substitutions is not None:
        found, label = _read_substitutions(substitutions)
        rules, labels = found, [label]
    entries: list[Filler] = []
    if fillers is not None:
        entries, label = _read_fillers(fillers)
        labels.append(label)
    _check_rules(name, rules, entries)
    return TextNormalizer(
        name=name,
        substitutions=tuple((source, target) for _, source, target in rules),
        fillers=tuple(word for _, word in entries),
        labels=tuple(labels),
    )


@functools.cache
def whisper_normalizer(name: str) -> Callable[[str], str]:
    """Whisper's normalizer for ``name``, built once per process (it loads the spelling table).

    Raises:
        NormalizerError: ``name`` is not a Whisper normalizer.
        RuntimeError: the installed whisper-normalizer's English rule tables differ from openai-whisper's.
        ImportError: whisper-normalizer is not installed.

    >>> whisper_normalizer("whisper_basic")("Don't (aside) SHOUT!")
    'don t shout '
    """
    try:
        from whisper_normalizer.basic import BasicTextNormalizer
        from whisper_normalizer.english import EnglishTextNormalizer
    except ImportError as e:
        raise ImportError(f"normalizer {name!r} needs the {PACKAGE} package: pip install {PACKAGE}") from e
    if name == "whisper_basic":
        return BasicTextNormalizer()
    if name != "whisper_english":
        raise NormalizerError(f"{name!r} is not a Whisper normalizer: choose whisper_english or whisper_basic")
    english = EnglishTextNormalizer()
    for pattern in ADDED_REPLACERS:
        english.replacers.pop(pattern, None)
    if english_rules_sha1(english) != OPENAI_ENGLISH_RULES_SHA1:
        raise RuntimeError(
            f"{PACKAGE} {_version()} changed Whisper's English rule tables, so its output may "
            f"differ from openai-whisper's: install {PACKAGE}<=0.1.15"
        )
    return english


def english_rules_sha1(english: Callable[[str], str]) -> str:
    """Fingerprint an ``EnglishTextNormalizer``'s tables: fillers, replacements in order, spellings.

    The same for openai-whisper's class and whisper-normalizer's once its additions are dropped;
    a different value means the rule tables differ.

    >>> len(english_rules_sha1(whisper_normalizer("whisper_english")))
    40
    """
    spellings = sorted(english.standardize_spellings.mapping.items())
    tables = [english.ignore_patterns, list(english.replacers.items()), spellings]
    return hashlib.sha1(json.dumps(tables, ensure_ascii=False).encode()).hexdigest()


def _check_name(name: str) -> None:
    if name not in NAMES:
        raise NormalizerError(f"unknown normalizer {name!r}: choose one of {', '.join(NAMES)}")


def _words(text: str) -> str:
    return " ".join(text.split())


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:8]


def _read_rule_file(path: Path, what: str) -> tuple[list[tuple[str, str]], str]:
    """``(lines, label)``: ``("path:line", line)`` for each line that is neither blank nor a ``#`` comment.

    The file is read once, so its sha1 in ``label`` is that of the rules used. A UTF-8
    byte order mark at its start is skipped (else the first rule would never match);
    a FIFO or a device (``/dev/zero``) is refused before it is opened.
    """
    if not path.exists():
        raise FileNotFoundError(f"{what} file {str(path)!r} does not exist")
    if not path.is_file():
        raise NormalizerError(f"{what} file {str(path)!r} is not a regular file")
    data = path.read_bytes()
    label = f"{what} {path.name} (sha1 {_sha1(data)})"
    body = strip_bom(data)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        line = body[: e.start].count(b"\n") + 1
        raise NormalizerError(f"{path}:{line}: not UTF-8 ({e.reason})") from None
    lines = [
        (f"{path}:{number}", line)
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return lines, label


def _read_substitutions(source: str | os.PathLike | Mapping[str, str]) -> tuple[list[Rule], str]:
    if isinstance(source, Mapping):
        pairs = [(f"substitutions[{key!r}]", key, value) for key, value in source.items()]
        for where, key, value in pairs:
            if not isinstance(key, str) or not isinstance(value, str):
                raise NormalizerError(f"{where}: a substitution maps a string to a string, got {key!r}: {value!r}")
        canonical = "".join(f"{key}\t{value}\n" for _, key, value in pairs)
        return _clean_rules(pairs), f"{len(pairs)} substitutions (sha1 {_sha1(canonical.encode())})"
    lines, label = _read_rule_file(Path(source), "substitutions")
    pairs = []
    for where, line in lines:
        fields = line.split("\t")
        if len(fields) != 2:
            raise NormalizerError(f"{where}: expected 'from<TAB>to' (one tab), got {line!r}")
        pairs.append((where, *fields))
    return _clean_rules(pairs), label


def _clean_rules(pairs: list[Rule]) -> list[Rule]:
    rules: list[Rule] = []
    for where, source, target in pairs:
        if not _words(source) or not _words(target):
            raise NormalizerError(f"{where}: empty {'from' if not _words(source) else 'to'} field")
        rules.append((where, _words(source), _words(target)))
    return rules


def _read_fillers(source: str | os.PathLike | Iterable[str]) -> tuple[list[Filler], str]:
    if isinstance(source, (str, os.PathLike)):
        lines, label = _read_rule_file(Path(source), "fillers")
        return [(where, line.strip()) for where, line in lines], label
    entries = [(f"fillers[{i}]", word) for i, word in enumerate(source)]
    for where, word in entries:
        if not isinstance(word, str):
            raise NormalizerError(f"{where}: a filler is a word (a string), got {word!r}")
    canonical = "".join(f"{word}\n" for _, word in entries)
    return entries, f"{len(entries)} fillers (sha1 {_sha1(canonical.encode())})"


def _check_rules(name: str, rules: list[Rule], fillers: list[Filler]) -> None:
    """Raise NormalizerError for a rule that a second pass could apply again, or that never matches."""
    _check_unique([(where, source) for where, source, _ in rules], "source")
    _check_unique(fillers, "filler")
    for where, word in fillers:
        if len(word.split()) != 1:
            raise NormalizerError(f"{where}: a filler is one word, got {word!r}")
    filler_words = {word for _, word in fillers}
    source_words = {word: where for where, source, _ in rules for word in source.split()}
    for where, source, target in rules:
        if not target or source != _words(source) or target != _words(target):
            raise NormalizerError(f"{where}: {source!r} -> {target!r} needs words separated by single spaces")
        for word in source.split():
            if word in filler_words:
                raise NormalizerError(f"{where}: source {source!r} holds the filler {word!r}, dropped before it")
        for word in target.split():
            if word in filler_words or word in source_words:
                what = "a filler" if word in filler_words else f"a source word ({source_words[word]})"
                raise NormalizerError(
                    f"{where}: target {target!r} holds {word!r}, {what}: a second pass would change it again"
                )
    if name != "none":
        named = whisper_normalizer(name)
        for where, source, target in rules:
            _check_fixed(named, name, where, "source", source)
            _check_fixed(named, name, where, "target", target)
        for where, word in fillers:
            # A filler the named normalizer drops already (Whisper's "um") is redundant, not wrong.
            if _words(named(word)):
                _check_fixed(named, name, where, "filler", word)


def _check_unique(entries: list[Filler], role: str) -> None:
    first: dict[str, str] = {}
    for where, word in entries:
        if not word:
            raise NormalizerError(f"{where}: empty {role}")
        if word in first:
            raise NormalizerError(f"{where}: duplicate {role} {word!r} (first at {first[word]})")
        first[word] = where


def _check_fixed(named: Callable[[str], str], name: str, where: str, role: str, text: str) -> None:
    # Rules see the named normalizer's output: a source or filler it rewrites never matches, and a
    # target it rewrites would change on a second pass.
    out = _words(named(text))
    if out != text:
        result = "it never matches" if role != "target" else "a second pass would change it"
        raise NormalizerError(f"{where}: {name} turns {role} {text!r} into {out!r}, so {result}")


@functools.lru_cache(maxsize=64)
def _user_rules(substitutions: tuple[tuple[str, str], ...], fillers: tuple[str, ...]) -> Callable[[str], str]:
    """The user-rule pass for these tables, compiled once per process."""
    drop = frozenset(fillers)
    table = dict(substitutions)
    # Longest source first, so "all right now" wins over "all right"; whole words: no non-space around.
    sources = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"(?<!\S)(?:" + "|".join(map(re.escape, sources)) + r")(?!\S)") if sources else None

    def apply(text: str) -> str:
        text = " ".join(word for word in text.split() if word not in drop)
        return pattern.sub(lambda m: table[m.group(0)], text) if pattern else text

    return apply


def _version() -> str:
    """The installed whisper-normalizer's version (importlib.metadata, ~30 ms to import, loads only when asked)."""
    from importlib import metadata

    return metadata.version(PACKAGE)
