"""Validate bnet's JSON outputs against docs/schema/ with python3-jsonschema
(Draft 2020-12; a schema may refer to another of its folder, as run's
choices refer to scenario.schema.json's).

usage: schema_check.py SCHEMA_DIR NAME=FILE...   NAME: the schema's name
(run, coll, ...). Prints one line per file, "valid" or its first errors;
exits 1 if any is invalid.
"""
import glob
import json
import os
import sys
import warnings

import jsonschema

warnings.simplefilter("ignore", DeprecationWarning)  # RefResolver, still Debian 12's way


def main():
    folder = sys.argv[1]
    schemas = {}
    for path in glob.glob(os.path.join(folder, "*.schema.json")):
        with open(path) as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        schemas[os.path.basename(path)[: -len(".schema.json")]] = s
    store = {s["$id"]: s for s in schemas.values()}
    bad = 0
    for arg in sys.argv[2:]:
        name, path = arg.split("=", 1)
        s = schemas[name]
        check = jsonschema.Draft202012Validator(
            s, resolver=jsonschema.RefResolver.from_schema(s, store=store))
        with open(path) as f:
            doc = json.load(f)
        errs = sorted(check.iter_errors(doc), key=lambda e: list(e.path))[:3]
        bad += bool(errs)
        print(path, name, "valid" if not errs else "invalid: " + "; ".join(
            "%s: %s" % ("/".join(map(str, e.path)), e.message[:160]) for e in errs))
    return 1 if bad else 0


sys.exit(main())
