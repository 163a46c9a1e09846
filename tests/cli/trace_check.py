"""Check a Chrome trace-event file (Google, "Trace Event Format") as its
viewers read it: the JSON object form with traceEvents; every event has
its format's required fields with their types (name, ph, pid, tid, ts; dur
for complete events "X"; args.name for process_name and thread_name
metadata "M"); phases are ones the format defines; and on each row
(pid, tid) complete events nest or follow each other, none partly
overlapping another (a viewer stacks a row's events by nesting).
Times are compared at 1 ps (ts and dur are microseconds).

usage: trace_check.py FILE.json   prints "events N rows R overlaps O
errors E" and the first errors; exits 1 on any error or overlap.
"""
import json
import sys
from decimal import Decimal

PHASES = set("BEXIiCbnesftPOND") | {"M", "R", "c", "(", ")", "v", "V", "T", "S", "p", "F"}


def ps(x):
    return int((Decimal(str(x)) * 1000000).to_integral_value())


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f, parse_float=Decimal)
    errors = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("errors 1: not an object with a traceEvents array")
        return 1
    rows = {}
    for i, ev in enumerate(doc["traceEvents"]):
        def bad(what):
            if len(errors) < 10:
                errors.append("event %d: %s: %s" % (i, what, json.dumps(ev, default=str)[:160]))
        if not isinstance(ev, dict):
            bad("not an object")
            continue
        ph = ev.get("ph")
        if not isinstance(ph, str) or ph not in PHASES:
            bad("ph missing or not a phase")
            continue
        for k in ("pid", "tid"):
            if not isinstance(ev.get(k), int) or isinstance(ev.get(k), bool):
                bad(k + " missing or not an integer")
        if not isinstance(ev.get("name"), str):
            bad("name missing or not a string")
        if ph == "M":
            if ev.get("name") in ("process_name", "thread_name") and \
                    not isinstance(ev.get("args", {}).get("name"), str):
                bad("metadata without args.name")
            continue
        if not isinstance(ev.get("ts"), (int, Decimal)) or ev["ts"] < 0:
            bad("ts missing or negative")
            continue
        if ph == "X":
            if not isinstance(ev.get("dur"), (int, Decimal)) or ev["dur"] < 0:
                bad("dur missing or negative")
                continue
            s = ps(ev["ts"])
            rows.setdefault((ev["pid"], ev["tid"]), []).append((s, -(s + ps(ev["dur"])), i))
        if "args" in ev and not isinstance(ev["args"], dict):
            bad("args not an object")
    overlaps, first = 0, []
    for key, evs in rows.items():
        evs.sort()
        stack = []  # ends of the open enclosing events
        for s, neg_end, i in evs:
            e = -neg_end
            while stack and stack[-1] <= s:
                stack.pop()
            if stack and e > stack[-1]:
                overlaps += 1
                if len(first) < 5:
                    first.append("event %d on pid %d tid %d partly overlaps an earlier one"
                                 % (i, key[0], key[1]))
                continue
            stack.append(e)
    print("events %d rows %d overlaps %d errors %d" % (len(doc["traceEvents"]), len(rows),
                                                        overlaps, len(errors)))
    for e in errors + first:
        print("  " + e)
    return 1 if errors or overlaps else 0


sys.exit(main())
