import os
import sys

# `python -m trtlint` puts the current directory first on sys.path. Run inside a checked tree, the tree's own
# modules (a json.py, yaml.py, numpy.py ...) would shadow the ones trtlint imports, and run: trtlint never
# imports from there (unless it is trtlint's own checkout).
_own = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_cwd = os.getcwd()
sys.path[:] = [p for p in sys.path if os.path.abspath(p or _cwd) != _cwd or _cwd == _own]

from trtlint.cli.commands import main  # noqa: E402

raise SystemExit(main())
