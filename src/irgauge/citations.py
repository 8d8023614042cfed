"""The papers irgauge implements, cited the same way in help, captions, summaries, LaTeX
and HTML. User-facing text cites these, never internal file or section names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict


@dataclass(frozen=True)
class Paper:
    key: str
    authors: str  # as cited in running text
    year: int
    title: str
    venue: str

    @property
    def short(self) -> str:
        """``Sakai (2007), "Alternatives to bpref"``."""
        return f'{self.authors} ({self.year}), "{self.title}"'

    @property
    def full(self) -> str:
        return f"{self.authors}. {self.title}. {self.venue}, {self.year}."


PAPERS: Dict[str, Paper] = {
    p.key: p
    for p in (
        Paper(
            "onerel",
            "Sakai",
            2006,
            "Bootstrap-based comparisons of IR metrics for finding one relevant document",
            "Proceedings of AIRS 2006, LNCS 4182",
        ),
        Paper(
            "pmeasure",
            "Sakai",
            2006,
            "Give me just one highly relevant document: P-measure",
            "Proceedings of ACM SIGIR 2006 (poster)",
        ),
        Paper("bpref", "Sakai", 2007, "Alternatives to bpref", "Proceedings of ACM SIGIR 2007"),
        Paper(
            "qa",
            "Sakai",
            2004,
            "A note on the reliability of Japanese question answering evaluation",
            "IPSJ SIG Technical Report",
        ),
        Paper(
            "predictive",
            "Webber, Moffat, Zobel and Sakai",
            2008,
            "Precision-at-ten considered redundant",
            "Proceedings of ACM SIGIR 2008",
        ),
        Paper(
            "topicset",
            "Sakai",
            2016,
            "Topic set size design",
            "Information Retrieval Journal 19(3)",
        ),
        Paper(
            "zobel1998",
            "Zobel",
            1998,
            "How reliable are the results of large-scale information retrieval experiments?",
            "Proceedings of ACM SIGIR 1998",
        ),
        Paper(
            "buttcher2007",
            "Büttcher, Clarke, Yeung and Soboroff",
            2007,
            "Reliable information retrieval evaluation with incomplete and biased judgements",
            "Proceedings of ACM SIGIR 2007",
        ),
        Paper(
            "voorhees2018",
            "Voorhees",
            2018,
            "On building fair and reusable test collections using bandit techniques",
            "Proceedings of ACM CIKM 2018",
        ),
        Paper(
            "sakaikando2008",
            "Sakai and Kando",
            2008,
            "On information retrieval metrics designed for evaluation with incomplete "
            "relevance assessments",
            "Information Retrieval 11(5)",
        ),
    )
}


def cite(key: str) -> str:
    """Short citation of one of :data:`PAPERS`."""
    return PAPERS[key].short
