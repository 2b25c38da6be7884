"""``python -m cldnn_py`` is the ``cldnn-py`` command."""

import sys

from .cli import main

sys.exit(main())
