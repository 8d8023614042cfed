"""``irgauge.evaluate`` stays the function whatever was imported before (the submodule of the
same name used to replace it, so ``from irgauge import evaluate`` could return a module)."""

import subprocess
import sys


def test_evaluate_is_the_function_after_its_submodule_is_imported():
    code = (
        "from irgauge.evaluation import EvalResult\n"
        "import irgauge\n"
        "from irgauge import evaluate\n"
        "assert callable(irgauge.evaluate) and callable(evaluate), type(evaluate)\n"
        "assert irgauge.compare_table.__module__ == 'irgauge.stats.comparison'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
