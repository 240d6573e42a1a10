"""``python -m moelaws``: see :mod:`moelaws.cli`."""

import sys

from moelaws.cli import main

if __name__ == "__main__":
    sys.exit(main())
