"""Running the bnet command: finding it, building its arguments, reading the
JSON it writes to stdout (docs/results.md)."""

import json
import os
import shutil
import subprocess
import tempfile

from . import scenario as sc
from .error import BnetError

# The commands that take --quiet (bnet help COMMAND), which keeps their text
# off stdout: --json - already does, --quiet makes sure. --seed is passed as
# given: every command takes it.
QUIET_COMMANDS = {"run", "job"}
DICT_LABEL = "<dict>"  # `scenario` of a result whose scenario was a dict
# what an exit status means, for when bnet says nothing on stderr
STATUS_TEXT = {1: "internal error", 2: "bad input",
               3: "faults made flows or rows fail (the results are in .result)",
               130: "interrupted by SIGINT", 143: "stopped by SIGTERM"}


def find(bnet=None):
    """The bnet command: the argument, else $BNET, else bnet on PATH."""
    path = bnet or os.environ.get("BNET") or shutil.which("bnet")
    if not path:
        raise FileNotFoundError("bnet not found: pass bnet=PATH, set BNET, or put bnet on PATH")
    return os.fspath(path)


def execute(argv, timeout=None):
    """Run argv; (status, stdout, stderr) as text. A command that cannot be
    started raises FileNotFoundError naming it."""
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                              encoding="utf-8", errors="replace", timeout=timeout)
    except (FileNotFoundError, PermissionError) as e:
        raise FileNotFoundError(f"cannot run bnet as {argv[0]!r}: {e.strerror}") from e
    return done.returncode, done.stdout, done.stderr


def set_pairs(overrides):
    """--set overrides as (key, value) pairs, from a dict or a sequence of pairs."""
    if overrides is None:
        return []
    return list(overrides.items() if hasattr(overrides, "items") else overrides)


def run(scenario=None, *, seed=None, set=None, command="run", args=(), bnet=None, timeout=None):
    """Run `bnet COMMAND [FILE] --json -` and return its JSON as a dict.

    scenario: None (the command's embedded default), a path, or a dict of
    the scenario's keys (nested as in YAML, or dotted as --set names them).
    set: overrides {KEY: VALUE}, each passed as --set KEY=VALUE. seed: --seed.
    args: further arguments as they are (e.g. ["--fabrics", "ib-ndr"]).
    Raises BnetError on a non-zero exit."""
    overrides = set_pairs(set)
    with tempfile.TemporaryDirectory(prefix="bnet-") as tmp:
        label = None
        argv = [find(bnet), command]
        if isinstance(scenario, dict):
            label = os.path.join(tmp, "scenario.yaml")
            with open(label, "w", encoding="utf-8") as f:
                f.write(sc.to_yaml(sc.absolute_paths(sc.nest(scenario))))
            # relative file names in overrides: from the caller's folder, too
            overrides = [(k, sc.absolute_set(k, v)) for k, v in overrides]
            argv.append(label)
        elif scenario is not None:
            argv.append(os.fspath(scenario))
        argv += ["--json", "-"]
        if command in QUIET_COMMANDS:
            argv.append("--quiet")
        if seed is not None:
            argv += ["--seed", str(seed)]
        for key, value in overrides:
            argv += ["--set", f"{key}={sc.set_text(value)}"]
        argv += [str(a) for a in args]
        status, out, err = execute(argv, timeout)
    return _result(argv, status, out, err, label)


def _relabel(text, label):
    return text.replace(label, DICT_LABEL) if label else text


def _result(argv, status, out, err, label):
    """The parsed JSON, with a dict scenario's temporary path named <dict>
    (so that the same dict gives the same result); or BnetError."""
    message = _relabel(err.strip(), label)
    try:
        result = json.loads(out) if out.strip() else None
    except ValueError:
        result = None
    if isinstance(result, dict) and label:
        for key in ("scenario", "command"):
            if isinstance(result.get(key), str):
                result[key] = _relabel(result[key], label)
    if status != 0:
        if not message:
            message = f"killed by signal {-status}" if status < 0 else STATUS_TEXT.get(status, "")
        raise BnetError(status, message, argv, result)
    if not isinstance(result, dict):
        raise BnetError(status, f"no JSON object on stdout: {out[:200]!r} {message}".strip(), argv)
    return result


def _listing(name, member, bnet):
    argv = [find(bnet), name, "--json"]
    status, out, err = execute(argv)
    return _result(argv, status, out, err, None)[member]


def keys(*, bnet=None):
    """Every scenario key (bnet keys --json): dicts of path, type, unit,
    default, doc and, for enums, choices."""
    return _listing("keys", "keys", bnet)


def presets(*, bnet=None):
    """The technology presets (bnet presets --json): name, about, sets."""
    return _listing("presets", "presets", bnet)


def version(*, bnet=None):
    """What `bnet --version` prints, e.g. 'bnet 0.1.0 (git e232ca2c256e)'."""
    argv = [find(bnet), "--version"]
    status, out, err = execute(argv)
    if status != 0:
        raise BnetError(status, err.strip(), argv)
    return out.strip()


def coll(scenario=None, **kw):
    """bnet coll: a collective sweep (rows per size)."""
    return run(scenario, command="coll", **kw)


def job(scenario=None, **kw):
    """bnet job: training and inference jobs sharing the fabric."""
    return run(scenario, command="job", **kw)


def compare(scenario=None, **kw):
    """bnet compare: the cluster over several fabrics."""
    return run(scenario, command="compare", **kw)


def p2p(scenario=None, **kw):
    """bnet p2p: perftest-style tests between hosts."""
    return run(scenario, command="p2p", **kw)


def topo(scenario=None, **kw):
    """bnet topo: the topology's figures, without simulating."""
    return run(scenario, command="topo", **kw)
