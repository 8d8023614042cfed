import sys

from irgauge_console import irgauge  # Ctrl-C held back from here on (irgauge_console)

sys.exit(irgauge())
