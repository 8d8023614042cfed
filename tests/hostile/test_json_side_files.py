"""JSON inputs and the side files the commands read beside their inputs (a study's or a
collection's manifest, the marker of derived QA data): every one goes through the shared
JSON reader, so a damaged one is refused in one line naming the file, never a traceback,
and a key given twice is refused where Python's parser silently kept the last value."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from irgauge import InputError
from irgauge.io.json_input import parse_json
from irgauge.studies.qa import derived_from
from tests.conftest import examples

GOLD = "q1;Paris;L2;c1\nq1;Lyon;L1;c2\nq2;Rome;L1;c1\n"
RUN = "q1;0;Paris;1;3;r\nq1;0;Berlin;2;2;r\nq2;0;Rome;1;1;r\n"
# the run's q1 answered twice: the parser kept ["Paris"] and scored the run RR = 1
RUN_TWICE = '{\n  "q1": ["Berlin"],\n  "q2": ["Rome"],\n  "q1": ["Paris"]\n}\n'
GOLD_TWICE = (
    '{\n  "q1": {"c1": {"level": 2, "answers": ["Paris"]}},\n'
    '  "q1": {"c1": {"level": 1, "answers": ["Lyon"]}}\n}\n'
)


def _refused(outcome, name: str, line=None) -> str:
    code, _, err = outcome
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    where = f"{name}:{line}:" if line else f"{name}"
    assert where in err, err
    return err


@pytest.fixture
def qa_files(tmp_path):
    gold, run = tmp_path / "g.eqrels", tmp_path / "r.semi"
    gold.write_text(GOLD)
    run.write_text(RUN)
    return gold, run


@pytest.mark.parametrize("command", ["eval", "label"])
def test_qa_json_run_with_a_topic_twice_is_refused(cli, tmp_path, qa_files, command):
    gold, _ = qa_files
    run = tmp_path / "twice.json"
    run.write_text(RUN_TWICE)
    err = _refused(cli("qa", command, gold, run), "twice.json", 4)
    assert "'q1' given twice" in err


def test_qa_json_gold_with_a_topic_twice_is_refused(cli, tmp_path, qa_files):
    _, run = qa_files
    gold = tmp_path / "gold.json"
    gold.write_text(GOLD_TWICE)
    _refused(cli("qa", "eval", gold, run), "gold.json", 3)


def test_report_input_with_results_twice_is_refused(cli, tmp_path):
    result = tmp_path / "result.json"
    rows = [{"run": "a", "measure": "AP", "topic": "1", "value": 0.5}]
    result.write_text('{"metadata": {}, "results": ' + json.dumps(rows) + ',\n"results": []}\n')
    _refused(cli("report", tmp_path / "out", result), "result.json", 2)


# a JSON document with a key repeated in one object, and a valid document whose value is
# the same as Python's parser gives: generated, with the search seeded
KEYS = st.text(st.characters(codec="utf-8", exclude_characters='"\\'), min_size=1, max_size=6)
VALUES = st.one_of(st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=3))


@seed(23)
@settings(max_examples=examples(60), deadline=None)
@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=6), st.data())
def test_parse_json_refuses_every_repeated_key_and_reads_the_rest(found, data):
    text = json.dumps(found, indent=1)
    assert parse_json(text, "f.json") == json.loads(text)
    key = data.draw(st.sampled_from(sorted(found)))
    members = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in found.items()]
    members.insert(data.draw(st.integers(0, len(members))), f" {json.dumps(key)}: 0")
    repeated = "{\n" + ",\n".join(members) + "\n}"
    with pytest.raises(InputError, match="given twice") as caught:
        parse_json(repeated, "f.json")
    if caught.value.line is not None:
        assert json.dumps(key) in repeated.split("\n")[caught.value.line - 1]


# ---- manifests the report reads from OUT or from an INPUT folder

STUDY = {
    "kind": "study",
    "study": "topicset",
    "n_systems": 3,
    "n_topics": 8,
    "seeds": {"seed": 1},
    "versions": {"irgauge": "0"},
    "created": "today",
    "tables": [{"caption": "t", "files": {"csv": "tables/t.csv"}}],
    "figures": [],
}

DAMAGED = {
    "not JSON": ("garbage", "not valid JSON"),
    "NUL bytes": ("\0" * 50, "NUL byte"),
    "a list": ("[1, 2]", "expected a JSON object"),
    "no study name": (json.dumps({**STUDY, "study": None}), "'study' must be str"),
    "a count as text": (json.dumps({**STUDY, "n_topics": "8"}), "'n_topics' must be int"),
    "a table outside": (
        json.dumps({**STUDY, "tables": [{"caption": "t", "files": {"csv": "../../x.csv"}}]}),
        "outside its folder",
    ),
    "a missing table": (
        json.dumps({**STUDY, "tables": [{"caption": "t", "files": {"csv": "none.csv"}}]}),
        "cannot read file",
    ),
    "a missing figure": (
        json.dumps({**STUDY, "figures": [{"caption": "f", "files": {"png": "f.png"}}]}),
        "cannot read figure",
    ),
}


def _study_folder(folder, manifest: str):
    (folder / "tables").mkdir(parents=True)
    (folder / "tables" / "t.csv").write_text("a,b\n1,2\n")
    (folder / "manifest.json").write_text(manifest)
    return folder


@pytest.mark.parametrize("damage", sorted(DAMAGED))
@pytest.mark.parametrize("given_as", ["inside OUT", "an INPUT"])
def test_damaged_study_manifest_is_one_line(cli, tmp_path, damage, given_as):
    text, message = DAMAGED[damage]
    out = tmp_path / "out"
    study = _study_folder((out if given_as == "inside OUT" else tmp_path) / "study", text)
    inputs = [] if given_as == "inside OUT" else [study]
    err = _refused(cli("report", out, *inputs), "study")
    assert message in err


def test_sound_study_manifest_makes_the_page(cli, tmp_path):
    study = _study_folder(tmp_path / "study", json.dumps(STUDY))
    code, _, err = cli("report", tmp_path / "out", study)
    assert code == 0, err
    assert (tmp_path / "out" / "report.html").exists()


def test_damaged_collection_manifest_is_one_line(cli, tmp_path):
    folder = tmp_path / "out" / "collection"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"qrels": "q.txt", "n_topics": 3}))
    err = _refused(cli("report", tmp_path / "out"), "collection/manifest.json")
    assert "'n_runs' must be int" in err


# ---- the marker of QA data derived from ad hoc data


@pytest.mark.parametrize("marker", ["garbage", "[1]", "", '{"gold": 5}'])
def test_damaged_derived_marker(tmp_path, qa_files, marker):
    gold, _ = qa_files
    (gold.parent / "derived.json").write_text(marker)
    if marker == '{"gold": 5}':  # an object naming no gold file: not a marker of this one
        assert derived_from(gold) is None
        return
    with pytest.raises(InputError, match="derived.json"):
        derived_from(gold)
