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

__all__ = ["BnetError", "coll", "compare", "find", "job", "keys", "p2p", "presets",
           "run", "sweep", "to_dataframe", "topo", "version"]
