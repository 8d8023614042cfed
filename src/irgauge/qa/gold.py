"""Gold answers of QA questions: answer strings in equivalence classes with levels.

Formats (``gold_format``; ``auto`` picks by content: JSON if the file starts with ``{``/``[``, TSV
if its lines hold tabs, ``eqrels`` if they hold ``;``, else ``erel``):

* ``eqrels`` (NTCIREVAL, UTF-8): ``topic;answer string;Lk;classid`` -- the first field is
  the topic, the last two the level and the class, everything between is the string (so
  it may hold spaces and ``;``).
* ``erel`` (NTCIREVAL's per-topic equivalence-class file): ``answer string Lk classid``;
  the topic is the file's stem (``esample.erel`` -> ``esample``).
* ``tsv`` (irgauge): ``topic<TAB>answer<TAB>level<TAB>class``; an optional header line
  starting ``topic<TAB>``; lines starting with ``#`` are comments.
* ``json`` (irgauge): a list of records ``{"topic", "answer", "level", "class"}``, or
  ``{topic: [{"class": id, "level": L, "answers": [string, ...]}, ...]}``, or
  ``{topic: {id: {"level": L, "answers": [string, ...]}}}``. Schema: topic and class ids
  are strings or integers, levels as below (a string or an integer), ``answers`` a list of
  strings; the file nests at most 8 levels deep and holds at most 1 GiB.

Levels: ``L0, L1, ...``, NTCIR's ``S/A/B`` (3/2/1) or integers; level 0 (or negative)
marks a judged incorrect class. Levels belong to strings, as in NTCIREVAL: a class's level
is the highest level of its strings (used for R and the ideal list), and an answer that
opens a class counts with its own string's level. Strings are matched after the
normaliser; a (normalised) string listed in two classes of a topic is an error, and one
listed twice in a class keeps its highest level.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.io.records import AGGREGATE_TOPIC, aggregate_topic_error
from irgauge.io.file_names import file_path, file_stem
from irgauge.qa._text import chosen_format, parse_level, read_json
from irgauge.qa.normalise import Normaliser, make_normaliser
from irgauge.types import GoldLike, NormaliserLike

GOLD_FORMATS = ("auto", "eqrels", "erel", "tsv", "json")


@dataclass
class AnswerGold:
    """Gold data after normalisation.

    ``answers[topic][normalised string] = (class id, level)``;
    ``classes[topic][class id] = level`` (the highest level of its strings).
    """

    answers: Dict[str, Dict[str, Tuple[str, int]]]
    classes: Dict[str, Dict[str, int]]
    source: str = "<memory>"
    fmt: str = "records"
    normaliser: Normaliser = field(default_factory=Normaliser)

    @property
    def topic_ids(self) -> List[str]:
        return list(self.classes)

    @classmethod
    def from_records(
        cls, records, source: str = "<memory>", fmt: str = "records", normalise=None
    ) -> "AnswerGold":
        """Build from ``(topic, string, level, class id, line)`` records (line may be None)."""
        norm = make_normaliser(normalise)
        answers: Dict[str, Dict[str, Tuple[str, int]]] = {}
        classes: Dict[str, Dict[str, int]] = {}
        first_line: Dict[Tuple[str, str], object] = {}
        for topic, string, level, class_id, line in records:
            topic, class_id = str(topic), str(class_id)
            if not topic or not class_id:
                raise InputError("empty topic or class id", source, line)
            if topic == AGGREGATE_TOPIC:
                raise aggregate_topic_error(source=source, line=line)
            key = norm(str(string))
            if not key:
                raise InputError("empty answer string", source, line)
            level = parse_level(level, source, line)
            known = answers.setdefault(topic, {}).get(key)
            if known is not None and known[0] != class_id:
                raise InputError(
                    f"answer string {string!r} of topic {topic!r} is in class {class_id!r} "
                    f"and in class {known[0]!r} (line {first_line[(topic, key)]})"
                    + ("" if norm.spec == "exact" else f" after normalisation {norm.spec}"),
                    source,
                    line,
                )
            if known is None:
                first_line[(topic, key)] = line if line is not None else "?"
            answers[topic][key] = (class_id, max(level, known[1]) if known else level)
            per_topic = classes.setdefault(topic, {})
            per_topic[class_id] = max(per_topic.get(class_id, 0), level)
        if not classes:
            raise InputError("gold data hold no answers", source)
        return cls(answers, classes, source, fmt, norm)

    def lookup(self, topic: str, string: str) -> Optional[Tuple[str, int]]:
        """(class id, level) of an answer string (normalised here), or None."""
        return self.answers.get(topic, {}).get(self.normaliser(string))

    def n_classes(self, rel_level: int = 1) -> Dict[str, int]:
        """R per topic: classes whose level reaches ``rel_level``."""
        return {t: sum(level >= rel_level for level in c.values()) for t, c in self.classes.items()}


@_checks.renamed_keywords(fmt="gold_format")
def read_gold(
    source: GoldLike, gold_format: str = "auto", normalise: NormaliserLike = None
) -> AnswerGold:
    """Read gold answers from a path (any of GOLD_FORMATS), or pass an AnswerGold through.

    A mapping ``{topic: {class id: {"level": L, "answers": [...]}}}`` is read too.
    ``gold_format``: as :func:`irgauge.qa_evaluate` and ``--gold-format`` name it
    (``fmt=``, its old name, still works, deprecated).
    """
    if isinstance(source, AnswerGold):
        return source
    if isinstance(source, dict):
        return AnswerGold.from_records(
            _nested_records(source, "<dict>"), "<dict>", "dict", normalise
        )
    path = file_path(source, "gold", "gold", "a file path, a dict or AnswerGold")
    fmt, lines = chosen_format(gold_format, GOLD_FORMATS, "gold", path, _detect)
    if fmt == "json":
        return AnswerGold.from_records(_json_records(read_json(path), path), path, fmt, normalise)
    assert lines is not None  # every format but JSON is read as lines
    reader = {"eqrels": _eqrels, "erel": _erel, "tsv": _tsv}[fmt]
    return AnswerGold.from_records(reader(lines, path), path, fmt, normalise)


def _detect(numbered: List[Tuple[int, str]]) -> str:
    lines = [text for _, text in numbered[:50]]
    if any("\t" in text for text in lines):
        return "tsv"
    if all(text.count(";") >= 3 for text in lines):
        return "eqrels"
    return "erel"


def _eqrels(lines: List[Tuple[int, str]], path: str):
    for line, text in lines:
        parts = text.split(";")
        if len(parts) < 4:
            raise InputError(
                "expected 'topic;answer;level;class' (4 fields separated by ';')", path, line
            )
        yield parts[0].strip(), ";".join(parts[1:-2]), parts[-2].strip(), parts[-1].strip(), line


def _erel(lines: List[Tuple[int, str]], path: str):
    topic = file_stem(path)
    for line, text in lines:
        parts = text.rsplit(None, 2)
        if len(parts) < 3:
            raise InputError(
                "expected 'answer level class' (the answer may hold spaces)", path, line
            )
        yield topic, parts[0].strip(), parts[1], parts[2], line


def _tsv(lines: List[Tuple[int, str]], path: str):
    for line, text in lines:
        if text.startswith("#") or (text.lower().startswith("topic\t")):
            continue
        parts = text.split("\t")
        if len(parts) != 4:
            raise InputError(
                f"expected 4 tab-separated fields topic, answer, level, class; got {len(parts)}",
                path,
                line,
            )
        yield parts[0].strip(), parts[1], parts[2], parts[3].strip(), line


def _json_records(data, path: str):
    if isinstance(data, dict):
        return list(_nested_records(data, path))
    if not isinstance(data, list):
        raise InputError("JSON gold data must be a list of records or an object by topic", path)
    records = []
    for i, rec in enumerate(data):
        if not isinstance(rec, dict) or not {"topic", "answer", "level", "class"} <= set(rec):
            raise InputError(f"record {i}: needs keys topic, answer, level, class", path)
        where = f"record {i}"
        records.append(
            (
                _scalar(rec["topic"], "topic", where, path),
                _text(rec["answer"], where, path),
                _level(rec["level"], where, path),
                _scalar(rec["class"], "class", where, path),
                None,
            )
        )
    return records


def _nested_records(data, path: str):
    """Records of ``{topic: {class: {"level", "answers"}}}`` or ``{topic: [{"class",
    "level", "answers"}]}``; every value is checked against that schema."""
    for topic, classes in data.items():
        if isinstance(classes, dict):
            items = list(classes.items())
        elif isinstance(classes, list):
            items = [(c.get("class") if isinstance(c, dict) else None, c) for c in classes]
        else:
            raise InputError(
                f"topic {topic!r}: classes must be an object or a list, not "
                f"{type(classes).__name__}",
                path,
            )
        for class_id, spec in items:
            if (
                not isinstance(spec, dict)
                or "answers" not in spec
                or "level" not in spec
                or class_id is None
            ):
                raise InputError(
                    f"topic {topic!r}: each class needs 'class', 'level' and 'answers'", path
                )
            where = f"topic {topic!r}, class {class_id!r}"
            class_id = _scalar(class_id, "class", where, path)
            level = _level(spec["level"], where, path)
            if not isinstance(spec["answers"], list):
                raise InputError(
                    f"{where}: 'answers' must be a list of strings, not "
                    f"{type(spec['answers']).__name__}",
                    path,
                )
            for string in spec["answers"]:
                yield topic, _text(string, where, path), level, class_id, None


def _scalar(value, what: str, where: str, path: str) -> str:
    """A topic or class id: a string or a whole number."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(
            f"{where}: {what} must be a string or an integer, not {type(value).__name__}", path
        )
    return str(value)


def _text(value, where: str, path: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{where}: answers must be strings, not {type(value).__name__}", path)
    return value


def _level(value, where: str, path: str):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(
            f"{where}: level must be L0, L1, ..., S, A, B or an integer, not "
            f"{type(value).__name__}",
            path,
        )
    return value
