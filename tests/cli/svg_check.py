"""Read a gnuplot SVG back: each plot's title and what it drew, so a test
can check a figure holds its data (tests/cli/test_plot.sh).

usage: svg_check.py FILE.svg   prints one line per plot:
    TITLE<TAB>COORDS<TAB>MARKS<TAB>TEXTS<TAB>IMAGE
TITLE: its key entry's text (the first text it holds; "-" if none);
COORDS: the points of its paths (M and L); MARKS: point symbols drawn
(<use> at a translate); TEXTS: texts it holds (a key entry, labels);
IMAGE: WIDTHxHEIGHT of an embedded PNG, or -.
Exits 1 if the file is not well-formed XML.
"""
import base64
import re
import struct
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"


def png_size(href):
    data = base64.b64decode(href.split(",", 1)[1])
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "-"
    w, h = struct.unpack(">II", data[16:24])
    return f"{w}x{h}"


def main(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        print(f"{path}: {e}", file=sys.stderr)
        return 1
    plots = [g for g in root.iter(SVG + "g") if g.get("id", "").startswith("gnuplot_plot_")]
    for g in plots:
        texts = ["".join(t.itertext()).strip() for t in g.iter(SVG + "text")]
        coords = sum(len(re.findall(r"[ML]\s*-?[\d.]+,-?[\d.]+", p.get("d", "")))
                     for p in g.iter(SVG + "path"))
        marks = sum(1 for u in g.iter(SVG + "use") if "translate" in u.get("transform", ""))
        print(f"{texts[0] if texts else '-'}\t{coords}\t{marks}\t{len(texts)}\t-")
    # images sit beside the plot groups in gnuplot's SVG
    for im in root.iter(SVG + "image"):
        href = im.get(XLINK, "")
        if href.startswith("data:image/png;base64,"):
            print(f"image\t0\t0\t0\t{png_size(href)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
