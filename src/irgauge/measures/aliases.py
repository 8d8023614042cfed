"""Which tool a measure spelling belongs to, and what that tool means by it.

Each table maps a tool's spelling to irgauge's family and the parameters that make it that
tool's measure with that tool's defaults. ``parse.resolve`` reads them in this order:

1. ``j:NAME`` and four-digit cutoffs (``AP@0010``, ``nDCG@1000``: NTCIREVAL prints %04d) are
   NTCIREVAL's output spellings, and so
   are the names only NTCIREVAL prints (``NTCIREVAL_ONLY``): NTCIREVAL's measure.
2. trec_eval's names (``TREC_EVAL``, ``map_cut_10``, ``iprec_at_recall_0.10``): trec_eval's.
3. ir_measures' names (``IR_MEASURES``, ``ERR@10``, ``IPrec@0.1``, ``Judged@10``): ir_measures'.
4. Otherwise irgauge's own families with their documented defaults.
``AMBIGUOUS`` lists spellings two tools print with different meanings, refused with the
explicit forms.
"""

from __future__ import annotations

from typing import Dict, Tuple

Alias = Tuple[str, Dict[str, str]]  # (irgauge family, fixed parameters)

# trec_eval's names without a cutoff suffix (name_k spellings are read by pattern in parse)
TREC_EVAL: Dict[str, Alias] = {
    "map": ("AP", {}),
    "gm_map": ("AP", {"agg": "gmean"}),
    "ndcg": ("nDCG", {}),
    "recip_rank": ("RR", {}),
    "gm_bpref": ("bpref", {"agg": "gmean"}),
    "bpref_allnonrel": ("bpref_N", {}),
    "recall": ("R", {}),
    # trec_eval's rbp: p = 0.9, graded with its per-topic normalisation; its residual
    # adds the weight of unjudged ranks and is 0 when none was retrieved
    "rbp": ("RBP", {"p": "0.9", "graded": "true", "norm": "trec_eval"}),
    "rbp_resid": ("RBP_resid", {"p": "0.9", "form": "trec_eval"}),
    "set_P": ("P", {}),
    "set_recall": ("R", {}),
    "set_F": ("SetF", {}),
    "set_map": ("SetAP", {}),
    "set_relative_P": ("RelP", {}),
    "relative_P": ("RelP", {}),
    "utility": ("Utility", {}),
    "unj": ("Unjudged", {}),
    "success": ("Hit", {}),
}
# trec_eval's name_k spellings: base -> family
TREC_EVAL_CUTOFF: Dict[str, str] = {
    "P": "P",
    "recall": "R",
    "ndcg_cut": "nDCG",
    "map_cut": "AP",
    "success": "Hit",
    "NQcorrect": "Hit",
    "relative_P": "RelP",
    "unj": "Unjudged",
}
# trec_eval's names whose suffix is a real-valued parameter
TREC_EVAL_REAL: Dict[str, Tuple[str, str]] = {
    "iprec_at_recall_": ("IPrec", "recall"),
    "Rprec_mult_": ("Rprec", "mult"),
}
TREC_EVAL_SPECIAL: Dict[str, str] = {"11pt_avg": "IPrec_avg"}  # names not starting a letter

# NTCIREVAL as its .nev output prints the names (cutoffs zero-padded: AP@0010); the second
# entry applies with a cutoff where NTCIREVAL's @l form differs from the plain one.
NTCIREVAL: Dict[str, Tuple[Alias, Alias]] = {
    "RR": (("RR", {}),) * 2,
    "O-measure": (("O-measure", {}),) * 2,
    "P-measure": (("P-measure", {}),) * 2,
    "P-plus": (("P-plus", {}),) * 2,
    # AP@l and Q@l divide by min(l, R)
    "AP": (("AP", {}), ("AP", {"norm": "min"})),
    "Q-measure": (("Q-measure", {}), ("Q-measure", {"norm": "min"})),
    "Q": (("Q-measure", {"norm": "min"}),) * 2,
    "NCUgu,P": (("NCUgu", {"utility": "P"}),) * 2,
    "NCUgu,BR": (("NCUgu", {"utility": "BR"}),) * 2,
    "NCUrb,P": (("NCUrb", {"utility": "P"}),) * 2,
    "NCUrb,BR": (("NCUrb", {"utility": "BR"}),) * 2,
    "NCUrb,IE": (("NCUrb", {"utility": "IE"}),) * 2,
    # graded: gain / the top gain; p = 0.95
    "RBP": (("RBP", {"p": "0.95", "graded": "true"}),) * 2,
    "nRBP": (("nRBP", {}),) * 2,
    "ERR": (("ERR", {"stop": "ntcir"}),) * 2,
    "nERR": (("nERR", {"stop": "ntcir"}),) * 2,
    "EBR": (("EBR", {"stop": "ntcir"}),) * 2,
    "nEBR": (("nEBR", {"stop": "ntcir"}),) * 2,
    "iRBU": (("iRBU", {"stop": "ntcir"}),) * 2,
    "niRBU": (("niRBU", {"stop": "ntcir"}),) * 2,
    # Järvelin–Kekäläinen nDCG, log base 2; MSnDCG is the log2(r+1) ("Microsoft") one
    "nDCG": (("nDCG", {"dcg": "jk", "b": "2"}),) * 2,
    "MSnDCG": (("nDCG", {"dcg": "log2"}),) * 2,
    "Prec": (("P", {}),) * 2,
    "P": (("P", {}),) * 2,
    "Hit": (("Hit", {}),) * 2,
    "bpref": (("bpref", {}),) * 2,
    "bpref_R": (("bpref_R", {}),) * 2,
    "bpref_N": (("bpref_N", {}),) * 2,
    "bpref_relative": (("bpref_relative", {}),) * 2,
    "rpref_N": (("rpref_N", {}),) * 2,
    "rpref_relative": (("rpref_relative", {}),) * 2,
    "rpref_relative2": (("rpref_relative2", {}),) * 2,
}
# names no other tool prints: NTCIREVAL's meaning even without a zero-padded cutoff
NTCIREVAL_ONLY = ("Q", "Prec", "MSnDCG", "NCUgu,P", "NCUgu,BR", "NCUrb,P", "NCUrb,BR", "NCUrb,IE")

# ir_measures' names (str(measure)) and its aliases, with ir_measures' defaults
IR_MEASURES: Dict[str, Alias] = {
    "Bpref": ("bpref", {}),
    "BPref": ("bpref", {}),
    "MAP": ("AP", {}),
    "MRR": ("RR", {}),
    "NDCG": ("nDCG", {}),
    "Precision": ("P", {}),
    "Recall": ("R", {}),
    "RPrec": ("Rprec", {}),
    "Success": ("Hit", {}),
    "Judged": ("Judged", {}),
    "SetP": ("P", {}),
    "SetR": ("R", {}),
    "SetF": ("SetF", {}),
    "SetAP": ("SetAP", {}),
    "NumRet": ("num_ret", {}),
    "NumRel": ("num_rel", {}),
    "NumQ": ("NumQ", {}),
    "NumRelRet": ("num_rel_ret", {}),
    # ir_measures' ERR@k is gdeval's: s = (2^g - 1)/2^4
    "ERR": ("ERR", {"stop": "exp", "max_grade": "4"}),
}
# ir_measures' measures irgauge does not compute: name -> why (a predicate, said when refused)
_DIVERSITY = "needs intent-level (diversity) judgments, which irgauge does not read"
_CWL = "is a C/W/L measure of cwl_eval that irgauge does not compute"
IR_MEASURES_UNSUPPORTED: Dict[str, str] = {
    **{
        name: _DIVERSITY
        for name in (
            "alpha_nDCG",
            "alpha_DCG",
            "α_nDCG",
            "α_DCG",
            "AP_IA",
            "MAP_IA",
            "ERR_IA",
            "nERR_IA",
            "NRBP",
            "nNRBP",
            "P_IA",
            "StRecall",
        )
    },
    **{
        name: _CWL for name in ("BPM", "INST", "INSQ", "NERR8", "NERR9", "NERR10", "NERR11", "SDCG")
    },
    "Compat": "is the compatibility measure (Clarke et al.), which irgauge does not compute",
    "Accuracy": "is a pairwise accuracy, which irgauge does not compute",
}

# older irgauge spellings and other common ones
IRGAUGE: Dict[str, Alias] = {
    "AveP": ("AP", {}),
    "GMAP": ("AP", {"agg": "gmean"}),
    "Qmeasure": ("Q-measure", {}),
    "O": ("O-measure", {}),
    "P+": ("P-plus", {}),
    "P-plus-measure": ("P-plus", {}),
    "PDoc": ("P", {}),
    "R-prec": ("Rprec", {}),
    "NQcorrect": ("Hit", {}),
    "WP": ("nCG", {}),
    "R_measure": ("R-measure", {}),
}

# spellings two tools print with different meanings (a cutoff of four digits, 1000-9999,
# as NTCIREVAL and ir_measures both print it): refused, naming NTCIREVAL's and
# ir_measures' (= trec_eval's) explicit forms
AMBIGUOUS: Dict[str, Tuple[str, str]] = {
    "AP": ("AP(norm=min)@{k}", "AP(norm=R)@{k}"),
    "nDCG": ("nDCG(dcg=jk,b=2)@{k}", "nDCG(dcg=log2)@{k}"),
    "ERR": ("ERR(stop=ntcir)@{k}", "ERR(stop=exp,max_grade=4)@{k}"),
    "RBP": ("RBP(p=0.95,graded=true)@{k}", "RBP(p=0.8,rel=1)@{k}"),
}
