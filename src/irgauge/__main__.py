import sys

from irgauge.cli import main

sys.exit(main())
