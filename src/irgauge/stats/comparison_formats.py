"""Render a :class:`irgauge.stats.comparison.ComparisonTable`: terminal, Markdown, LaTeX
(booktabs), HTML, CSV or JSON. Every format carries the caption that names the test, the
correction, alpha, the number of topics, the collection and the seed."""

from __future__ import annotations

import html
import json
import math
import textwrap
from typing import List

from irgauge import _checks
from irgauge.io.tables import metadata_lines
from irgauge.io.words import counted, level_percent

FORMATS = ("table", "markdown", "latex", "html", "csv", "json")
TESTS = {  # name -> how captions name it
    "t": "paired Student's t-test",
    "randomisation": "paired randomisation test",
    "bootstrap": "paired bootstrap test",
    "tukey": "randomised Tukey HSD test",
    "sign": "sign test",
}
CORRECTIONS = {
    "none": "no correction for multiple comparisons",
    "holm": "Holm's correction",
    "bh": "Benjamini-Hochberg correction",
}
INTERVALS = ("none", "ci", "se")
EFFECT_LABEL = "Cohen's d_z (paired)"

# Unicode superscripts for the terminal (q is U+107A5, MODIFIER LETTER SMALL Q)
_SUPER = dict(zip("abcdefghijklmnopqrstuvwxyz+-,", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ\U000107a5ʳˢᵗᵘᵛʷˣʸᶻ⁺⁻˒"))
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _number(value: float, digits: int) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def caption(table, bold: bool = True) -> str:
    """Plain-text caption (Unicode alpha); the formats adapt it. ``bold``: the format
    shows the best means in bold."""
    p = table.parameters

    test = TESTS[p["test"]]
    if p["test"] == "bootstrap":
        test += f" with {counted(p['bootstrap_samples'], 'sample')}"
    elif p["test"] == "randomisation":
        test += f" with {p['permutations']} random sign flips"
    elif p["test"] == "tukey":
        test += (
            f" with {counted(p['tukey_trials'], 'trial')} (it controls the family-wise "
            f"error itself)"
        )
    random = p["test"] in ("bootstrap", "randomisation", "tukey")
    where = f" of {p['collection']}" if p.get("collection") else ""
    text = (
        f"Mean scores of {counted(p['n_runs'], 'run')} over "
        f"{counted(p['n_topics'], 'topic')}{where}. "
    )
    if p["baseline"] is None:
        named = table.labels == table.runs
        text += (
            "A superscript name marks a run significantly better than the run so named"
            if named
            else "A superscript letter marks a run significantly better than "
            "the run with that letter"
        )
    else:
        text += (
            f"A superscript + (−) marks a run significantly better (worse) than the "
            f"baseline {p['baseline']}"
        )
    text += f" ({test}, {CORRECTIONS[p['correction']]}, two-sided p < α = {p['alpha']:g}"
    text += f"; seed {p['seed']})." if random else ")."
    if bold:
        text += " The best mean of each measure is in bold."
    if p["interval"] == "ci":
        text += f" ± gives the {level_percent(p['level'])} confidence interval (Student's t)."
    elif p["interval"] == "se":
        text += " ± gives the standard error of the mean."
    if table.effect is not None:
        text += f" d_z: {EFFECT_LABEL} against {p['effect_reference']}."
    return text


def render(table, format: str = "table", digits: int = 3, ansi: bool = False) -> str:
    """``table`` as ``format``; ``ansi`` sets the best values in bold on a terminal."""
    _checks.choice(format, "format", FORMATS)
    if format == "csv":
        return metadata_lines(_metadata(table)) + table.to_frame().to_csv(index=False)
    if format == "json":
        records = json.loads(table.to_frame().to_json(orient="records", double_precision=15))
        return (
            json.dumps({"metadata": _metadata(table), "results": records}, indent=2, default=str)
            + "\n"
        )
    if format == "table":
        return _terminal(table, digits, ansi)
    return {"markdown": _markdown, "latex": _latex, "html": _html}[format](table, digits)


def _metadata(table) -> dict:
    return {
        "method": "comparison table",
        **table.parameters,
        "runs": list(table.runs),
        "labels": list(table.labels),
        "measures": list(table.measures),
        "caption": caption(table),
    }


def _columns(table) -> List[str]:
    cols = ["", "run"]
    for measure in table.measures:
        cols.append(measure)
        if table.effect is not None:
            cols.append(f"{measure} d_z")
    return cols


def _cells(table, digits: int, bold, sup, pm: str = " ± ", dash: str = "–") -> List[List[str]]:
    """Rows of cells; ``bold(text)`` and ``sup(marks)`` wrap as the format wants."""
    rows = []
    best = table.best
    for r in range(len(table.runs)):
        run = table.runs[r]
        if run == table.parameters.get("baseline"):
            run += " (baseline)"
        row = [table.labels[r] if table.labels[r] != table.runs[r] else "", run]
        for m in range(len(table.measures)):
            mean = _number(table.means[r, m], digits)
            if best[r, m]:
                mean = bold(mean)
            if not math.isnan(table.low[r, m]):
                half = (table.high[r, m] - table.low[r, m]) / 2
                mean += f"{pm}{_number(half, digits)}"
            marks = table.mark_text(r, m)
            row.append(mean + (sup(marks) if marks else ""))
            if table.effect is not None:
                value = table.effect[r, m]
                row.append(dash if math.isnan(value) else f"{value:.2f}")
        rows.append(row)
    return rows


def _terminal(table, digits: int, ansi: bool = False) -> str:
    on, off = ("\x1b[1m", "\x1b[0m") if ansi else ("", "")
    rows = _cells(
        table,
        digits,
        bold=lambda s: f"{on}{s}{off}",
        sup=lambda s: "".join(_SUPER.get(c, c) for c in s),
    )
    header = _columns(table)
    hidden = len(on) + len(off)  # escape codes take no room on screen

    def width(cell):
        return len(cell) - (hidden if on and on in cell else 0)

    widths = [max(width(c) for c in col) for col in zip(header, *rows)]
    lines = [
        "  ".join(c + " " * (w - width(c)) for c, w in zip(row, widths)).rstrip()
        for row in [header, ["-" * w for w in widths]] + rows
    ]
    return "\n".join(lines) + "\n\n" + textwrap.fill(caption(table, ansi), 88) + "\n"


def _markdown(table, digits: int) -> str:
    header = _columns(table)
    rows = _cells(table, digits, bold=lambda s: f"**{s}**", sup=lambda s: f"<sup>{s}</sup>")

    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    align = ["---", "---"] + ["--:"] * (len(header) - 2)
    out = [line(header), "|" + "|".join(align) + "|"] + [line(r) for r in rows]
    return "\n".join(out) + "\n\nTable: " + caption(table) + "\n"


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters (and write α, ±, −, d_z in math mode)."""
    out = "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))
    for plain, tex in (("α", r"$\alpha$"), ("±", r"$\pm$"), ("−", "$-$"), (r"d\_z", "$d_z$")):
        out = out.replace(plain, tex)
    return out


def _latex(table, digits: int) -> str:
    header = [latex_escape(c) for c in _columns(table)]
    rows = _cells(
        table,
        digits,
        bold=lambda s: f"\\textbf{{{s}}}",
        sup=lambda s: "\\textsuperscript{%s}" % ("$-$" if s == "-" else latex_escape(s)),
        pm=r" $\pm$ ",
        dash="--",
    )
    escaped = []
    for row in rows:  # names need escaping; the numbers and marks are already LaTeX
        escaped.append([latex_escape(row[0]), latex_escape(row[1])] + row[2:])
    spec = "ll" + "r" * (len(header) - 2)
    body = [
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{" + latex_escape(caption(table)) + "}",
        r"\label{tab:comparison}",
        r"\begin{tabular}{" + spec + "}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
    ]
    body += [" & ".join(row) + r" \\" for row in escaped]
    body += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "% requires \\usepackage{booktabs}\n" + "\n".join(body) + "\n"


def _html(table, digits: int) -> str:
    esc = html.escape
    header = "".join(f"<th>{esc(c)}</th>" for c in _columns(table))
    rows = _cells(
        table, digits, bold=lambda s: f"<strong>{s}</strong>", sup=lambda s: f"<sup>{esc(s)}</sup>"
    )
    body = []
    for row in rows:
        cells = [f"<td>{esc(row[0])}</td>", f"<td>{esc(row[1])}</td>"]
        cells += [f"<td>{c}</td>" for c in row[2:]]  # built from numbers and escaped marks
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<table class="data comparison"><caption>{esc(caption(table))}</caption>'
        f"<thead><tr>{header}</tr></thead><tbody>{''.join(body)}</tbody></table>\n"
    )
