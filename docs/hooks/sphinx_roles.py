"""MkDocs hook: the docstrings write Sphinx roles (``:func:`irgauge.evaluate```); rendered
as Markdown they would show the role's name. Keep the code span, drop the role, and shorten
``~a.b.C`` to ``C`` as Sphinx does."""

import re

ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj):(<code>)(~?)([^<]*)(</code>)")


def _code(match: re.Match) -> str:
    text = match.group(3)
    if match.group(2):  # ~a.b.C: show C
        text = text.rsplit(".", 1)[-1]
    return f"{match.group(1)}{text}{match.group(4)}"


def on_page_content(html, page, config, files):
    return ROLE.sub(_code, html)
