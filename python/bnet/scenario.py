"""A scenario given as a dict, written as the YAML bnet reads (PyYAML).

PyYAML writes a string plain where YAML allows, so "1MB" means what
`message_bytes: 1MB` and `--set workload.message_bytes=1MB` mean (bnet
rejects a quoted string for a number key, and JSON would quote it).
"""

import os
import re

import yaml

# Keys holding a file name: bnet takes a relative one from the scenario's
# folder, which for a dict is a temporary one, so they are made absolute
# from the caller's working directory.
PATH_KEYS = ("topology.file", "workload.flow_file", "jobs.*.workload_file")


def set_text(value):
    """Text of a value after `--set KEY=`, as a scenario file would give it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return "" if value is None else str(value)


def nest(scenario):
    """A copy of the dict with dotted keys ("link.rate_gbps") expanded into
    nested mappings, so a dict may use the names --set uses."""
    out = {}
    for key, value in scenario.items():
        if isinstance(value, dict):
            value = nest(value)
        elif isinstance(value, (list, tuple)):
            value = [nest(v) if isinstance(v, dict) else v for v in value]
        *parents, leaf = str(key).split(".")
        node = out
        for p in parents:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise ValueError(f"scenario key {key!r}: '{p}' is both a value and a section")
        if isinstance(node.get(leaf), dict) and isinstance(value, dict):
            node[leaf].update(value)
        elif leaf in node:
            raise ValueError(f"scenario key {key!r} given twice")
        else:
            node[leaf] = value
    return out


def _is_path_key(dotted):
    return any(re.fullmatch(re.escape(p).replace(r"\*", r"\d+"), dotted) for p in PATH_KEYS)


def absolute_paths(scenario):
    """Make the PATH_KEYS of a nested scenario absolute, in place."""
    def walk(node, prefix):
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            dotted = f"{prefix}{key}"
            if isinstance(value, (dict, list)):
                walk(value, dotted + ".")
            elif _is_path_key(dotted) and isinstance(value, (str, os.PathLike)) and os.fspath(value):
                node[key] = os.path.abspath(value)
    walk(scenario, "")
    return scenario


def absolute_set(key, value):
    """The value of a --set override, made absolute when the key names a file."""
    if _is_path_key(key) and isinstance(value, (str, os.PathLike)) and os.fspath(value):
        return os.path.abspath(value)
    return value


def to_yaml(scenario):
    """The YAML text of a nested scenario dict, keys in the dict's order."""
    def plain(value):  # PathLike values as their text
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return os.fspath(value) if isinstance(value, os.PathLike) else value
    return yaml.safe_dump(plain(scenario), default_flow_style=False, sort_keys=False,
                          allow_unicode=True)
