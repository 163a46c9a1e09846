"""Check a Chrome trace-event file (Google, "Trace Event Format") as its
viewers read it, in place of Perfetto's trace processor (not packaged by
Debian): the JSON object form with traceEvents (or the bare array form);
displayTimeUnit, when given, "ms" or "ns"; every event has its format's
required fields with their types (name, ph, pid, tid, ts; dur for
complete events "X"; args.name for process_name and thread_name
metadata "M"; an id for async "b"/"e" and flow "s"/"t"/"f" events; a
scope "g", "p" or "t" for instant events; numbers in a counter's args);
phases are ones the format defines; on each row (pid, tid) duration
events "B" and "E" pair up as a stack (an "E" with no open "B", an "E"
whose name is not its "B"'s, an "E" before its "B" or a "B" never closed
is an error), and complete events and B/E spans nest or follow each
other, none partly overlapping another (a viewer stacks a row's events by
nesting); async begin/end pairs and flows match by (cat, id).
Times are compared at 1 ps (ts and dur are microseconds).

usage: trace_check.py FILE.json   prints "events N rows R overlaps O
errors E" and the first errors; exits 1 on any error or overlap.
"""
import json
import sys
from decimal import Decimal

PHASES = set("BEXIiCbnesftPOND") | {"M", "R", "c", "(", ")", "v", "V", "T", "S", "p", "F"}
NUMBER = (int, Decimal)


def ps(x):
    return int((Decimal(str(x)) * 1000000).to_integral_value())


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Checker:
    def __init__(self):
        self.errors, self.nerrors = [], 0
        self.spans = {}    # row -> [(start, -end, index)]: X events and closed B/E pairs
        self.open = {}     # row -> [(name, start, index)]: open B events
        self.asyncs = {}   # (cat, id) -> open b count
        self.flows = {}    # (cat, id) -> started

    def bad(self, i, ev, what):
        self.nerrors += 1
        if len(self.errors) < 10:
            self.errors.append("event %d: %s: %s" % (i, what, json.dumps(ev, default=str)[:160]))

    def event(self, i, ev):
        if not isinstance(ev, dict):
            return self.bad(i, ev, "not an object")
        ph = ev.get("ph")
        if not isinstance(ph, str) or ph not in PHASES:
            return self.bad(i, ev, "ph missing or not a phase")
        for k in ("pid", "tid"):
            if not is_int(ev.get(k)):
                self.bad(i, ev, k + " missing or not an integer")
        if not isinstance(ev.get("name"), str) and ph != "E":
            self.bad(i, ev, "name missing or not a string")
        if "args" in ev and not isinstance(ev["args"], dict):
            return self.bad(i, ev, "args not an object")
        if ph == "M":
            if ev.get("name") in ("process_name", "thread_name") and \
                    not isinstance(ev.get("args", {}).get("name"), str):
                self.bad(i, ev, "metadata without args.name")
            return
        if not isinstance(ev.get("ts"), NUMBER) or ev["ts"] < 0:
            return self.bad(i, ev, "ts missing or negative")
        row, s = (ev.get("pid"), ev.get("tid")), ps(ev["ts"])
        if ph == "X":
            if not isinstance(ev.get("dur"), NUMBER) or ev["dur"] < 0:
                return self.bad(i, ev, "dur missing or negative")
            self.spans.setdefault(row, []).append((s, -(s + ps(ev["dur"])), i))
        elif ph == "B":
            self.open.setdefault(row, []).append((ev.get("name"), s, i))
        elif ph == "E":
            stack = self.open.get(row)
            if not stack:
                return self.bad(i, ev, "an E with no open B on its row")
            name, start, bi = stack.pop()
            if "name" in ev and ev["name"] != name:
                self.bad(i, ev, "an E named otherwise than its B (event %d, %r)" % (bi, name))
            if s < start:
                return self.bad(i, ev, "an E before its B (event %d)" % bi)
            self.spans.setdefault(row, []).append((start, -s, bi))
        elif ph in "iI":
            if ev.get("s", "t") not in ("g", "p", "t"):
                self.bad(i, ev, "instant event scope not g, p or t")
        elif ph == "C":
            if not ev.get("args") or not all(isinstance(v, NUMBER) for v in ev["args"].values()):
                self.bad(i, ev, "a counter without numeric args")
        elif ph in "bne":
            if "id" not in ev and "id2" not in ev:
                return self.bad(i, ev, "an async event without id")
            key = (ev.get("cat"), json.dumps(ev.get("id", ev.get("id2")), default=str))
            if ph == "b":
                self.asyncs[key] = self.asyncs.get(key, 0) + 1
            elif ph == "e":
                if not self.asyncs.get(key):
                    return self.bad(i, ev, "an async end with no open begin of its cat and id")
                self.asyncs[key] -= 1
        elif ph in "stf":
            if "id" not in ev:
                return self.bad(i, ev, "a flow event without id")
            key = (ev.get("cat"), json.dumps(ev["id"], default=str))
            if ph == "s":
                self.flows[key] = True
            elif not self.flows.get(key):
                self.bad(i, ev, "a flow step or end with no start of its cat and id")

    def close(self):
        for row, stack in self.open.items():
            for name, _, bi in stack:
                self.nerrors += 1
                if len(self.errors) < 10:
                    self.errors.append("event %d: B %r on pid %s tid %s never ended" % (bi, name, *row))
        for key, n in self.asyncs.items():
            if n:
                self.nerrors += 1
                if len(self.errors) < 10:
                    self.errors.append("async %r: %d begin(s) never ended" % (key, n))

    def overlaps(self):
        count, first = 0, []
        for key, evs in self.spans.items():
            evs.sort()
            stack = []  # ends of the open enclosing events
            for s, neg_end, i in evs:
                e = -neg_end
                while stack and stack[-1] <= s:
                    stack.pop()
                if stack and e > stack[-1]:
                    count += 1
                    if len(first) < 5:
                        first.append("event %d on pid %s tid %s partly overlaps an earlier one"
                                     % (i, key[0], key[1]))
                    continue
                stack.append(e)
        return count, first


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f, parse_float=Decimal)
    if isinstance(doc, list):
        doc = {"traceEvents": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("errors 1: not an object with a traceEvents array")
        return 1
    c = Checker()
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        c.nerrors += 1
        c.errors.append("displayTimeUnit %r: not ms or ns" % doc["displayTimeUnit"])
    for i, ev in enumerate(doc["traceEvents"]):
        c.event(i, ev)
    c.close()
    overlaps, first = c.overlaps()
    print("events %d rows %d overlaps %d errors %d" % (len(doc["traceEvents"]), len(c.spans),
                                                        overlaps, c.nerrors))
    for e in c.errors + first:
        print("  " + e)
    return 1 if c.nerrors or overlaps else 0


sys.exit(main())
