"""How an option is declared beyond argparse's own fields: the words of its help that its
command states its own way (a default, a detail), and its old spellings, still accepted and
said to be deprecated (one option has one spelling in every command:
tests/test_option_spellings.py)."""

from __future__ import annotations

from typing import Any, List, Sequence

# The attribute of an action holding the words of its help that its command states its own
# way ({name: words}); tests/test_option_declarations.py compares the help of one concept
# across commands with these words taken out, so that the rest is the same in every command.
STATED = "stated"


def stated(action: Any, **parts: str) -> Any:
    """Record ``parts`` (words of ``action``'s help, by name) as what its command states its
    own way: a default, a detail of the command. Where ``default`` is among them, the
    option's default may differ from command to command, as the help says."""
    setattr(action, STATED, {**getattr(action, STATED, {}), **parts})
    return action


def add_renamed(
    parser: Any,
    flags: Sequence[str],
    old: Sequence[str],
    retired: Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """``add_argument(*flags, ...)`` for an option once spelled ``old`` (a tuple): the old
    spellings are still accepted, said to be deprecated in the help, and a note names the
    spelling to use when one is given. One option has one spelling in every command
    (tests/test_option_spellings.py); an old one is kept only so that scripts still run.

    ``retired``: old spellings no longer accepted, because another command gives them
    another meaning (``study predictive --trials`` meant halvings, where the other studies'
    ``--trials`` counts topic-subset draws): a script that still gives one is refused, with
    a hint naming the spelling to use (``cli._hints``), rather than read in one meaning
    here and another there."""
    dest = kwargs.pop("dest", flags[-1].lstrip("-").replace("-", "_"))
    help = kwargs.pop("help", "")
    suffix = ""
    if old:  # an option without old spellings says nothing of them
        word = "spelling" if len(old) == 1 else "spellings"
        suffix = f" ({', '.join(old)}: the old {word}, deprecated)"
    action = parser.add_argument(*flags, *old, dest=dest, help=help + suffix, **kwargs)
    if suffix:  # one command's own old spelling, not another meaning of the option
        stated(action, old=suffix)
    action.old_spellings = tuple(old)
    action.retired_spellings = tuple(retired)
    return action


def spelling(action: Any) -> str:
    """The long spelling of ``action``'s option that is not an old one."""
    old = getattr(action, "old_spellings", ())
    spellings: List[str] = [s for s in action.option_strings if s not in old]
    return spellings[-1]


def old_spelling_note(action: Any, option: str) -> None:
    """Tell the user that ``option``, an old spelling of ``action``, is deprecated."""
    import sys

    if option in getattr(action, "old_spellings", ()):
        new = "/".join(s for s in action.option_strings if s not in action.old_spellings)
        print(
            f"irgauge: note: {option} is the old spelling of {new}, deprecated; "
            f"write {spelling(action)}",
            file=sys.stderr,
        )
