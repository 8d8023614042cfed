"""trec_eval 10.0's measure words: ``-m`` names, ``name.params`` and the sets
(``official``, ``all_trec``, ``set``), expanded into the lines trec_eval prints.

Each trec_eval measure (``MEASURES``, in trec_eval's order, which is its order of output)
has a kind that says how its parameters are read and its lines named, as trec_eval's
``meas_init.c`` does:

- ``cut_long``: cutoffs read with ``atol``, sorted as trec_eval's comparison sorts them
  (a difference cut to an int), the first > 0, no two neighbours equal (``P.5,10``
  prints ``P_5``, ``P_10``);
- ``cut_double``: cutoffs read with ``atof``, sorted, no duplicates, printed ``%3.2f``
  (``iprec_at_recall_0.10``);
- ``p_double``: one value, its parameters a list of numbers, named by the parameter text
  as given (``utility_2,-1,0,0``);
- ``p_pair``: one value, its parameters ``name=number`` pairs, named likewise
  (``ndcg_1=3,2=9``);
- ``single`` and ``count``: one value without parameters (a count prints as an integer);
  ``summary``: printed for ``all`` only (``gm_map``, ``gm_bpref``);
- ``runid``, ``num_q`` and ``relstring``: printed, not measured.

``select`` reads several ``-m`` words as trec_eval does (a measure is marked once, in
trec_eval's order, and takes the parameters of the first ``name.params`` given for it);
``expand`` reads one word for ``irgauge eval`` (its measures in trec_eval's order, with
trec_eval's printed names). The ``*_avgjg`` measures take trec_eval's multi-judge qrels
(``-R qrels_jg``), every other measure its ordinary qrels. Measures that need preference
judgments (``prefs_*``) are named with the reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from irgauge._checks import MAX_COUNT
from irgauge.collection.trec_gains import glibc_msort, pairs_text
from irgauge.errors import MeasureError
from irgauge.measures.base import MAX_CUTOFF
from irgauge.measures.c_numbers import LONG_MAX, atof, atol, c_fixed

LONG_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TENTHS = tuple(i / 10 for i in range(11))  # 0.0, 0.1, ..., 1.0

# trec_eval's measures in its order (measures.c: te_trec_measures): name -> (kind, defaults)
MEASURES: Dict[str, Tuple[str, tuple]] = {
    "runid": ("runid", ()),
    "num_q": ("num_q", ()),
    "num_ret": ("count", ()),
    "num_rel": ("count", ()),
    "num_rel_ret": ("count", ()),
    "map": ("single", ()),
    "gm_map": ("summary", ()),
    "Rprec": ("single", ()),
    "bpref": ("single", ()),
    "recip_rank": ("single", ()),
    "iprec_at_recall": ("cut_double", TENTHS),
    "P": ("cut_long", LONG_CUTS),
    "relstring": ("relstring", (10.0,)),
    "recall": ("cut_long", LONG_CUTS),
    "infAP": ("single", ()),
    "gm_bpref": ("summary", ()),
    "Rprec_mult": ("cut_double", tuple(i / 10 for i in range(2, 21, 2))),
    "utility": ("p_double", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": ("p_double", TENTHS),
    "binG": ("single", ()),
    "G": ("p_pair", ()),
    "dcg": ("p_pair", ()),
    "ideal_dcg": ("p_pair", ()),
    "ndcg": ("p_pair", ()),
    "ndcg_rel": ("p_pair", ()),
    "Rndcg": ("p_pair", ()),
    "ndcg_cut": ("cut_long", LONG_CUTS),
    "map_cut": ("cut_long", LONG_CUTS),
    "relative_P": ("cut_long", LONG_CUTS),
    "success": ("cut_long", (1, 5, 10)),
    "set_P": ("single", ()),
    "set_relative_P": ("single", ()),
    "set_recall": ("single", ()),
    "set_map": ("single", ()),
    "set_F": ("p_double", (1.0,)),
    "num_nonrel_judged_ret": ("count", ()),
    "prefs_num_prefs_poss": ("count", ()),
    "prefs_num_prefs_ful": ("count", ()),
    "prefs_num_prefs_ful_ret": ("count", ()),
    "prefs_simp": ("single", ()),
    "prefs_pair": ("single", ()),
    "prefs_avgjg": ("single", ()),
    "prefs_avgjg_Rnonrel": ("single", ()),
    "prefs_simp_ret": ("single", ()),
    "prefs_pair_ret": ("single", ()),
    "prefs_avgjg_ret": ("single", ()),
    "prefs_avgjg_Rnonrel_ret": ("single", ()),
    "prefs_simp_imp": ("single", ()),
    "prefs_pair_imp": ("single", ()),
    "prefs_avgjg_imp": ("single", ()),
    "map_avgjg": ("single", ()),
    "P_avgjg": ("cut_long", LONG_CUTS),
    "Rprec_mult_avgjg": ("cut_double", tuple(i / 10 for i in range(2, 21, 2))),
    "yaap": ("single", ()),
    "rbp": ("p_pair", ()),
    "rbp_resid": ("p_pair", ()),
    "unj": ("cut_long", (5, 10, 20)),
}

_PREFS = (
    "prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret prefs_simp prefs_pair "
    "prefs_avgjg prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret prefs_avgjg_ret "
    "prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp prefs_avgjg_imp"
).split()
# trec_eval's nicknames (measures.c: te_trec_measure_nicknames)
SETS: Dict[str, Tuple[str, ...]] = {
    "official": tuple(
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
        "iprec_at_recall P".split()
    ),
    "set": tuple(
        "runid num_q num_ret num_rel num_rel_ret utility set_P set_recall set_relative_P "
        "set_map set_F".split()
    ),
    "all_trec": tuple(
        "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
        "iprec_at_recall P relstring recall unj rbp rbp_resid infAP gm_bpref utility 11pt_avg "
        "ndcg relative_P Rprec_mult success map_cut ndcg_cut ndcg_rel Rndcg binG G set_P "
        "set_recall set_relative_P set_map set_F num_nonrel_judged_ret".split()
    ),
    "all_prefs": ("runid", "num_q", *_PREFS),
    "prefs": ("runid", "num_q", *_PREFS[:8]),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}

# measures irgauge does not compute: name -> (trec_eval's own failure on ordinary qrels,
# or None where trec_eval computes it; the reason)
_NO_PREFS = "needs preference judgments (trec_eval -R prefs or -R qrels_prefs)"
_NO_JG = "needs multi-judge qrels (trec_eval -R qrels_jg)"
NOT_COMPUTED: Dict[str, Tuple[Optional[str], str]] = {
    **{
        name: (
            "trec_eval.form_prefs_info: prefs_info format not (prefs or qrels_prefs) "
            "or results format not trec_results",
            _NO_PREFS,
        )
        for name in _PREFS
    },
}

# trec_eval's measures over judgment groups (-R qrels_jg): each is the measure named here,
# computed under each group's judgments of a topic and averaged over those groups
JUDGMENT_GROUP_MEASURES = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
# what trec_eval prints when a measure meets qrels of the other format (form_res_rels.c,
# form_res_rels_jg.c), then "Can't calculate measure"
_WRONG_FORMAT = {
    "qrels": "trec_eval: rel_info format not qrels_jg or results format not trec_results",
    "qrels_jg": "trec_eval.form_res_qrels: rel_info format not qrels or results format "
    "not trec_results",
}
REL_FORMATS = tuple(_WRONG_FORMAT)

# the irgauge measure computing each trec_eval measure with its default parameters
_PLAIN: Dict[str, str] = {
    name: name
    for name in (
        "num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank infAP gm_bpref utility "
        "11pt_avg binG G ndcg ndcg_rel Rndcg set_P set_relative_P set_recall set_map set_F "
        "num_nonrel_judged_ret rbp rbp_resid yaap"
    ).split()
}
# trec_eval's dcg and ideal_dcg are its ndcg's numerator and denominator (m_ndcg.c)
_PLAIN.update(dcg="DCG", ideal_dcg="IDCG")
# trec_eval's Rndcg divides 0 by 0 where the relevant documents all have gain 0
_PLAIN.update(Rndcg="Rndcg(no_gain=nan)")
_WITH_GAINS = {
    "G": "G(trec_gains={})",
    "ndcg": "nDCG(trec_gains={})",
    "dcg": "DCG(trec_gains={})",
    "ideal_dcg": "IDCG(trec_gains={})",
    "ndcg_rel": "ndcg_rel(trec_gains={})",
    "Rndcg": "Rndcg(no_gain=nan,trec_gains={})",
}
_RBP = {
    "rbp": "RBP(p={p},graded=true,norm=trec_eval)",
    "rbp_resid": "RBP_resid(p={p},form=trec_eval)",
}
# irgauge's own meaning of these bare names differs (P = set precision, recall = set
# recall, ...): the command line reads them as trec_eval's families (``cli_word``)
SHARED_FAMILY_NAMES = ("P", "recall", "relative_P", "success", "unj")
# bare names that mean several values in trec_eval and nothing else in irgauge
MULTI_VALUED = ("iprec_at_recall", "Rprec_mult", "ndcg_cut", "map_cut")

_VALID_INT = re.compile(r"[-+]?[0-9]+\Z")  # gain_init.c's valid_int: the whole name


class TrecEvalError(MeasureError):
    """A measure word or an input trec_eval refuses (or irgauge cannot compute), with the
    exit status trec_eval gives for it and what trec_eval prints before stopping.

    ``stderr``: the lines the drop-in prints on standard error, trec_eval's own (often
    two: the fault, then the measure it stops at) and irgauge's note; the message
    (``str``) is those lines on one line, for every other command's one-line error."""

    def __init__(self, message: str, status: int = 1, output: str = ""):
        self.status = status
        self.output = output  # what trec_eval prints on stdout before it stops
        self.stderr = message
        # every command's error line starts "irgauge: error: " already
        parts = (
            part[len("irgauge: ") :] if part.startswith("irgauge: ") else part
            for part in message.split("\n")
        )
        super().__init__("; ".join(parts))


@dataclass(frozen=True)
class TrecLine:
    """One line per topic (and for ``all``) of trec_eval's output.

    ``kind``: count (an integer), value (``%6.4f``), summary (``all`` only), runid,
    num_q, relstring (per topic only). ``spec``: the irgauge measure string computing it
    (None for runid, num_q and relstring); ``width``: relstring's number of documents;
    ``groups``: the value is ``spec``'s averaged over a topic's judgment groups;
    ``per``: the value is the count behind ``spec`` (a measure at cutoff MAX_CUTOFF, its
    count over MAX_CUTOFF) divided by ``per`` as C divides (any long, 0 and below too): a
    cutoff past MAX_CUTOFF (``P_10000000000``: no ranking reaches MAX_CUTOFF, so the count
    is the whole ranking's) or one trec_eval never reaches; ``per_at_most_R``: divided by
    min(``per``, R) instead, 0 where R is 0 (m_rel_P.c); ``reached``: False where
    trec_eval's loop over the ranking never reaches the cutoff, as one before it in its
    order is not below it (``_long_cuts``), so the line takes the whole ranking's value;
    ``constant``: a value that trec_eval gives every topic whatever the run
    (``Rprec_mult_0.00``: the precision at a cutoff of 0 documents is never taken, and
    stays 0), with no ``spec``."""

    label: str
    kind: str
    spec: Optional[str] = None
    width: int = 0
    groups: bool = False  # averaged over judgment groups (``*_avgjg``)
    per: Optional[int] = None
    per_at_most_R: bool = False
    reached: bool = True
    constant: Optional[float] = None


def _number(x: float) -> str:
    """A number as a measure parameter: without an exponent where 17 decimals keep its
    value, else with one (1e-300 is not 0); a NaN with its sign, which C's arithmetic
    keeps and printf prints (-nan)."""
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    text = repr(float(x))
    if "e" not in text:
        return text
    fixed = f"{x:.17f}".rstrip("0").rstrip(".")
    return fixed if float(fixed) == x else text


def is_word(token: str) -> bool:
    """Whether a measure token is a trec_eval word that ``expand`` reads: ``name.params``
    of a trec_eval measure, a set name, or a bare name of several values."""
    name, dot, _ = token.partition(".")
    if dot:
        return name in MEASURES or name in SETS
    return token in SETS or token in MULTI_VALUED


def select(words: Sequence[str]) -> List[Tuple[str, Optional[str]]]:
    """The measures several ``-m`` words mark, in trec_eval's order, each with the
    parameter text of the first ``name.params`` given for it (None: its defaults)."""
    marked: Set[str] = set()
    given: Dict[str, Optional[str]] = {}
    for word in words:
        name, dot, params = word.partition(".")
        if dot and not params:
            raise TrecEvalError(
                f"trec_eval: improper measure in parameter '{name}'\n"
                f"trec_eval: illegal measure '{name}'"
            )
        if dot:
            given.setdefault(name, params)
        if name in SETS:
            marked.update(SETS[name])
        elif name in MEASURES:
            marked.add(name)
        else:
            raise TrecEvalError(f"trec_eval: illegal measure '{name}'")
    chosen = [(name, given.get(name)) for name in MEASURES if name in marked]
    _refuse_shared_gains(chosen)
    return chosen


# m_ndcg.c's three measures share one parameter list
SHARED_GAINS = ("ndcg", "dcg", "ideal_dcg")


def _refuse_shared_gains(chosen: List[Tuple[str, Optional[str]]]) -> None:
    """trec_eval 10.0 gives ndcg, dcg and ideal_dcg one parameter list (m_ndcg.c), which it
    frees once per measure: two of them with gains given to either crash it (abort or
    segmentation fault), so there is no output to reproduce."""
    sharing = [(name, params) for name, params in chosen if name in SHARED_GAINS]
    if len(sharing) > 1 and any(params is not None for _, params in sharing):
        names = " and ".join(name for name, _ in sharing)
        raise TrecEvalError(
            f"irgauge: {names} with gains given: trec_eval 10.0 shares one gain list among "
            "ndcg, dcg and ideal_dcg and crashes when two of them are asked for and one "
            "has gains; ask for them in separate runs",
            2,
        )


def lines(
    name: str,
    params: Optional[str],
    num_docs: int = 0,
    rel_format: str = "qrels",
    parse: Optional[Callable[[str], Any]] = None,
    max_relevant: int = MAX_COUNT,
) -> List[TrecLine]:
    """The lines trec_eval prints for one measure with its parameter text (None for its
    defaults); ``num_docs`` is trec_eval's -N (utility's collection size),
    ``rel_format`` trec_eval's -R: ``qrels_jg`` takes the ``*_avgjg`` measures only,
    ``qrels`` all others; ``max_relevant`` the most relevant documents of a topic, if
    known (else any number up to MAX_COUNT): a recall level or multiple of R whose
    product with it is past a C long is refused, as C's conversion is undefined there.

    Parameters are read as trec_eval reads them (C's atol and atof). Given ``parse``
    (irgauge's ``parse_measure``, passed in since the parser imports this module), a
    value trec_eval takes that lies outside what irgauge's measure computes is refused in
    one line naming the word, here, before anything is read."""
    found = _lines(name, params, num_docs, max_relevant, rel_format)
    if parse is None:
        return found
    for line in found:
        if line.spec is None:
            continue
        try:
            parse(line.spec)
        except MeasureError as err:
            # the error names irgauge's measure string: name trec_eval's word instead
            reason = str(err)
            if reason.startswith(line.spec + ": "):
                reason = reason[len(line.spec) + 2 :]
            word = name if params is None else f"{name}.{params}"
            raise TrecEvalError(
                f"irgauge: {word}: trec_eval 10.0 takes this, irgauge does not compute it "
                f"({reason})",
                2,
            ) from None
    return found


def _lines(name, params, num_docs, max_relevant, rel_format) -> List[TrecLine]:
    kind = MEASURES[name][0]
    base = JUDGMENT_GROUP_MEASURES.get(name)
    if kind not in ("runid", "num_q") and (base is not None) != (rel_format == "qrels_jg"):
        reason = _NO_JG if base is not None else "needs single-judge qrels (trec_eval -R qrels)"
        raise TrecEvalError(
            f"{_WRONG_FORMAT[rel_format]}\ntrec_eval: Can't calculate measure '{name}'\n"
            f"irgauge: trec_eval's {name} {reason}",
            4,
        )
    if base is not None:
        found = _lines(base, params, num_docs, max_relevant, "qrels")
        return [replace(line, label=name + line.label[len(base) :], groups=True) for line in found]
    if name in NOT_COMPUTED:
        failure, reason = NOT_COMPUTED[name]
        text = f"{failure}\ntrec_eval: Can't calculate measure '{name}'" if failure else ""
        raise TrecEvalError(
            (text + "\n" if text else "") + f"irgauge: trec_eval's {name} {reason}",
            4 if failure else 2,
        )
    kind, defaults = MEASURES[name]
    if kind in ("runid", "num_q"):
        return [TrecLine(name, kind)]
    if kind in ("count", "single", "summary"):
        return [TrecLine(name, "value" if kind == "single" else kind, _PLAIN[name])]
    if kind == "cut_long":
        return [_long_cut_line(name, k, reached) for k, reached in _long_cuts(name, params)]
    if kind == "cut_double":
        cuts = _double_cuts(params, defaults)
        return [_double_cut_line(name, params, x, max_relevant) for x in cuts]
    label = name if params is None else f"{name}_{params}"
    if kind == "relstring":
        width = atof(params.split(",")[0]) if params is not None else 10.0
        _refuse_undefined_long(f"{name}.{params}", width, "(its length)")
        return [TrecLine(label, "relstring", None, max(int(width), 0))]
    if kind == "p_double":
        return [TrecLine(label, "value", _p_double(name, params, num_docs, max_relevant))]
    return [TrecLine(label, "value", _p_pair(name, params))]


# trec_eval's cutoff measures whose value at a cutoff past every ranking is the count of
# the whole ranking over the cutoff (m_P.c, m_unjudged.c), or over min(cutoff, R)
# (m_rel_P.c); the others take the whole ranking's value there (success, recall,
# map_cut, ndcg_cut)
_PER_CUTOFF = {"P": "P", "unj": "unj", "relative_P": "P"}
_INT_MAX = (1 << 31) - 1


def _long_cut_line(name: str, k: int, reached: bool) -> TrecLine:
    """The line of cutoff ``k``; not ``reached``: one that trec_eval's loop over the
    ranking never stops at, whose value is the one it gives every cutoff past the ranking
    (the whole ranking's, with ``k`` in its formula)."""
    label = f"{name}_{k}"
    if reached and k <= MAX_CUTOFF:
        return TrecLine(label, "value", label)
    if name not in _PER_CUTOFF:
        return TrecLine(label, "value", f"{name}_{MAX_CUTOFF}", reached=reached)
    spec = f"{_PER_CUTOFF[name]}_{MAX_CUTOFF}"
    capped = name == "relative_P"
    return TrecLine(label, "value", spec, per=k, per_at_most_R=capped, reached=reached)


def compare_longs(a: int, b: int) -> int:
    """meas_init.c's comp_long: ``return (int)(a - b)``, the difference of two longs (which
    wraps, as x86-64 subtracts) cut to its low 32 bits, read as an int. Cutoffs more than
    2^31 - 1 apart can compare in the wrong direction (``5`` after ``1000000000000``)."""
    low = (a - b) & 0xFFFFFFFF
    return low - (1 << 32) if low > _INT_MAX else low


def _long_cuts(name: str, params: Optional[str]) -> List[Tuple[int, bool]]:
    """The cutoffs in trec_eval's order, each with whether its loop reaches it
    (meas_init.c's get_long_cutoffs: atol, glibc's qsort by comp_long; then only the
    first is checked to be above 0, and neighbours only for duplicates). The measures
    walk the ranking once, looking for each cutoff in that order: from the first cutoff
    not above the one before it on, none is reached (m_P.c and the others' loops)."""
    if params is None:
        return [(k, True) for k in MEASURES[name][1]]
    cuts = glibc_msort([atol(part) for part in params.split(",")], compare_longs)
    if cuts[0] <= 0:
        raise TrecEvalError(
            f"trec_eval: Negative cutoff detected\ntrec_eval: Cannot initialize measure '{name}'",
            2,
        )
    if any(a == b for a, b in zip(cuts, cuts[1:])):
        raise TrecEvalError(
            f"trec_eval: duplicate cutoffs detected\ntrec_eval: Cannot initialize measure '{name}'",
            2,
        )
    descent = next((i for i in range(1, len(cuts)) if cuts[i] <= cuts[i - 1]), len(cuts))
    return [(k, i < descent) for i, k in enumerate(cuts)]


def _double_cut_line(name: str, params: Optional[str], x: float, max_relevant: int) -> TrecLine:
    """One line of iprec_at_recall or Rprec_mult: named as meas_init.c's append_double
    names it (``%3.2f`` in a buffer of the name's length + 10 bytes, so that the number
    keeps its first 8 characters: ``Rprec_mult_123456.0``)."""
    label = f"{name}_{c_fixed(x, 3, 2)}"[: len(name) + 9]
    word = f"{name}.{params}"
    # both turn x times the number of relevant documents into a long (a cast or lround),
    # which C leaves undefined for a NaN, an infinity or a value past a long: refused
    # where a topic's relevant documents (up to max_relevant) take it past
    _refuse_undefined_long(word, x, _TIMES_R.format(max_relevant), max_relevant)
    if name == "Rprec_mult":
        if x <= 0:  # the cutoff trunc(x*R + 0.9) <= 0 is never reached: 0 for every topic
            return TrecLine(label, "value", constant=0.0)
        return TrecLine(label, "value", f"Rprec(mult={_number(x)},form=trec_eval)")
    # iprec_at_recall: a cutoff lround(x*R) <= 0 takes, as round(0*R) does, the
    # interpolated precision of the whole ranking
    return TrecLine(label, "value", f"IPrec(recall={_number(max(x, 0.0))})")


_TIMES_R = "times the relevant documents of a topic (up to {})"


def _refuse_undefined_long(word: str, x: float, what: str, times: int = 1) -> None:
    # x*times as C's double product; compared exactly with the long's bound
    if not (math.isfinite(x) and abs(x) * times < LONG_MAX):
        raise TrecEvalError(
            f"irgauge: {word}: trec_eval 10.0 converts {x!r} {what} to a long, "
            "which C leaves undefined for a NaN, an infinity or a value past a long",
            2,
        )


def _double_cuts(params: Optional[str], defaults: tuple) -> List[float]:
    if params is None:
        return list(defaults)
    cuts = sorted(atof(part) for part in params.split(","))  # a NaN is refused per line
    if len(set(cuts)) < len(cuts):
        raise TrecEvalError("trec_eval: duplicate cutoffs detected", 2)
    return cuts


def _p_double(name: str, params: Optional[str], num_docs: int, max_relevant: int) -> str:
    values = [atof(p) for p in params.split(",")] if params is not None else None
    if name == "utility":
        if values is not None and len(values) != 4:
            raise TrecEvalError(
                "trec_eval.calc_utility: improper number of coefficients\n"
                "trec_eval: Can't calculate measure 'utility'",
                4,
            )
        coefficients = values or MEASURES[name][1]
        # trec_eval's C: any double coefficient, any long -N, its count in longs
        args = ",".join(f"{k}={_number(v)}" for k, v in zip("abcd", coefficients))
        return f"Utility({args},num_docs={num_docs},form=trec_eval)"
    if values is None:
        return _PLAIN[name]
    if name == "set_F":
        return f"SetF(beta={_number(values[0])},signed=true)"
    # 11pt_avg: trec_eval walks the levels as given (ascending, they give the mean)
    for x in values:  # m_11pt_avg.c takes lround(x*R), as iprec_at_recall does
        what = _TIMES_R.format(max_relevant)
        _refuse_undefined_long(f"{name}.{params}", x, what, max_relevant)
    return f"IPrec_avg(recalls={':'.join(_number(v) for v in values)},walk=given)"


def _pairs(name: str, params: str) -> List[Tuple[str, float]]:
    """trec_eval's ``name=value,...`` parameters (meas_init.c: get_param_pairs)."""
    parts = [part.partition("=") for part in params.split(",")]
    if any(not eq or not key for key, eq, _ in parts):
        raise TrecEvalError(
            f"trec_eval: malformed pair parameters in '{params}'\n"
            f"trec_eval: Cannot initialize measure '{name}'",
            2,
        )
    return [(key, atof(value)) for key, _, value in parts]  # a name may come twice


def _p_pair(name: str, params: Optional[str]) -> str:
    pairs = _pairs(name, params) if params is not None else []
    if name in _RBP:
        given = [value for key, value in pairs if key == "p"]
        p = given[-1] if given else 0.9  # m_rbp.c reads every p, keeping the last
        gains = _gains(pairs)  # m_rbp_resid.c reads p alone
        spec = _RBP[name].format(p=_number(p))
        return spec[:-1] + f",trec_gains={gains})" if gains and name == "rbp" else spec
    gains = _gains(pairs)
    if not gains:
        return _PLAIN[name]
    return _WITH_GAINS[name].format(gains)


def _gains(pairs: List[Tuple[str, float]]) -> str:
    """trec_eval's ``level=gain`` pairs as irgauge's ``trec_gains`` text, in the order
    given: a name that is not an integer is skipped, as gain_init.c's valid_int skips it;
    levels are C longs (atol), gains any double. The table trec_eval builds from them is
    collection/trec_gains.py's."""
    return pairs_text([(atol(key), gain) for key, gain in pairs if _VALID_INT.match(key)])


def expand(
    token: str, num_docs: int = 0, parse: Optional[Callable[[str], Any]] = None
) -> List[Tuple[str, str]]:
    """One trec_eval word as ``irgauge eval`` reads it: (trec_eval's printed name,
    irgauge measure string) per value, in trec_eval's order. runid, num_q and relstring
    are left out (irgauge's output names the run and counts the topics; relstring is not
    a number): asked for alone, they are refused."""
    try:
        chosen = [
            line
            for name, params in select([token])
            for line in lines(name, params, num_docs, parse=parse)
        ]
    except TrecEvalError as err:  # trec_eval's lines, on one line naming the word
        raise TrecEvalError(f"{token}: {err}", err.status) from None
    for line in chosen:
        if line.per is not None or not line.reached or line.constant is not None:
            raise MeasureError(
                f"{token}: irgauge eval computes {line.label} only as `irgauge trec_eval` "
                f"prints it (a cutoff past {MAX_CUTOFF}, or one trec_eval never reaches)"
            )
    found = [(line.label, line.spec) for line in chosen if line.spec is not None]
    if not found:
        raise MeasureError(
            f"{token}: trec_eval's {token.partition('.')[0]} is not a measured value "
            "(`irgauge trec_eval` prints it)"
        )
    return found


def cli_word(token: str) -> str:
    """A measure token as the command line reads it: trec_eval's family names whose bare
    name means something else in irgauge's API (P, recall, relative_P, success, unj) are
    trec_eval's families there, spelled with their default parameters."""
    if token in SHARED_FAMILY_NAMES:
        return f"{token}." + ",".join(str(k) for k in MEASURES[token][1])
    return token
