import sys

from skatsim_app.cli import main

sys.exit(main())
