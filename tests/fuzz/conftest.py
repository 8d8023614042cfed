"""The fuzz harness (issue 19): Hypothesis builds hostile files for every reader and hostile
targets for every output path, and runs the real command line on them (``irgauge.cli.main``
in this process). Each property's example budget keeps the whole of ``tests/fuzz`` at about
two minutes; ``IRGAUGE_FUZZ_EXAMPLES=N`` runs N examples of every property instead, for a
longer search (``IRGAUGE_FUZZ_EXAMPLES=2000 python -m pytest tests/fuzz``). A failure prints
the smallest example found and the ``--hypothesis-seed`` that reproduces the search; it
becomes a regression test (an ``@example`` or a plain test) beside the property.

Modules: ``fuzz_strategies`` (valid contents, mutations, layouts), ``fuzz_checks`` (the
properties every command keeps), and the tests."""

import fuzz_strategies


def pytest_report_header(config):
    import os

    wanted = os.environ.get(fuzz_strategies.EXAMPLES_VARIABLE)
    return f"irgauge fuzz: {wanted or 'default'} examples per property"
