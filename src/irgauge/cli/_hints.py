"""Hints for common slips on the command line, added to argparse's refusal of them.

- A file name given where an option takes one of its choices (``compare --table FILE.md``,
  ``eval --format out.tsv``): the option takes a format, ``-o`` names the file; the hint
  gives the command that was likely meant (``--table markdown -o FILE.md``).
- A retired old spelling (``study predictive --trials``, ``option_spellings.add_renamed``): it
  meant here what another command's option of that spelling does not, so it is refused;
  the hint names the spelling to use.
"""

from __future__ import annotations

import ast
import os
import re

_QUOTED = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""  # a value as repr() writes it
_INVALID_CHOICE = re.compile(rf"^argument (?P<option>[^:]+): invalid choice: (?P<value>{_QUOTED})")
# a file's suffix -> the choice that writes it, where the two are spelled apart
_SUFFIX_CHOICE = {".md": "markdown", ".tex": "latex", ".htm": "html", ".txt": "table"}


_UNRECOGNIZED = "unrecognized arguments: "


def hint(parser, message: str) -> str:
    """``"; hint..."`` for ``message`` (argparse's error), or ``""`` when none applies."""
    if message.startswith(_UNRECOGNIZED):
        return _retired(parser, message[len(_UNRECOGNIZED) :].split())
    return _file_for_a_choice(parser, message)


def _retired(parser, given) -> str:
    """The spelling to use for the first of ``given`` (the unrecognized arguments) that is
    a retired spelling of one of ``parser``'s options."""
    retired = {
        old: action
        for action in parser._actions
        for old in getattr(action, "retired_spellings", ())
    }
    for word in given:
        option = word.split("=", 1)[0]
        if option in retired:
            action = retired[option]
            what = re.split(r"[;(]", action.help or "")[0].strip().replace("%%", "%")
            new = "/".join(
                s for s in action.option_strings if s not in getattr(action, "old_spellings", ())
            )
            return f"; {option} is retired here: write {new} ({what})"
    return ""


def _file_for_a_choice(parser, message: str) -> str:
    """The ``-o`` command meant by a file name given as an option's choice."""
    match = _INVALID_CHOICE.match(message)
    if not match or "-o" not in parser._option_string_actions:
        return ""
    try:
        value = ast.literal_eval(match.group("value"))
    except (ValueError, SyntaxError):
        return ""
    if not _looks_like_a_file(value):
        return ""
    option = match.group("option").split("/")[-1]
    action = parser._option_string_actions.get(option)
    choices = list(getattr(action, "choices", None) or [])
    if not choices:
        return ""
    suffix = os.path.splitext(value)[1].lower()
    choice = _SUFFIX_CHOICE.get(suffix, suffix[1:])
    choice = choice if choice in choices else choices[0]
    return (
        f"; {value!r} looks like a file: {option} takes a format and -o the file "
        f"({option} {choice} -o {value})"
    )


def _looks_like_a_file(value: str) -> bool:
    """A path (a separator, or a name with a suffix) or an existing file."""
    return (
        os.sep in value
        or "/" in value
        or bool(re.search(r"\.[A-Za-z0-9]{1,5}$", value))
        or os.path.exists(value)
    )
