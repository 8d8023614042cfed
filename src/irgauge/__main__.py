import sys

from irgauge.cli import console_main

sys.exit(console_main())
