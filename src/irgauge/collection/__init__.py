"""Topics, qrels and runs as arrays: judgments under explicit conventions, runs matched
and ranked against them (``rankings``), reduced qrels (``reduce``) and simulated
collections (``simulate``)."""

from irgauge.collection.judgments import PADDING, POOLED, UNJUDGED, Judgments, parse_gains
from irgauge.io.records import Qrels, Run

__all__ = ["PADDING", "POOLED", "UNJUDGED", "Judgments", "Qrels", "Run", "parse_gains"]
