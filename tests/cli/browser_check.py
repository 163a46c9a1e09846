"""Load a page in a real headless browser (Debian's chromium, driven
through chromedriver by python3-selenium) and check what a reader would
see: the page loads with no console message at warning level or above
(an error in the page, a failed load, a bad SVG attribute), it fetches
nothing (no request in DevTools' network events but the page's own:
everything inline),
and each <figure class="plot"> holds an SVG or a canvas that the browser
laid out with an area and, for an SVG, drawn shapes whose bounding box is
not empty (a canvas: some pixel not transparent).

usage: browser_check.py PAGE.html [SCREENSHOT.png]
prints "plots N drawn D console C fetched F" and each problem; exits 0
when all is well, 1 on any problem, 3 when the browser does not start
(the message says why).
"""
import json
import os
import pathlib
import sys

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service

# For each plot: its id, its picture's kind and laid-out size, how many
# shapes it draws and the union of their boxes (SVG getBBox, in user units).
MEASURE = """
return Array.from(document.querySelectorAll('figure.plot')).map(function (f) {
  var r = {id: f.id, kind: 'none', w: 0, h: 0, shapes: 0, bw: 0, bh: 0, ink: 0};
  var svg = f.querySelector('svg'), cv = f.querySelector('canvas');
  var el = svg || cv;
  if (!el) return r;
  var box = el.getBoundingClientRect();
  r.kind = svg ? 'svg' : 'canvas'; r.w = box.width; r.h = box.height;
  if (svg) {
    var x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    svg.querySelectorAll('path, line, polyline, polygon, rect, circle, ellipse, use, text')
      .forEach(function (s) {
        var b; try { b = s.getBBox(); } catch (e) { return; }
        if (b.width <= 0 && b.height <= 0) return;
        r.shapes++;
        x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y);
        x1 = Math.max(x1, b.x + b.width); y1 = Math.max(y1, b.y + b.height);
      });
    if (r.shapes) { r.bw = x1 - x0; r.bh = y1 - y0; }
  } else {
    var d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
    for (var i = 3; i < d.length; i += 4) if (d[i]) r.ink++;
  }
  return r;
});
"""


def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    # root in a container: no setuid sandbox; /dev/shm may be small
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1200,900", "--no-first-run", "--disable-extensions"):
        opts.add_argument(a)
    # the console, and the DevTools network events (every request the page makes)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    svc = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=svc, options=opts)


def requests(d, page):
    """The URLs the page asked for, itself and data: URLs aside."""
    urls = []
    for e in d.get_log("performance"):
        m = json.loads(e["message"])["message"]
        if m.get("method") == "Network.requestWillBeSent":
            u = m["params"]["request"]["url"]
            if u != page and not u.startswith("data:"):
                urls.append(u)
    return urls


def main():
    page = pathlib.Path(sys.argv[1]).resolve()
    try:
        d = browser()
    except WebDriverException as e:
        print("the browser did not start: %s" % str(e).strip().splitlines()[0])
        return 3
    problems = []
    try:
        d.set_page_load_timeout(60)
        d.get(page.as_uri())
        state = d.execute_script("return document.readyState")
        if state != "complete":
            problems.append("page not loaded: readyState %s" % state)
        plots = d.execute_script(MEASURE)
        fetched = requests(d, page.as_uri())
        logs = [e for e in d.get_log("browser") if e.get("level") in ("WARNING", "SEVERE")]
        if len(sys.argv) > 2:
            d.save_screenshot(sys.argv[2])
    finally:
        d.quit()
    drawn = 0
    for p in plots:
        ok = p["w"] > 0 and p["h"] > 0 and (
            (p["kind"] == "svg" and p["shapes"] > 0 and p["bw"] > 0 and p["bh"] > 0) or
            (p["kind"] == "canvas" and p["ink"] > 0))
        drawn += ok
        print("plot %s: %s %dx%d, %d shapes, box %.0fx%.0f" % (
            p["id"], p["kind"], p["w"], p["h"], p["shapes"], p["bw"], p["bh"]))
        if not ok:
            problems.append("plot %s is empty or not laid out" % p["id"])
    for e in logs:
        problems.append("console %s: %s" % (e["level"], e["message"][:200]))
    for u in fetched:
        problems.append("fetched %s" % u[:200])
    print("plots %d drawn %d console %d fetched %d" % (len(plots), drawn, len(logs), len(fetched)))
    for p in problems:
        print("problem: " + p)
    return 1 if problems or not plots else 0


sys.exit(main())
