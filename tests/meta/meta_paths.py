"""Where the meta-evaluation tests find real score matrices (CC BY-SA 4.0 data of Julián
Urbano, read by path and never copied into the repository)."""

from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
URBANO = DATA / "urbano-score-matrices"
ADHOC8 = URBANO / "sigir2019-statistical"
