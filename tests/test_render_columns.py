"""Tables given as ``{column: values}`` are written as pandas' to_csv writes the same
frame: doubles by repr, NaN and None empty, names quoted where a tab, a quote or a line
break asks, whatever the column's type (the whole-column path and the per-cell one); the
text table of whole columns is the one written cell by cell."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
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
    st.text(st.sampled_from(["a", "b", "\t", '"', "\n", " ", "é", "1"]), min_size=1, max_size=4),
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


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.one_of(doubles, integers, flags, names, mixed, singles), min_size=0, max_size=5),
    st.integers(0, ROWS),
)
def test_a_column_text_table_is_the_one_written_cell_by_cell(columns, rows):
    table = {f"c{i}": values[:rows] for i, values in enumerate(columns)}
    # a list of the same values takes the per-cell path
    cell_by_cell = {name: list(values) for name, values in table.items()}
    assert render_columns(table, "table", {"k": 1}, 4) == render_columns(
        cell_by_cell, "table", {"k": 1}, 4
    )


@pytest.mark.parametrize("char", ['"', "\n", "\r", "\t"])
def test_the_cells_a_whole_column_writes_itself(char):
    """Doubles' edge cases, and a name that asks for quoting (each such character alone:
    one of them sends every line to the csv writer)."""
    table = {
        "name": np.array([f"a{char}b", "e", ""], dtype=object),
        "x": np.array([np.nan, -0.0, np.inf]),
        "n": np.array([1, -2, 3]),
    }
    expected = pd.DataFrame(table).to_csv(sep="\t", index=False, lineterminator="\n")
    assert render_columns(table, "tsv", {}, 4) == expected
    cell_by_cell = {name: list(values) for name, values in table.items()}
    text = render_columns(table, "table", {}, 4)
    assert text == render_columns(cell_by_cell, "table", {}, 4)
    assert "   nan" in text and "-0.0000" in text and "   inf" in text


def test_a_long_table_is_padded_a_block_of_rows_at_a_time(monkeypatch):
    # every row padded at once held a second copy of every cell (35 MB for 79,800 rows of
    # compare's pairs): a block of rows at a time, each line as the whole table pads it
    from irgauge.io import tables

    monkeypatch.setattr(tables, "ROWS_AT_ONCE", 5)
    padded = []
    real = tables._padded_lines
    monkeypatch.setattr(
        tables, "_padded_lines", lambda cols, *a: padded.append(len(cols[0])) or real(cols, *a)
    )
    table = {"name": np.array(["a", "abcdef"] * 6, dtype=object), "x": np.arange(12) * 1.5}
    written = render_columns(table, "table", {}, 2)
    assert max(padded) == 5 and sum(padded) == 2 + 12  # the header and rule, then 5, 5, 2
    width = len("abcdef")  # each column to its widest cell over all the rows
    lines = written.splitlines()
    assert lines[:2] == ["name        x", "------  -----"]
    assert lines[2:] == [
        f"{n:<{width}}  {x:5.2f}".rstrip() for n, x in zip(table["name"], table["x"])
    ]
    tsv = render_columns(table, "tsv", {}, 2)
    assert tsv == pd.DataFrame(table).to_csv(sep="\t", index=False, lineterminator="\n")
