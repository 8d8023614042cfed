"""The report's sections of meta-evaluation outputs given as inputs: irgauge agree, topics
and repro, each with its tables and the figures drawn from its data beside the report
(or those of a ``--figures DIR`` folder given)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

from irgauge.io.words import counted, level_percent
from irgauge.report.inputs import TOPICSET_COLUMNS, ReportInput
from irgauge.report.page_blocks import ReportPaths, conventions_html, esc, figure_html, frame_html


FIGURE_CAPTIONS = {
    "agree_confusion": "Confusion matrix of the two qrels' relevance levels (pairs both judge)",
    "agree_means": "Each system's mean score under qrels A (x) and B (y); dashed: identity",
    "agree_topic_kappa": "Per-topic Cohen's kappa (binary relevance)",
    "repro_ktu": "Kendall's tau union of the original and repeated top-k lists against the "
    "cutoff k (band: bootstrap interval over topics)",
    "repro_rbo": "Rank-biased overlap (extrapolated) against the cutoff k (band: bootstrap "
    "interval over topics)",
    "repro_rmse": "RMSE of the per-topic scores of the runs cut at k (band: bootstrap "
    "interval over topics)",
    "topic_set_size": "Topics needed n against the minimum detectable difference D "
    "(Sakai 2016, topic set size design)",
}


# metadata that the sections show elsewhere or that is too long for the conventions table
_LONG_KEYS = ("systems", "topics", "method")


def figures_html(pngs: Sequence[Path], paths: ReportPaths) -> str:
    """Each PNG embedded, with links to its PDF and SVG siblings."""
    parts = []
    for png in pngs:
        stem = png.stem
        caption = next(
            (c for k, c in FIGURE_CAPTIONS.items() if stem == k or stem.startswith(k + "_")),
            stem.replace("_", " "),
        )
        if stem.startswith("agree_") and stem not in FIGURE_CAPTIONS:
            caption += " (" + stem.split("_", 2)[-1].replace("_", " ") + ")"
        downloads = [
            (ext, png.with_suffix(f".{ext}"))
            for ext in ("pdf", "svg", "png")
            if png.with_suffix(f".{ext}").exists()
        ]
        parts.append(figure_html(png, caption, downloads, paths))
    return "<div>" + "".join(parts) + "</div>" if parts else ""


def figure_folder(folder: Path, paths: ReportPaths) -> Optional[str]:
    """The figures a ``--figures DIR`` of irgauge agree or topics wrote (None: none)."""
    pngs = sorted(folder.glob("agree_*.png")) + sorted(folder.glob("topic_set_size*.png"))
    if not pngs:
        return None
    return figures_html(pngs, paths)


def _interval(value: float, low: float, high: float, digits: int = 3) -> str:
    if value is None or not math.isfinite(float(value)):
        return "–"
    if all(
        x is not None and math.isfinite(x) and float(x).is_integer() for x in (value, low, high)
    ):
        digits = 0  # counts (pairs, significance calls, rank changes)
    text = f"{float(value):.{digits}f}"
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return text
    return f"{text} [{float(low):.{digits}f}, {float(high):.{digits}f}]"


def _agreement_tables(item: ReportInput) -> List[str]:
    """The label statistics and, per pair of qrels, the system statistics by measure; every
    value with its bootstrap interval."""
    frame = item.frame.copy()
    for column in ("value", "low", "high"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    frame["measure"] = frame["measure"].astype(str)
    level = item.metadata.get("confidence", 0.95)
    cells = [_interval(v, lo, hi) for v, lo, hi in zip(frame["value"], frame["low"], frame["high"])]
    frame = frame.assign(**{"value [interval]": cells})
    what = f"value [{level_percent(float(level))} percentile bootstrap interval over topics]"
    parts = []
    labels = frame[frame["measure"] == "-"]
    if len(labels):
        table = labels[["a", "b", "statistic", "value [interval]"]]
        parts.append(
            '<div class="block"><h3>Label agreement</h3>'
            + frame_html(table, people=False)
            + f'<p class="muted">{esc(what)}; a = b = all: over every qrels.</p></div>'
        )
    systems = frame[frame["measure"] != "-"]
    for (a, b), part in systems.groupby(["a", "b"], sort=False):
        wide = part.pivot(index="statistic", columns="measure", values="value [interval]")
        statistics = list(dict.fromkeys(part["statistic"]))
        measures = list(dict.fromkeys(part["measure"]))
        wide = wide.loc[statistics, measures].rename_axis(index=None, columns=None)
        parts.append(
            f'<div class="block"><h3>System agreement: {esc(a)} vs {esc(b)}</h3>'
            + frame_html(wide.rename_axis("statistic").reset_index(), people=False)
            + f'<p class="muted">{esc(what)}; one column per measure.</p></div>'
        )
    return parts


def _agreement_details(details: Dict[str, Any]) -> List[str]:
    """Per-system means and ranks, and the significance calls counted, from the JSON."""
    parts = []
    systems = details.get("systems")
    if systems is not None and len(systems):
        parts.append(
            '<div class="block"><h3>Systems under each qrels</h3>'
            + frame_html(systems, people=True)
            + "</div>"
        )
    calls = details.get("significance")
    if calls is not None and len(calls):
        counted = (
            calls.groupby(["a", "b", "measure", "call"], sort=False)
            .size()
            .unstack("call", fill_value=0)
            .reset_index()
        )
        counted.columns.name = None
        parts.append(
            '<div class="block"><h3>Significance calls (run pairs)</h3>'
            + frame_html(counted, people=False)
            + "</div>"
        )
    return parts


def _agreement_figures(item: ReportInput, paths: ReportPaths, folder: Path) -> str:
    """The figures of :mod:`irgauge.report.agreement_figures`, drawn from the JSON details
    into ``folder``; without the details (a TSV) a note says where they come from."""
    details = item.details
    if not {"confusion", "topic_kappa"} <= set(details) or not len(details["confusion"]):
        return (
            '<p class="muted">No figures: they are drawn from the per-pair details (confusion '
            "matrices, per-topic kappa, per-system means) that only the JSON output holds; give "
            "the output of <code>irgauge agree --format json</code>, or the folder of "
            "<code>irgauge agree --figures DIR</code>.</p>"
        )
    # matplotlib on first use: a report without agreement figures never loads it
    from irgauge.meta.result import MetaResult
    from irgauge.report.agreement_figures import agreement_figures
    from irgauge.report.style import describe

    meta = item.metadata
    qrels = meta.get("qrels")
    names = " vs ".join(qrels) if isinstance(qrels, dict) else None
    title = describe(names, seed=meta.get("seed"), B=meta.get("bootstrap_samples"))
    result = MetaResult("agreement", item.frame, meta, [], [], details)
    folder.mkdir(parents=True, exist_ok=True)
    written = agreement_figures(result, folder, title=title or None)
    return figures_html([Path(p) for p in written if str(p).endswith(".png")], paths)


def agreement_section(item: ReportInput, paths: ReportPaths, folder: Path) -> str:
    meta = item.metadata
    parts = [
        f'<p class="muted">{counted(esc(meta.get("n_topics", "?")), "topic")}, '
        f"{counted(esc(meta.get('n_systems', 0)), 'system')}; bootstrap B = "
        f"{esc(meta.get('bootstrap_samples', '?'))}, seed {esc(meta.get('seed'))}</p>"
    ]
    parts += _agreement_tables(item)
    parts += _agreement_details(item.details)
    parts.append(_agreement_figures(item, paths, folder))
    keep = {k: v for k, v in meta.items() if k not in _LONG_KEYS}
    parts.append(conventions_html(keep, paths))
    return "\n".join(parts)


def _topicset_value(statistic: str, value: Any) -> str:
    number = float(value)
    if not math.isfinite(number):
        return "–"
    return f"{int(round(number))}" if statistic == "n_topics" else f"{number:.4g}"


def _topicset_figure(item: ReportInput, paths: ReportPaths, folder: Path) -> str:
    """The n-against-D figure (:mod:`irgauge.report.topicset_figures`) from the table's
    variances, drawn into ``folder``."""
    frame, meta = item.frame, item.metadata
    rows = frame[frame["statistic"].astype(str) == "variance"]
    variances = {str(m): float(v) for m, v in zip(rows["measure"], rows["value"])}
    variances = {m: v for m, v in variances.items() if math.isfinite(v) and v > 0}
    n_topics = meta.get("n_topics")
    if not variances or not isinstance(n_topics, int) or n_topics < 2:
        return (
            '<p class="muted">No figure: it needs each measure\'s variance and the number of '
            "topics (n_topics in the metadata).</p>"
        )
    # matplotlib and scipy on first use
    from irgauge.report.style import describe
    from irgauge.report.topicset_figures import topic_set_curves

    min_diff = meta.get("min_diff")
    min_diff = float(min_diff) if isinstance(min_diff, (int, float)) else None
    folder.mkdir(parents=True, exist_ok=True)
    title = describe(item.path.name, D=min_diff)
    written = topic_set_curves(variances, n_topics, folder, min_diff=min_diff, title=title)
    return figures_html([Path(p) for p in written if str(p).endswith(".png")], paths)


def topicset_section(item: ReportInput, paths: ReportPaths, folder: Path) -> str:
    frame = item.frame[list(TOPICSET_COLUMNS)].copy()
    frame["value"] = [
        _topicset_value(str(s), v) for s, v in zip(frame["statistic"], frame["value"])
    ]
    meta = item.metadata
    settings = ", ".join(
        f"{k} = {meta[k]}"
        for k in ("min_diff", "alpha", "beta", "anova_systems", "ci_width")
        if meta.get(k) is not None
    )
    parts = [
        f'<p class="muted">{counted(esc(meta.get("n_topics", "?")), "topic")}, '
        f"{counted(esc(meta.get('n_systems', '?')), 'system')}; {esc(settings)}</p>",
        '<div class="block"><h3>Topics needed and what this collection gives</h3>'
        + frame_html(frame, people=False)
        + '<p class="muted">design all: the residual variance V_E; ttest, anova: the topics '
        "n needed to detect min_diff with power 1 - beta, and the smallest difference this "
        "collection's topics detect; ci: the topics for an interval at most ci_width wide, "
        "and the width this collection gives.</p></div>",
        _topicset_figure(item, paths, folder),
    ]
    keep = {k: v for k, v in meta.items() if k not in _LONG_KEYS}
    parts.append(conventions_html(keep, paths))
    return "\n".join(parts)


def repro_section(item: ReportInput, paths: ReportPaths, folder: Path) -> str:
    """An ``irgauge repro`` output: its sentences, the table with each value's interval and
    the KTU, RBO and RMSE curves drawn from the table (:mod:`irgauge.report.repro_figures`)."""
    frame, meta = item.frame, item.metadata
    keys = [c for c in ("repeated", "run", "measure", "statistic", "cutoff") if c in frame]
    # as objects: a float column (cutoff read back from TSV, NaN where none) takes no
    # text fill value; a whole cutoff is shown as the whole number it was given as
    shown = frame[keys].astype(object).fillna("")
    if "cutoff" in shown:
        shown["cutoff"] = [
            int(c) if isinstance(c, float) and c.is_integer() else c for c in shown["cutoff"]
        ]
    shown["value [interval]"] = [
        _interval(float(v), float(lo), float(hi), 4)
        for v, lo, hi in zip(frame["value"], frame["low"], frame["high"])
    ]
    conclusions = meta.get("conclusions") or []
    parts = [
        f'<p class="muted">{esc(meta.get("kind", "reproduction"))}; seed '
        f"{esc(meta.get('seed'))}, B = {esc(meta.get('bootstrap_samples'))}, confidence "
        f"{esc(meta.get('confidence'))}"
        + (f", RBO p = {esc(meta['rbo_p'])}" if "rbo_p" in meta else "")
        + "</p>",
        "<ul>" + "".join(f"<li>{esc(c)}</li>" for c in conclusions) + "</ul>"
        if conclusions
        else "",
        '<div class="block">' + frame_html(shown, people=False) + "</div>",
    ]
    # matplotlib on first use: a report without a reproducibility study never loads it
    from irgauge.report.repro_figures import repro_figures
    from irgauge.report.style import describe

    written = repro_figures(frame, folder, describe(item.path.name, seed=meta.get("seed")))
    parts.append(figures_html([Path(p) for p in written if str(p).endswith(".png")], paths))
    keep = {k: v for k, v in meta.items() if k not in _LONG_KEYS + ("conclusions",)}
    parts.append(conventions_html(keep, paths))
    return "\n".join(parts)
