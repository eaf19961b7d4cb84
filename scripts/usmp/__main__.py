"""`python -m usmp` is the same as the `usmp` console script."""
import sys

from usmp.cli import main

sys.exit(main())
