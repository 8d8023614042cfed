"""Readers for qrels, runs and score files. Every reader names file, line and problem on bad input."""
