"""Tables given as ``{column: values}`` are written as pandas' to_csv writes the same
frame: doubles by repr, NaN and None empty, names quoted where a tab or a quote asks,
whatever the column's type (the whole-column path and the per-cell one)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from irgauge.io.tables import render_columns

ROWS = 12
doubles = st.lists(
    st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just(-0.0)),
    min_size=ROWS,
    max_size=ROWS,
).map(lambda v: np.array(v, dtype=np.float64))
integers = st.lists(st.integers(-(2**62), 2**62), min_size=ROWS, max_size=ROWS).map(np.array)
flags = st.lists(st.booleans(), min_size=ROWS, max_size=ROWS).map(np.array)
names = st.lists(
    st.text(st.sampled_from(["a", "b", "\t", '"', " ", "é", "1"]), min_size=1, max_size=4),
    min_size=ROWS,
    max_size=ROWS,
).map(lambda v: np.array(v, dtype=object))
mixed = st.lists(
    st.one_of(st.none(), st.floats(allow_nan=True), st.text("xy", min_size=1, max_size=2)),
    min_size=ROWS,
    max_size=ROWS,
).map(lambda v: np.array(v, dtype=object))
singles = st.lists(
    st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=ROWS, max_size=ROWS
).map(lambda v: np.array(v, dtype=np.float32))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(doubles, integers, flags, names, mixed, singles), min_size=1, max_size=5))
def test_a_column_table_is_written_as_pandas_writes_it(columns):
    table = {f"c{i}": values for i, values in enumerate(columns)}
    written = render_columns(table, "tsv", {}, 4)
    expected = pd.DataFrame(table).to_csv(sep="\t", index=False, lineterminator="\n")
    assert written == expected
