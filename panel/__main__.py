import sys

from panel.tools.cli import main

sys.exit(main())
