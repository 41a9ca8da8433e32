# SPDX-License-Identifier: GPL-3.0-or-later
"""The analysers of test/e2e/driver.sh: weft serve driven through
contrib/python/weft_driver.py (and, for the wire itself, raw sockets).

    python3 driver_test.py WEFT TOP TMP TRACE

TRACE is a weft synth trace. Every check prints "ok NAME" or "FAIL NAME:
WHY" (driver.sh counts them). Expected results come from weft query
--json with the same patterns: what each analyser got must equal what a
separate weft query printed, in order. Nothing here depends on the
machine's speed: waits are generous timeouts, and the one pause (at B's
stops, to let the others read what they can) can only hide a fault that
slow machines would make, never invent one.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

WEFT, TOP, TMP, TRACE = sys.argv[1:5]
sys.path.insert(0, os.path.join(TOP, "contrib", "python"))
import weft_driver  # noqa: E402

TIMEOUT = 300  # seconds any one read may wait: only a hang reaches it


def ok(name):
    print("ok " + name, flush=True)


def fail(name, why):
    print("FAIL %s: %s" % (name, str(why).replace("\n", " | ")[:600]), flush=True)


def check(name, cond, why=""):
    if cond:
        ok(name)
    else:
        fail(name, why)


def query(patterns, trace=TRACE, extra=()):
    """weft query --json: (event lines as dicts, the summary object)."""
    out = subprocess.run([WEFT, "query", "--json", *extra, trace, *patterns], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    lines = [json.loads(x) for x in out.splitlines()]
    return [x for x in lines if "labels" in x], lines[-1]["summary"]


SERVERS = []  # killed at the end if a failed test left one running


def serve(sock, *args, trace=TRACE, log="serve.log"):
    """Start weft serve; returns the process once its socket is there."""
    err = open(os.path.join(TMP, log), "w")
    p = subprocess.Popen([WEFT, "serve", "--socket", sock, *args, trace], stderr=err)
    SERVERS.append(p)
    deadline = time.time() + TIMEOUT
    while not os.path.exists(sock):
        if p.poll() is not None or time.time() > deadline:
            raise RuntimeError("weft serve did not start: exit %s" % p.poll())
        time.sleep(0.01)
    return p


def finished(p, name):
    try:
        rc = p.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "killed (hung)"
    check(name, rc == 0, "weft serve exited %s" % rc)


def connect(sock):
    c = weft_driver.connect(sock)
    c._sock.settimeout(TIMEOUT)
    return c


def recorder(c):
    """Every event message c gets, as weft query --json would print it."""
    got = []
    c.observe(lambda labels, ev, stop: got.append(dict({"labels": labels}, **ev)))
    return got


class Runner(threading.Thread):
    """c.run() in a thread; the summary or the exception kept."""

    def __init__(self, c):
        super().__init__(daemon=True)
        self.c, self.summary, self.error = c, None, None

    def run(self):
        try:
            self.summary = self.c.run()
        except Exception as e:  # reported by the test
            self.error = e


def same_events(name, got, want):
    if got == want:
        ok("%s (%d messages)" % (name, len(got)))
        return
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            fail(name, "message %d: got %s, expected %s" % (i, g, w))
            return
    fail(name, "%d messages, expected %d" % (len(got), len(want)))


def pattern_summary(summary, label):
    return next((p for p in summary["patterns"] if p["label"] == label), None)


# ---- three analysers at once -------------------------------------------------

A = ['a: when mcv = "OHp" do current(chrono, tid, state.ovni)',
     'ac: when model = "O" and cat = "M" do count(tid)']
B = 'b: when mcv = "OHe" do_synchro current(chrono)'
C1 = 'c1: when mcv = "OHr" do current(chrono, tid)'
# C's own stops, where it adds and removes c2 (from the next event on)
CS = ['cs: when chrono = 10000 do_synchro current(chrono)', 'ce: when chrono = 20000 do_synchro current(chrono)']
C2 = ('c2: when mcv in ["OHp", "OHr"] and tid > 0 do current(chrono, mcv), count',
      'mcv in ["OHp", "OHr"] and tid > 0', 'current(chrono, mcv), count')
# and c3, added and removed while the replay runs, wherever it then is
C3 = ('c3: when mcv = "OHp" do current(tid)', 'mcv = "OHp"', 'current(tid)')


def three_analysers():
    sock = os.path.join(TMP, "three", "s")
    srv = serve(sock, "--wait", "3")
    ca, cb, cc = connect(sock), connect(sock), connect(sock)
    got_a, got_b, got_c = recorder(ca), recorder(cb), recorder(cc)
    last = {"a": -1, "c": -1}
    stops, currents, early = [], [], []

    def seen(key):
        def fn(labels, ev, stop):
            last[key] = max(last[key], ev.get("chrono", -1))
        return fn

    ca.observe(seen("a"))
    cc.observe(seen("c"))
    counted = [0]
    ca.add(A[0], lambda ev: counted.__setitem__(0, counted[0] + 1))
    ca.add(A[1])

    def at_b(ev):
        stops.append(ev["chrono"])
        currents.append(cb.current(["time", "tid"]))
        time.sleep(0.05)  # the others read what they can meanwhile
        if last["a"] > ev["chrono"] or last["c"] > ev["chrono"]:
            early.append((ev["chrono"], last["a"], last["c"]))

    cb.add(B, at_b)
    span = {}

    def at_c1(ev):
        span["n"] = span.get("n", 0) + 1
        if span["n"] == 100:
            cc.add(C3[0])
            span["from3"] = cc.last_reply["from"]
        elif span["n"] == 300:
            span["removed3"] = cc.remove("c3")
            span["until3"] = cc.last_reply["until"]

    def at_cs(ev):
        cc.add(C2[0])
        span["from"] = cc.last_reply["from"]

    def at_ce(ev):
        span["removed"] = cc.remove("c2")
        span["until"] = cc.last_reply["until"]

    cc.add(C1, at_c1)
    cc.add(CS[0], at_cs)
    cc.add(CS[1], at_ce)
    runs = [Runner(x) for x in (ca, cb, cc)]
    for r in runs:
        r.start()
    for r in runs:
        r.join(TIMEOUT)
    finished(srv, "three analysers: the server ends well")
    errors = [r.error for r in runs if r.error]
    check("three analysers: each runs to the end", not errors, errors)

    want_a, sum_a = query(A)
    same_events("A (asynchronous) gets what weft query prints", got_a, want_a)
    check("A's summary is weft query's", runs[0].summary == sum_a, "%s vs %s" % (runs[0].summary, sum_a))
    check("A's handler saw every match", counted[0] == len(want_a), "%d vs %d" % (counted[0], len(want_a)))

    want_b, sum_b = query([B.replace("do_synchro", "do"), 'bx: when mcv = "OHe" do current(time, tid)'])
    chronos = [x["chrono"] for x in want_b]
    check("B stops at exactly its matching events", stops == chronos and len(chronos) > 1,
          "stops %s, matches %s" % (stops, chronos))
    check("B's messages all say stop, and equal weft query's",
          got_b == [{"labels": ["b"], "chrono": x} for x in chronos], got_b[:3])
    check("B's current(time, tid) at each stop is weft query's",
          currents == [{"time": x["time"], "tid": x["tid"]} for x in want_b], "%s vs %s" % (currents[:2], want_b[:2]))
    check("nothing reaches A or C past a stop before B's go", not early, early)

    f, u = span.get("from"), span.get("until")
    f3, u3 = span.get("from3"), span.get("until3")
    check("C added and removed c2 at its stops, and c3 while the replay ran",
          f == 10001 and u == 20001 and f3 is not None and u3 is not None and f3 <= u3,
          "c2 from %s until %s, c3 from %s until %s" % (f, u, f3, u3))
    if f is not None and u is not None and f3 is not None and u3 is not None and f3 <= u3:
        want = [C1, *CS, "c2: when (%s) and chrono in %d..%d do %s" % (C2[1], f, u - 1, C2[2])]
        if f3 < u3:
            want.append("c3: when (%s) and chrono in %d..%d do %s" % (C3[1], f3, u3 - 1, C3[2]))
        want_c, sum_c = query(want)
        same_events("C gets what weft query prints with c2 and c3 over [from, until)", got_c, want_c)
        check("c2's summary when removed is weft query's", span["removed"] == pattern_summary(sum_c, "c2"),
              "%s vs %s" % (span["removed"], pattern_summary(sum_c, "c2")))
        s3 = pattern_summary(sum_c, "c3") or {"label": "c3", "matches": 0}
        check("c3's summary when removed is weft query's", span["removed3"] == s3, "%s vs %s" % (span["removed3"], s3))
        check("C's final summary has c1, cs and ce, as weft query counts them",
              runs[2].summary["patterns"] == [pattern_summary(sum_c, x) for x in ("c1", "cs", "ce")],
              runs[2].summary)


# ---- the wire, raw ---------------------------------------------------------------

class Raw:
    """A client that writes bytes and reads lines itself."""

    def __init__(self, sock):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(TIMEOUT)
        self.s.connect(sock)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data if isinstance(data, bytes) else data.encode())

    def line(self):
        while b"\n" not in self.buf:
            d = self.s.recv(65536)
            if not d:
                return None
            self.buf += d
        x, self.buf = self.buf.split(b"\n", 1)
        return x.decode()

    def ask(self, req):
        self.send(req + "\n")
        return self.line()


def the_wire():
    sock = os.path.join(TMP, "wire", "s")
    srv = serve(sock, "--wait", "3")
    d = connect(sock)  # a second analyser, counting everything meanwhile
    got_d = recorder(d)
    d.add('d: when mcv = "OHp" do current(chrono)')
    d.add('dn: when true do count')
    rd = Runner(d)
    rd.start()
    r = Raw(sock)
    hello = r.line()
    check("hello names the protocol, the trace and the start",
          hello == '{"hello":{"protocol":1,"weft":"%s","trace":%s,"models":true,"at":"start","chrono":0,'
          '"analyser":2}}' % (json.loads(hello)["hello"]["weft"], json.dumps(TRACE)), hello)
    exact = [
        ('{"protocol":1}', '{"ok":"protocol","protocol":1}'),
        ('{"protocol":2}', '{"error":"protocol: this server speaks protocol 1 only","request":"protocol"}'),
        ('{"add":"s: when mcv = \\"OHe\\" do_synchro current(tid), call(f)"}',
         '{"ok":"add","label":"s","from":0,"sync":true,"calls":["f"]}'),
        ('{"add":"s: when true do count"}',
         '{"error":"add, column 1: label \\"s\\" is already used by another pattern","request":"add"}'),
        ('{"add":"d: when mcv = \\"OHe\\" do count"}', '{"ok":"add","label":"d","from":0,"sync":false,"calls":[]}'),
        ('{"list":true}', '{"ok":"list","patterns":[{"label":"s","pattern":"s: when mcv = \\"OHe\\" do_synchro '
         'current(tid), call(f)","sync":true},{"label":"d","pattern":"d: when mcv = \\"OHe\\" do count",'
         '"sync":false}]}'),
        ('{"current":["tid"]}', '{"error":"current: no event yet (the replay has not begun)","request":"current"}'),
        ('{"summary":true}', '{"ok":"summary","summary":{"events":0,"patterns":[{"label":"s","matches":0},'
         '{"label":"d","matches":0,"count":0}]}}'),
        ('{"go":true}', '{"ok":"go"}'),
        # the replay waits for a third analyser: this one is not stopped
        ('{"go":true}', '{"error":"go: the replay is not waiting for you","request":"go"}'),
    ]
    for req, want in exact:
        got = r.ask(req)
        check("reply to %s" % req[:60], got == want, "got %s" % got)
    third = connect(sock)
    rt = Runner(third)
    rt.start()
    # the first stop: its line, then current, step, the step's stop
    first = json.loads(r.line())
    check("a do_synchro match is one line that says stop, with its calls (d, counting, is named too)",
          first.get("labels") == ["s", "d"] and first.get("stop") is True and first.get("calls") == ["f"]
          and list(first) == ["labels", "stop", "calls", "tid"], first)
    cur = json.loads(r.ask('{"current":"chrono, state.ovni"}'))
    check("current at a stop names the event and its state before it",
          cur.get("ok") == "current" and cur["values"]["state.ovni"] in ("Running", "Cooling", "Paused")
          and cur["chrono"] == cur["values"]["chrono"] and list(cur["values"]) == ["chrono", "state.ovni"], cur)
    check("remove of a label one does not have is refused",
          json.loads(r.ask('{"remove":"nope"}')).get("error", "").startswith("remove: you have no pattern"), "")
    check("step resumes", r.ask('{"step":true}') == '{"ok":"step"}', "")
    step = json.loads(r.line())
    nxt = json.loads(r.ask('{"current":["chrono"]}'))
    check("a step stops at the very next event", step.get("stop") is True
          and nxt.get("values") == {"chrono": cur["chrono"] + 1}, "%s %s" % (step, nxt))
    rem = json.loads(r.ask('{"remove":"s"}'))
    check("remove answers with the pattern's summary and where it ended",
          rem.get("ok") == "remove" and rem.get("until") == cur["chrono"] + 2
          and rem.get("summary", {}).get("label") == "s" and rem["summary"]["matches"] >= 1, rem)
    check("reset removes every pattern", r.ask('{"reset":true}') == '{"ok":"reset","removed":1}', "")
    check("go when stopped again", r.ask('{"go":true}') == '{"ok":"go"}', "")
    rest = []
    while True:
        x = r.line()
        if x is None:
            break
        rest.append(json.loads(x))
    check("the end: summary (no patterns left), then end; then the server closes",
          len(rest) == 2 and rest[0] == {"summary": {"events": rest[1]["end"]["events"], "patterns": []}}
          and rest[1]["end"]["events"] > 0, rest[-2:])
    rd.join(TIMEOUT)
    rt.join(TIMEOUT)
    finished(srv, "the wire: the server ends well")
    want_d, sum_d = query(['d: when mcv = "OHp" do current(chrono)', 'dn: when true do count'])
    same_events("an analyser beside all that gets what weft query prints", got_d, want_d)
    check("... and its summary", rd.summary == sum_d, rd.summary)


# ---- robustness --------------------------------------------------------------------

BAD = [
    "not json", "{", "[]", "{}", '{"a":1,"b":2}', '{"bogus":true}', '{"add":5}', '{"add":"x: when"}',
    '{"add":"x: when tid = 1 do count count"}', '{"remove":"nope"}', '{"remove":7}', '{"current":5}',
    '{"current":["nosuch"]}', '{"protocol":2}', '{"protocol":"1"}', '"go"', "17", "null",
    '{"add":"x: when loom = \\"a\\u0000b\\" do count"}', '{"add":"x: when state.bogus = 1 do count"}',
    "\x01\x02\xff", '{"go":true} trailing', '{"go"}', '{"add":"' + "(" * 2000 + '"}',
]


def robustness():
    sock = os.path.join(TMP, "robust", "s")
    fifo = os.path.join(TMP, "fifo")
    os.mkfifo(fifo)
    names_a_file = ['{"file":"%s"}' % fifo, '{"open":"%s"}' % fifo, '{"add":"%s"}' % fifo,
                    '{"trace":"%s"}' % fifo, '{"add":"@%s"}' % fifo, '{"clock":"%s"}' % fifo]
    srv = serve(sock, "--wait", "5", "--stall", "5", "--buffer", "64k", log="robust.log")
    # D counts all along and must see exactly what weft query prints
    d = connect(sock)
    got_d = recorder(d)
    D = ['d: when mcv in ["OHp", "OHe"] do current(chrono, tid)', 'dn: when true do count(mcv)']
    for p in D:
        d.add(p)
    rd = Runner(d)
    # K: synchronous, killed at its first stop (the replay waits for it)
    k = subprocess.Popen([sys.executable, "-c", """
import sys, time
sys.path.insert(0, sys.argv[2])
import weft_driver
c = weft_driver.connect(sys.argv[1])
def at(ev):
    print("stopped", ev["chrono"], flush=True)
    time.sleep(3600)
c.add('k: when mcv = "OHe" do_synchro current(chrono)', at)
c.run()
""", sock, os.path.join(TOP, "contrib", "python")], stdout=subprocess.PIPE)
    # N: never reads, asks for a message per event
    n = Raw(sock)
    n.send('{"add":"n: when true do current(chrono, desc)"}\n{"go":true}\n')
    # E: 1,000 malformed requests (and requests naming a FIFO: reading it would hang), then normal use
    e = Raw(sock)
    e.line()  # hello
    bad = [BAD[i % len(BAD)] for i in range(1000 - len(names_a_file) - 1)] + names_a_file
    bad.append("x" * (weft_driver.PROTOCOL * (1 << 20) + 10))  # longer than a request may be
    e.send("\n".join(bad) + "\n")
    replies = [e.line() for _ in bad]
    errs = [json.loads(x) for x in replies if x is not None]
    check("1,000 malformed requests get 1,000 errors, one each, on that connection",
          len(errs) == 1000 and all(list(x) in (["error"], ["error", "request"]) for x in errs),
          [x for x in errs if "error" not in x][:3] or len(errs))
    check("... which say what is wrong", any("is not JSON" in x["error"] for x in errs)
          and any("unknown request" in x["error"] for x in errs)
          and any("at most 1048576 bytes" in x["error"] for x in errs)
          and any("a NUL" in x["error"] or "NUL" in x["error"] for x in errs), errs[:5])
    check("E then works: add", json.loads(e.ask('{"add":"e: when mcv = \\"OHe\\" do count"}')).get("ok") == "add", "")
    check("E then works: go", e.ask('{"go":true}') == '{"ok":"go"}', "")
    # G: synchronous, closes its connection at its stop without a go
    g = Raw(sock)
    g.line()
    g.ask('{"add":"g: when mcv = \\"OHe\\" do_synchro current(chrono)"}')
    g.ask('{"go":true}')
    rd.start()
    line = k.stdout.readline().decode().split()
    check("K stopped the replay at its stop", line[:1] == ["stopped"], line)
    k.send_signal(signal.SIGKILL)
    k.wait()
    # G's first stop (after K's death the replay goes on)
    x = json.loads(g.line())
    check("G is stopped by its pattern", x.get("stop") is True, x)
    g.s.close()  # a disconnect while the replay waits counts as go
    e_rest = []
    while True:
        x = e.line()
        if x is None:
            break
        e_rest.append(json.loads(x))
    rd.join(TIMEOUT)
    finished(srv, "robustness: the server ends well")
    want_d, sum_d = query(D)
    same_events("a killed client, one that never reads, one that leaves at its stop and 1,000 bad requests: "
                "D gets what weft query prints", got_d, want_d)
    check("... and D's summary", rd.summary == sum_d, rd.summary)
    want_e = pattern_summary(query(['e: when mcv = "OHe" do count'])[1], "e")
    check("E's count after its bad requests is weft query's",
          len(e_rest) == 2 and e_rest[0]["summary"]["patterns"] == [want_e], e_rest)
    log = open(os.path.join(TMP, "robust.log")).read()
    check("the reader that never reads was disconnected after --stall", "took none of its" in log, log[-300:])


# ---- --plain -------------------------------------------------------------------------

def plain():
    sock = os.path.join(TMP, "plain", "s")
    srv = serve(sock, "--plain")
    c = connect(sock)
    got = recorder(c)
    try:
        c.add('st: when state.ovni = Running do count')
        fail("--plain refuses state.<model>", "added")
    except weft_driver.Error as e:
        check("--plain refuses state.<model>", "needs the models" in str(e), e)
    P = ['p: when mcv = "OHx" do current(chrono, time, clock, loom, tid)', 'q: when cat = "M" do sum(value)']
    for p in P:
        c.add(p)
    s = c.run()
    finished(srv, "--plain: the server ends well")
    want, ws = query(P)
    same_events("--plain: what weft query prints", got, want)
    check("--plain: the summary", s == ws, s)


# ---- the models only when an analyser needs them ---------------------------------------

def models_auto(opt):
    """One analyser with no pattern on the models starts the replay and
    reads nothing, so that it waits on its full queue; one that comes then
    is told whether the models run, and its pattern on state.ovni is
    refused without them (by default), taken with --models."""
    name = "models " + (opt or "by default")
    sock = os.path.join(TMP, "auto" + opt, "s")
    srv = serve(sock, "--buffer", "4k", *([opt] if opt else []))
    r = Raw(sock)
    h = json.loads(r.line())["hello"]
    check(name + ": before the start the hello says the models may run", h["models"] is True, h)
    r.ask('{"add":"all: when true do current(chrono)"}')
    r.send('{"go":true}\n')
    while "labels" not in r.line():  # the replay has begun
        pass
    c = connect(sock)
    want = opt == "--models"
    check(name + ": a later hello says whether they run", c.hello["models"] is want and c.hello["at"] == "running",
          c.hello)
    try:
        c.add('st: when state.ovni = Running do count')
        check(name + ": a later pattern on state.ovni", want, "added without the models")
    except weft_driver.Error as e:
        check(name + ": a later pattern on state.ovni", not want and "needs the models" in str(e), e)
    rc = Runner(c)
    rc.start()
    n = 1
    while True:
        x = r.line()
        if x is None or x.startswith('{"end"'):
            break
        n += x.startswith('{"labels"')
    rc.join(TIMEOUT)
    finished(srv, name + ": the server ends well")
    check(name + ": every event reached the first analyser", n == query(['all: when true do count'])[1]["events"],
          n)


# ---- shards: an analyser whose shard fills up moves, counts and all -------------------

def shards():
    sock = os.path.join(TMP, "shards", "s")
    srv = serve(sock, "--wait", "2")
    a, b = connect(sock), connect(sock)
    PA = ['a%d: when mcv = "OHp" and tid = %d do count' % (k, 100000 + k) for k in range(60)]
    for p in PA:
        a.add(p)
    got_b = recorder(b)
    PB = ['b0: when mcv = "OHx" do current(chrono, tid)', 'b1: when cat = "M" do count(tid), sum(value)',
          'b2: when mcv = "OHp" do last, current(chrono)']
    B3 = 'b3: when chrono = 10000 do_synchro current(chrono)'
    B4 = ('b4: when mcv = "OHr" do current(chrono, tid)', 'mcv = "OHr"', 'current(chrono, tid)')
    more = {}

    def at_b3(ev):
        b.add(B4[0])  # b's shard is full (60 + 4): its patterns move to another
        more["from"] = b.last_reply["from"]
        k = 5
        try:
            while k < 70:
                b.add('x%d: when tid = %d do count' % (k, k))
                k += 1
        except weft_driver.Error as e:
            more["error"] = str(e)
        more["n"] = k
        for x in range(5, k):
            b.remove("x%d" % x)

    for p in PB:
        b.add(p)
    b.add(B3, at_b3)
    ra, rb = Runner(a), Runner(b)
    ra.start()
    rb.start()
    ra.join(TIMEOUT)
    rb.join(TIMEOUT)
    finished(srv, "shards: the server ends well")
    check("shards: 64 patterns per analyser, the 65th refused",
          more.get("n") == 64 and "at most 64 per analyser" in more.get("error", ""), more)
    f = more.get("from")
    check("shards: the pattern added at the stop applies from the next event", f == 10001, f)
    want, ws = query(PB + [B3, "b4: when %s and chrono >= %s do %s" % (B4[1], f, B4[2])])
    same_events("shards: the analyser that moved gets what weft query prints", got_b, want)
    check("shards: ... and its counts, from before the move too, are weft query's", rb.summary == ws,
          "%s vs %s" % (rb.summary, ws))
    check("shards: the other analyser's counts are weft query's", ra.summary == query(PA)[1], ra.summary)


for t in (three_analysers, the_wire, robustness, plain, lambda: models_auto(""), lambda: models_auto("--models"),
          shards):
    try:
        t()
    except Exception as e:
        fail(t.__name__, "%s: %s" % (type(e).__name__, e))
for p in SERVERS:
    if p.poll() is None:
        p.kill()
        p.wait()
