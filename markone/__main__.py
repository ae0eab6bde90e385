"""``python -m markone`` runs the command line."""
import sys

from markone.cli import main

sys.exit(main())
