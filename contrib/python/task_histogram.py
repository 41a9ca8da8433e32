#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A live histogram of task durations, as an analyser of weft serve.

    weft serve TRACE --socket DIR/s &
    python3 contrib/python/task_histogram.py DIR/s [--every N] [--sync]

Task bodies are timed from their start to their end (nOS-V's VTx to VTe,
pauses included), binned by powers of two of nanoseconds, and the histogram
is redrawn on standard error every N bodies (default 1000) and printed on
standard output at the end. With --sync the redraws are synchronous, as the
paper's `synchronize` pattern: the replay waits while the histogram is
drawn (so what is shown is where the replay is).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import weft_driver  # noqa: E402


class Histogram:
    def __init__(self):
        self.started = {}   # (tid, task, body) -> time
        self.bins = {}      # log2 bin -> bodies
        self.done = 0

    def body(self, ev):
        key = (ev["tid"], ev["taskid"], ev["bodyid"])
        if ev["mcv"] == "VTx":
            self.started[key] = ev["time"]
        elif key in self.started:
            d = ev["time"] - self.started.pop(key)
            b = max(d, 1).bit_length() - 1
            self.bins[b] = self.bins.get(b, 0) + 1
            self.done += 1

    def lines(self):
        if not self.bins:
            return ["(no task body ended)"]
        top = max(self.bins.values())
        out = []
        for b in range(min(self.bins), max(self.bins) + 1):
            n = self.bins.get(b, 0)
            bar = "#" * (0 if top == 0 else (n * 50 + top - 1) // top)
            out.append("%12s ns %8d %s" % ("%d.." % (1 << b), n, bar))
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("socket")
    ap.add_argument("--every", type=int, default=1000)
    ap.add_argument("--sync", action="store_true")
    a = ap.parse_args()
    h = Histogram()
    c = weft_driver.connect(a.socket)

    def draw(ev=None):
        sys.stderr.write("after %d bodies, at %s ns:\n%s\n"
                         % (h.done, ev["time"] if ev else "?", "\n".join(h.lines())))

    def body(ev):
        h.body(ev)
        if not a.sync and h.done and h.done % a.every == 0 and ev["mcv"] == "VTe":
            draw(ev)

    c.add('body: when mcv in ["VTx", "VTe"] do current(time, mcv, tid, taskid, bodyid)', body)
    if a.sync:
        # every N-th end of a body (counted by the server) stops the replay
        c.add('redraw: when mcv = "VTe" and chrono > 0 do_synchro current(time), call(draw)')
        c.procedure("draw", lambda ev: draw(ev) if h.done % a.every == 0 else None)
    summary = c.run()
    print("task bodies: %d, events: %d" % (h.done, summary.get("events", 0)))
    print("\n".join(h.lines()))


if __name__ == "__main__":
    main()
