"""trec_eval measure names -> irgauge measure strings, shared by the trec_eval and
pytrec_eval conformance tests."""

from __future__ import annotations

import re
from typing import Optional

# trec_eval name -> irgauge measure string, for names without parameters in the suffix
FIXED = {
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "map": "AP",
    "gm_map": "AP(agg=gmean)",
    "Rprec": "Rprec",
    "bpref": "bpref",
    "gm_bpref": "bpref(agg=gmean)",
    "recip_rank": "RR",
    "infAP": "infAP",
    "utility": "Utility",
    "11pt_avg": "IPrec_avg",
    "binG": "binG",
    "G": "G",
    "ndcg": "nDCG",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "Rndcg",
    "set_P": "set_P",
    "set_relative_P": "RelP",
    "set_recall": "R",
    "set_map": "SetAP",
    "set_F": "SetF",
    "rbp": "RBP(p=0.9,graded=true,norm=trec_eval)",
    "rbp_resid": "RBP_resid(p=0.9,form=trec_eval)",
}
# trec_eval name_k -> irgauge family@k
CUTOFF_FAMILIES = {
    "P": "P",
    "recall": "R",
    "ndcg_cut": "nDCG(dcg=log2)",
    "map_cut": "AP(norm=R)",
    "relative_P": "RelP",
    "success": "Hit",
    "unj": "Unjudged",
}
REAL_PARAMS = {"iprec_at_recall": "IPrec(recall={})", "Rprec_mult": "Rprec(mult={})"}

NOT_MEASURES = {"runid": "the run's name", "num_q": "the number of topics averaged"}
UNSUPPORTED_REASONS = {
    "relstring": "a string of relevance values, not a number",
    "prefs": "needs preference judgments (-R prefs or qrels_prefs)",
    "avgjg": "averages over judgment groups of preference/multi-judge qrels",
    "qrels_jg": "needs multi-judge qrels (-R qrels_jg)",
}


def irgauge_measure(name: str) -> Optional[str]:
    """The irgauge measure string computing trec_eval's measure ``name`` (None if none)."""
    if name in FIXED:
        return FIXED[name]
    m = re.fullmatch(r"(P|recall|ndcg_cut|map_cut|relative_P|success|unj)_(\d+)", name)
    if m:
        return f"{CUTOFF_FAMILIES[m.group(1)]}@{m.group(2)}"
    m = re.fullmatch(r"(iprec_at_recall|Rprec_mult)_(\d*\.\d+)", name)
    if m:
        return REAL_PARAMS[m.group(1)].format(m.group(2))
    # -m name.params as out.test.meas_params prints them
    m = re.fullmatch(r"utility_([-\d.]+),([-\d.]+),([-\d.]+),([-\d.]+)", name)
    if m:
        return "Utility(a={},b={},c={},d={})".format(*m.groups())
    m = re.fullmatch(r"11pt_avg_([\d.,]+)", name)
    if m:
        return "IPrec_avg(recalls={})".format(":".join(m.group(1).split(",")))
    m = re.fullmatch(r"ndcg_((?:\d+=[\d.]+,?)+)", name)
    if m:
        given = dict(pair.split("=") for pair in m.group(1).split(","))
        top = max(int(level) for level in given)
        gains = [given.get(str(level), str(level)) for level in range(1, top + 1)]
        return f"nDCG(gains={':'.join(gains)})"
    return None


def unsupported_reason(name: str) -> Optional[str]:
    if name.startswith("Z") and (irgauge_measure(name[1:]) or name[1:] in NOT_MEASURES):
        return "a z-score (-Z, out.test.aqZ): standardised against a per-topic file"
    for key, reason in UNSUPPORTED_REASONS.items():
        if key in name:
            return reason
    return None
