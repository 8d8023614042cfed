"""Rendering results: text tables, TSV, JSON, figures and HTML."""
