"""irgauge against the expected values that ir_measures' and ranx's test suites hold.

Rows are written in ir_measures' notation; each is translated to an irgauge measure string.
The tools' conventions: gdeval's nDCG has exponential gain 2^rel - 1 (``dcg=exp-log2``) and
its ERR stops with probability (2^rel - 1)/2^4 (``ERR(stop=exp)``); cwl_eval's and ranx's RBP
is binary. Rows for measures irgauge does not have are skipped, by the explicit list below.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from irgauge import evaluate

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
IR_MEASURES = DATA / "ir_measures_tests"
RANX = DATA / "ranx_tests"

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"no conformance data at {DATA}")

# measures of these fixtures that irgauge does not have (C/W/L user models, diversity,
# compatibility)
LACKING = {"BPM", "INSQ", "INST", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "Compat", "ERR_IA"}
# per source tool: family -> fixed irgauge parameters implied by the tool
TOOL_PARAMS = {"gdeval": {"nDCG": {"dcg": "exp-log2"}, "ERR": {"stop": "exp"}}}
_MEASURE = re.compile(r"^(?P<name>[\w]+)(\((?P<params>[^)]*)\))?(@(?P<cutoff>\d+))?$")


def translate(measure: str, tool: str = ""):
    """(irgauge measure string, rel_level) for an ir_measures-notation measure, or None."""
    match = _MEASURE.match(measure.replace(" ", ""))
    assert match, measure
    name = match.group("name")
    if name in LACKING:
        return None
    params = dict(p.split("=") for p in (match.group("params") or "").split(",") if p)
    rel_level = int(params.pop("rel", 1))  # ir_measures' rel = the binary threshold
    params.update(TOOL_PARAMS.get(tool, {}).get(name, {}))
    text = name + (f"({','.join(f'{k}={v}' for k, v in sorted(params.items()))})" if params else "")
    return text + (f"@{match.group('cutoff')}" if match.group("cutoff") else ""), rel_level


def tolerance(text: str) -> float:
    if text.startswith("exact(") and text.endswith("dp)"):
        return 0.5 * 10.0 ** -int(text[6:-3]) + 1e-12
    if text == "exact":  # gdeval's means: of its per-topic values, which are rounded to 5 dp
        return 0.5e-5 + 1e-12
    if text == "isclose":
        return 1e-9
    if text.endswith("dp"):
        return 0.5 * 10.0 ** -int(text[:-2]) + 1e-12
    return float(text) + 1e-12


def check(rows: pd.DataFrame, folder: Path) -> int:
    """Evaluate each (qrels, run, rel_level) group once; compare per topic and 'all' rows."""
    compared = 0
    for (qrels, run, rel_level), group in rows.groupby(["qrels", "run", "rel_level"]):
        result = evaluate(
            str(folder / qrels),
            {"run": str(folder / run)},
            sorted(set(group["irgauge"])),
            rel_level=rel_level,
        )
        per_topic = result.per_topic.set_index(["measure", "topic"])["value"]
        means = result.means.set_index("measure")["value"]
        for row in group.itertuples(index=False):
            got = means[row.irgauge] if row.query == "all" else per_topic[row.irgauge, row.query]
            assert abs(got - row.value) <= tolerance(row.tol), (row, got)
            compared += 1
    return compared


def load(path: Path, tool_column: str = "") -> pd.DataFrame:
    rows = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    rows = rows.rename(columns={"tolerance": "tol", "precision": "tol"})
    if "query" not in rows:
        rows = rows.rename(columns={"qid": "query"})
    tools = rows[tool_column] if tool_column else [""] * len(rows)
    translated = [translate(m, t) for m, t in zip(rows["measure"], tools)]
    rows["skip"] = [t is None for t in translated]
    rows["irgauge"] = [t[0] if t else None for t in translated]
    rows["rel_level"] = [t[1] if t else 0 for t in translated]
    rows["value"] = rows["value"].astype(float)
    return rows


def test_ir_measures_fixtures():
    rows = load(IR_MEASURES / "expected.tsv", "source_tool")
    skipped = set(rows.loc[rows["skip"], "measure"].str.extract(r"^(\w+)")[0])
    assert skipped == LACKING  # every lacking family is really in the file
    compared = check(rows[~rows["skip"]], IR_MEASURES)
    assert compared == 12 + 7 * 3  # gdeval nDCG/ERR rows; cwl_eval AP, P@1/5/10/20, RBP, RR x 3
    assert set(rows.loc[~rows["skip"], "irgauge"]) >= {
        "nDCG(dcg=exp-log2)@20",
        "ERR(stop=exp)@2",
        "AP",
        "RR",
        "RBP(p=0.9)",
        "P@10",
    }


def test_ranx_fixtures():
    rows = load(RANX / "expected.tsv")
    assert not rows["skip"].any()
    assert check(rows, RANX) == len(rows) == 7
