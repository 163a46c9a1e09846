"""Results as pandas DataFrames: one row per element of a result's table
(a run's flows, a coll's rows ...), or one per result of a sweep."""

# The table each command's result is read as by default.
DEFAULT_TABLE = {"run": "flows", "coll": "rows", "job": "jobs", "p2p": "pairs.rows",
                 "compare": "fabrics", "topo": "topology.tiers"}


def command_of(result):
    """The bnet command that wrote a result: 'run', 'coll' ... ('topo' has no
    `command` member: it is the only JSON that is just a topology)."""
    words = str(result.get("command") or "").split()
    if len(words) > 1 and words[1] in DEFAULT_TABLE:
        return words[1]
    if set(result) == {"topology"}:
        return "topo"
    return None


def flatten(obj, prefix="", lists=True):
    """A dict with nested dicts' members as dotted names ("latency.p50_us");
    lists are kept as values, or left out with lists=False."""
    flat = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, name + ".", lists))
        elif lists or not isinstance(value, list):
            flat[name] = value
    return flat


def rows(result, table=None):
    """The flat rows of one result's table: `table` is a dotted path to a
    list ("flows", "series.queues", "pairs.rows"). A list met on the way
    (pairs) is entered element by element, each element's plain members
    (pairs.src ...) added to the rows beneath it."""
    if table is None:
        table = DEFAULT_TABLE.get(command_of(result))
        if table is None:
            raise ValueError("name the table: this result's are "
                             + ", ".join(k for k, v in result.items() if isinstance(v, list)))
    return list(_walk(result, table.split("."), {}, table, ""))


def _walk(node, parts, context, table, name):
    if isinstance(node, list) and parts:
        for item in node:
            plain = {f"{name}.{k}": v for k, v in item.items() if not isinstance(v, (dict, list))}
            yield from _walk(item, parts, {**context, **plain}, table, name)
    elif parts:
        if not isinstance(node, dict) or parts[0] not in node:
            raise KeyError(f"no table {table!r} in this result (no '{parts[0]}')")
        yield from _walk(node[parts[0]], parts[1:], context, table, parts[0])
    elif not isinstance(node, list):
        raise KeyError(f"{table!r} is not a list in this result")
    else:
        for item in node:
            yield {**context, **(flatten(item) if isinstance(item, dict) else {name: item})}


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("bnet.to_dataframe needs pandas: pip install 'bnet[pandas]', "
                          "or on Debian apt install python3-pandas") from e
    return pandas


def to_dataframe(result, table=None):
    """A pandas DataFrame of a result's table (rows()), or of a sweep.

    A sweep's list of results: without table, one row per result (its
    plain and nested members flattened, its lists left out); with table,
    every result's rows of that table. Either way with point.key,
    point.value and point.seed first."""
    pandas = _pandas()
    if isinstance(result, dict):
        return pandas.DataFrame(rows(result, table))
    records = []
    for r in result:
        point = {f"point.{k}": v for k, v in r.get("point", {}).items()}
        if table is None:
            body = {k: v for k, v in r.items() if k != "point"}
            records.append({**point, **flatten(body, lists=False)})
        else:
            records.extend({**point, **row} for row in rows(r, table))
    return pandas.DataFrame(records)
