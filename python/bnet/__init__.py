"""Drive the bnet simulator through its command and read its JSON results.

    import bnet
    r = bnet.run({"topology": {"k": 4}}, seed=7)
    r["summary"]["fct_us"]["p99"]

The command is found from bnet=PATH, else $BNET, else PATH (docs/python.md).
"""

from .command import coll, compare, find, job, keys, p2p, presets, run, topo, version
from .error import BnetError
from .frame import to_dataframe
from .sweep import sweep


def _own_version():
    """The package's version, bnet's (python/setup.py reads it from
    CMakeLists.txt): from the installed distribution's metadata; from the
    repository around a copy used in place; else "0+unknown"."""
    from importlib import metadata
    import pathlib
    import re
    try:
        return metadata.version("bnet")
    except metadata.PackageNotFoundError:
        pass
    cmake = pathlib.Path(__file__).resolve().parent.parent.parent / "CMakeLists.txt"
    try:
        found = re.search(r"project\(bnet VERSION ([0-9.]+)", cmake.read_text(encoding="utf-8"))
    except OSError:
        found = None
    return found.group(1) if found else "0+unknown"


__version__ = _own_version()

__all__ = ["BnetError", "__version__", "coll", "compare", "find", "job", "keys", "p2p",
           "presets", "run", "sweep", "to_dataframe", "topo", "version"]
