#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""plot_settle - draws tests/bench/settle.sh's samples as an SVG image.

  tests/bench/plot_settle.py CSV SVG [--title TEXT] [--subtitle TEXT]...

CSV: a header line "time_s,cpu0_busy,cpu1_busy,...,forwarded_fps,moves",
then a sample a line: seconds since the start, each CPU's busy share in
%, frames forwarded per second, and the buckets the balancer has moved
since it started (cumulative). SVG: two panels sharing the time axis,
each CPU's busy % above and the forwarded kframes/s below, with a dashed
vertical mark across both at each sample in which the balancer moved
buckets (labelled with how many). Python's standard library only.
"""
import argparse
import csv
import math
import sys
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 900, 600
LEFT, RIGHT, TOP, BOTTOM = 80, 170, 84, 55
GAP = 45                   # between the panels
TOP_SHARE = 0.55           # of the plotting height, for the CPU panel
# Line colours (Tableau 10); CPUs take them in turn.
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
FORWARDED = "#333333"
MOVE = "#d62728"


def read(path):
    """(times, {cpu column: [busy %]}, [forwarded fps], [moves])"""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2:
        sys.exit(f"plot_settle: {path} has no samples")
    head = rows[0]
    need = {"time_s", "forwarded_fps", "moves"}
    if not need <= set(head):
        sys.exit(f"plot_settle: {path} lacks a column of {', '.join(sorted(need))}")
    cpus = [h for h in head if h.startswith("cpu") and h.endswith("_busy")]
    col = {h: i for i, h in enumerate(head)}
    data = [r for r in rows[1:] if len(r) == len(head)]
    num = lambda r, h: float(r[col[h]])
    return ([num(r, "time_s") for r in data],
            {c: [num(r, c) for r in data] for c in cpus},
            [num(r, "forwarded_fps") for r in data],
            [num(r, "moves") for r in data])


def ticks(hi, want=5, cover=True):
    """Round tick values from 0, steps of 1, 2 or 5 x 10^k: to at least hi
    (cover), or to at most hi."""
    if hi <= 0:
        return [0, 1]
    raw = hi / want
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    n = math.ceil(hi / step - 1e-9) if cover else math.floor(hi / step + 1e-9)
    return [i * step for i in range(n + 1)]


def label(v):
    return f"{v:g}"


class Svg:
    def __init__(self):
        self.out = []

    def add(self, s):
        self.out.append(s)

    def text(self, x, y, s, size=12, anchor="start", extra=""):
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
                 f'text-anchor="{anchor}"{extra}>{escape(s)}</text>')

    def line(self, x1, y1, x2, y2, colour="#000", width=1, extra=""):
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                 f'stroke="{colour}" stroke-width="{width}"{extra}/>')

    def polyline(self, pts, colour, width=1.5):
        p = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        self.add(f'<polyline points="{p}" fill="none" stroke="{colour}" '
                 f'stroke-width="{width}" stroke-linejoin="round"/>')


class Panel:
    """A plotting area: x from 0 to xmax (seconds), y from 0 to ymax."""

    def __init__(self, top, height, xmax, ymax):
        self.top, self.height = top, height
        self.x0, self.width = LEFT, WIDTH - LEFT - RIGHT
        self.xmax, self.ymax = xmax, ymax

    def x(self, v):
        return self.x0 + self.width * v / self.xmax

    def y(self, v):
        return self.top + self.height * (1 - min(v, self.ymax) / self.ymax)

    def frame(self, svg, yticks, ylabel, xticks, xlabels):
        for t in yticks:
            svg.line(self.x0, self.y(t), self.x0 + self.width, self.y(t), "#e0e0e0")
            svg.line(self.x0 - 5, self.y(t), self.x0, self.y(t))
            svg.text(self.x0 - 8, self.y(t) + 4, label(t), 11, "end")
        bottom = self.top + self.height
        for t in xticks:
            svg.line(self.x(t), bottom, self.x(t), bottom + 5)
            if xlabels:
                svg.text(self.x(t), bottom + 18, label(t), 11, "middle")
        svg.add(f'<rect x="{self.x0}" y="{self.top}" width="{self.width}" '
                f'height="{self.height}" fill="none" stroke="#000"/>')
        cy = self.top + self.height / 2
        svg.text(self.x0 - 50, cy, ylabel, 12, "middle",
                 f' transform="rotate(-90 {self.x0 - 50:.1f} {cy:.1f})"')


def draw(path_csv, path_svg, title, subtitles):
    times, cpus, fwd, moves = read(path_csv)
    # The time axis ends with the last sample (a little after a round
    # number of seconds: taking a sample takes some ms).
    xmax = max(times)
    xt = ticks(xmax, 7, cover=False)
    kfps = [v / 1000 for v in fwd]
    ft = ticks(max(kfps) * 1.05 if kfps else 1)
    inner = HEIGHT - TOP - BOTTOM - GAP
    top = Panel(TOP, inner * TOP_SHARE, xmax, 100)
    low = Panel(TOP + inner * TOP_SHARE + GAP, inner * (1 - TOP_SHARE), xmax, ft[-1])

    svg = Svg()
    svg.add(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif">')
    svg.add(f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>')
    if title:
        svg.text(LEFT, 24, title, 15, extra=' font-weight="bold"')
    for i, sub in enumerate(subtitles):
        svg.text(LEFT, 42 + 15 * i, sub, 11, extra=' fill="#555"')
    top.frame(svg, [0, 25, 50, 75, 100], "CPU busy (%)", xt, False)
    low.frame(svg, ft, "forwarded (kframes/s)", xt, True)
    svg.text(low.x0 + low.width / 2, HEIGHT - 12, "time since the start (s)", 12, "middle")

    # A mark at each sample in which the moves count grew.
    marks = [(t, m - p) for t, m, p in zip(times, moves, [0.0] + moves[:-1]) if m > p]
    for t, n in marks:
        for p in (top, low):
            svg.line(p.x(t), p.top, p.x(t), p.top + p.height, MOVE, 1,
                     ' stroke-dasharray="4,3"')
        svg.text(top.x(t), top.top - 4, f"+{n:g}", 10, "middle", f' fill="{MOVE}"')

    for i, (name, vals) in enumerate(cpus.items()):
        svg.polyline([(top.x(t), top.y(v)) for t, v in zip(times, vals)],
                     COLOURS[i % len(COLOURS)])
    svg.polyline([(low.x(t), low.y(v)) for t, v in zip(times, kfps)], FORWARDED)

    # Legends, right of each panel.
    lx = WIDTH - RIGHT + 15
    entries = [(COLOURS[i % len(COLOURS)], name[:-len("_busy")].replace("cpu", "CPU "), "")
               for i, name in enumerate(cpus)]
    entries.append((MOVE, "balancer moved +N" if marks else "no balancer move",
                    ' stroke-dasharray="4,3"'))
    for j, (colour, name, dash) in enumerate(entries):
        y = top.top + 12 + 18 * j
        svg.line(lx, y, lx + 22, y, colour, 2, dash)
        svg.text(lx + 28, y + 4, name, 12)
    y = low.top + 12
    svg.line(lx, y, lx + 22, y, FORWARDED, 2)
    svg.text(lx + 28, y + 4, "forwarded", 12)
    svg.add("</svg>")
    with open(path_svg, "w") as f:
        f.write("\n".join(svg.out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="settle.sh's samples")
    ap.add_argument("svg", help="the image to write")
    ap.add_argument("--title", default="")
    ap.add_argument("--subtitle", action="append", default=[],
                    help="a line under the title (again: another line)")
    a = ap.parse_args()
    draw(a.csv, a.svg, a.title, a.subtitle)


if __name__ == "__main__":
    main()
