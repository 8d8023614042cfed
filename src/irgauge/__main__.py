import sys

# Ctrl-C held back since the package's __init__, which Python ran first (irgauge_console)
from irgauge_console import irgauge

sys.exit(irgauge())
