# SPDX-License-Identifier: GPL-3.0-or-later
"""weft_driver: write analysers of a `weft serve` replay in Python.

`weft serve TRACE --socket PATH` replays a trace once for any number of
analysers; this module is one analyser's side of the line protocol of
doc/driver.md (JSON lines, protocol 1), with the standard library only.

    import weft_driver

    c = weft_driver.connect("/run/user/1000/weft/s")
    c.add('ends: when mcv = "OHe" do current(time, tid)', on_end)
    c.add('rare: when mcv = "OHp" and tid = 7 do_synchro current(time)', on_rare)
    summary = c.run()

A handler is called with a dict of the attributes the pattern's
current(...) asked for (or weft query's defaults), once per matching event,
in the replay's order. At a match of a do_synchro pattern the replay waits
until the handler returns (that is the analyser's go); inside such a
handler c.current(["tid", "state.ovni"]) returns more attributes of the
stopped event, and c.add/c.remove/c.reset change the patterns from the next
event on. A pattern with call(NAME) calls procedure NAME instead (set it
with c.procedure(NAME, fn); by default the handler given to add).

run() returns the final summary: {"events": N, "patterns": [{"label": ...,
"matches": M, "count": ..., "count(attr)": [[value, n], ...], ...}]},
the object weft query --json prints last. Errors of the server (a pattern
that does not parse...) raise weft_driver.Error.
"""

import json
import socket

PROTOCOL = 1

__all__ = ["connect", "Connection", "Error", "PROTOCOL"]


class Error(Exception):
    """The server refused a request, or the connection ended too early."""


def connect(path):
    """Connect to the weft serve socket at path; returns a Connection."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return Connection(s)


class Connection:
    """One analyser: its patterns and handlers over one replay."""

    def __init__(self, sock):
        self._sock = sock
        self._in = sock.makefile("rb")
        self._queue = []        # messages read while waiting for a reply
        self._patterns = {}     # label -> (handler, calls)
        self._procedures = {}   # call(NAME) -> function
        self._observers = []    # fn(labels, event) for every event
        self._stopped = False   # the replay waits for our go
        self._ended = None      # the end's summary, once it came
        self._summary = None
        self.last_reply = None  # the server's last reply, e.g. {"ok": "add", "from": N, ...}
        hello = self._read()
        if hello is None or "hello" not in hello:
            raise Error("no weft serve at the other end (no hello)")
        self.hello = hello["hello"]
        if self.hello.get("protocol") != PROTOCOL:
            raise Error("the server speaks protocol %r, this module %d"
                        % (self.hello.get("protocol"), PROTOCOL))
        # at the start, the replay waits for everybody's first go (run's)
        self._stopped = self.hello.get("at") == "start"

    # ---- the wire ----

    def _read(self):
        line = self._in.readline()
        if not line:
            return None
        return json.loads(line)

    def _send(self, obj):
        self._sock.sendall((json.dumps(obj, separators=(",", ":")) + "\n").encode())

    def _request(self, name, value=True):
        """Send one request; messages before its reply are kept for run()."""
        self._send({name: value})
        while True:
            m = self._read()
            if m is None:
                raise Error("the server closed the connection (request %s)" % name)
            if "ok" in m:
                self.last_reply = m
                return m
            if "error" in m:
                raise Error(m["error"])
            self._queue.append(m)

    # ---- the primitives of the tracer driver ----

    def add(self, pattern, handler=None):
        """Add a pattern (weft query's syntax); handler(event) is called for
        each match. Returns the label. Applies from the next event."""
        r = self._request("add", pattern)
        label = r["label"]
        self._patterns[label] = (handler, r.get("calls", []))
        for name in r.get("calls", []):
            if handler is not None:
                self._procedures.setdefault(name, handler)
        return label

    def procedure(self, name, fn):
        """The function that call(name) in a pattern calls."""
        self._procedures[name] = fn

    def observe(self, fn):
        """fn(labels, event, stop) for every event message, before its
        handlers (a log of what this analyser got, in order)."""
        self._observers.append(fn)

    def remove(self, label):
        """Remove a pattern; returns its summary (matches, counts)."""
        r = self._request("remove", label)
        self._patterns.pop(label, None)
        return r.get("summary")

    def reset(self):
        """Remove every pattern; returns how many there were."""
        r = self._request("reset")
        self._patterns.clear()
        return r.get("removed")

    def current(self, attrs=()):
        """More attributes of the event the replay is stopped at, as a dict
        (only inside the handler of a do_synchro pattern)."""
        if not self._stopped:
            raise Error("current: the replay is not stopped for this analyser")
        return self._request("current", list(attrs))["values"]

    def summary(self):
        """Counts and sums so far (the summary object)."""
        return self._request("summary")["summary"]

    def run(self):
        """Handle messages until the replay ends; returns the summary."""
        if self._stopped:
            self._go()
        while self._ended is None:
            m = self._queue.pop(0) if self._queue else self._read()
            if m is None:
                raise Error("the server closed the connection before the end")
            self._handle(m)
        return self._ended

    # ---- messages ----

    def _go(self):
        self._stopped = False
        self._request("go")

    def _handle(self, m):
        if "labels" in m:
            stop = m.pop("stop", False)
            labels = m.pop("labels")
            calls = m.pop("calls", None)
            self._stopped = bool(stop)
            try:
                for fn in self._observers:
                    fn(labels, dict(m, calls=calls) if calls is not None else dict(m), bool(stop))
                for label in labels:
                    self._dispatch(label, m)
            finally:
                if stop and self._ended is None:
                    self._go()
        elif "summary" in m:
            self._summary = m["summary"]
        elif "end" in m:
            end = m["end"]
            if "error" in end:
                raise Error("the replay failed: " + end["error"])
            self._ended = self._summary if self._summary is not None else {}

    def _dispatch(self, label, event):
        entry = self._patterns.get(label)
        if entry is None:
            return  # removed by an earlier handler of this event
        handler, calls = entry
        if calls:
            for name in calls:
                fn = self._procedures.get(name, handler)
                if fn is not None:
                    fn(dict(event))
        elif handler is not None:
            handler(dict(event))

    def close(self):
        """Leave (the replay goes on without this analyser)."""
        try:
            self._in.close()
        finally:
            self._sock.close()
