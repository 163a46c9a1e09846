"""Check an HTML page as a browser would need it whole: it parses
(html.parser), every element that is opened is closed in order (void
elements aside; inline SVG's self-closing tags allowed), ids are unique,
nothing is fetched from elsewhere (no src=, no link href=, no url() or
href to http(s) or another file: data: and #fragments only), and list
the figures it holds.

usage: html_check.py PAGE.html   prints "figures: ID ..." and each
problem; exits 1 on any problem.
"""
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Check(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.ids, self.figures = [], [], set(), []

    def where(self):
        return "line %d" % self.getpos()[0]

    def attrs_check(self, tag, attrs):
        for k, v in attrs:
            v = v or ""
            if k == "id":
                if v in self.ids:
                    self.problems.append("%s: duplicate id %r" % (self.where(), v))
                self.ids.add(v)
                if tag == "figure":
                    self.figures.append(v)
            if k == "src" or (k in ("href", "xlink:href") and not v.startswith(("#", "data:"))):
                self.problems.append("%s: <%s %s=%r> fetches from elsewhere" % (self.where(), tag, k, v[:60]))
            if "url(" in v and not re.search(r"url\((#|data:)", v):
                self.problems.append("%s: %s url() to elsewhere" % (self.where(), k))

    def handle_starttag(self, tag, attrs):
        self.attrs_check(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, self.where()))

    def handle_startendtag(self, tag, attrs):
        self.attrs_check(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.problems.append("%s: </%s> closes %s" % (self.where(), tag,
                                 "<%s> of %s" % self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    c = Check()
    c.feed(text)
    c.close()
    for tag, at in c.stack:
        c.problems.append("<%s> of %s never closed" % (tag, at))
    if not text.startswith("<!DOCTYPE html>"):
        c.problems.append("no <!DOCTYPE html>")
    print("figures: " + " ".join(c.figures))
    for p in c.problems[:20]:
        print("problem: " + p)
    return 1 if c.problems else 0


sys.exit(main())
