"""Inputs and outputs: readers for qrels, runs and other tools' structures (every reader
names file, line and problem on bad input), ids as byte columns, and the writers: atomic
files and folders, text tables and summaries.

Nothing is imported here, so that a command loads only the readers and writers it uses.
"""
