#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""otf2cmp: does an OTF2 archive of weft hold what its Paraver output holds?

    otf2cmp.py PRVDIR OTF2DIR

PRVDIR holds thread.prv and cpu.prv, OTF2DIR the archive weft emu --otf2
wrote in the same run (read with otf2-print). Per row (thread rows are
locations 0.., CPU rows after them; a state channel's location is named
"ROW / CHANNEL"), as doc/otf2-output.md maps them:
  - the row's state records (begin, state) are the enters of its own
    location's regions ("state=N");
  - its event records (time, value) that are not 0 are, as a multiset, the
    enters of its channel locations' regions ("CHANNEL=N") and its metric
    records; a leave that no enter follows at its time is a record of 0,
    and those are among the row's records of 0 (Paraver also writes a 0
    that follows nothing: a fresh channel's first);
  - its communication records are its MPI_SENDs (time, receiver, tag) and
    the receivers' MPI_RECVs.
Prints the first differences and "N rows, M records: same" or exits 1.
"""
import collections
import re
import subprocess
import sys


def prv_rows(path):
    """Row index by appl:task:thread (header order), and the body's lines."""
    with open(path) as f:
        head = f.readline()
        body = f.readlines()
    m = re.match(r"#Paraver \([^)]*\):[^:]*:[^:]*:(\d+):(.*)$", head.strip())
    if not m:
        sys.exit(f"otf2cmp: {path}: not a Paraver header: {head.strip()}")
    napps, rest = int(m.group(1)), m.group(2)
    rows = {}
    # appl: ntasks(nthreads:node,...) separated by ':'
    for a, app in enumerate(re.findall(r"(\d+)\(([^)]*)\)", rest)[:napps], 1):
        for t, task in enumerate(app[1].split(","), 1):
            for th in range(1, int(task.split(":")[0]) + 1):
                rows[(a, t, th)] = len(rows)
    return rows, body


def prv_records(path):
    rows, body = prv_rows(path)
    states = collections.defaultdict(list)
    events = collections.defaultdict(collections.Counter)
    comms = collections.Counter()
    for line in body:
        f = line.strip().split(":")
        if not f or f[0] not in ("1", "2", "3"):
            continue
        r = rows.get((int(f[2]), int(f[3]), int(f[4])))
        if f[0] == "1":
            if int(f[7]):
                states[r].append((int(f[5]), int(f[7])))
        elif f[0] == "2":
            t = int(f[5])
            for k in range(6, len(f) - 1, 2):
                events[r][(t, int(f[k + 1]))] += 1
        else:
            rcv = rows.get((int(f[8]), int(f[9]), int(f[10])))
            comms[(r, int(f[5]), rcv, int(f[14]))] += 1
    return len(rows), states, events, comms


EV = re.compile(r"^(ENTER|LEAVE|METRIC|MPI_SEND|MPI_RECV)\s+(\d+)\s+(\d+)\s+(.*)$")


def otf2_records(anchor, nthreads):
    out = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"otf2cmp: otf2-print {anchor}: {out.stderr.strip()}")
    text = out.stdout
    locs, regions = {}, {}
    for m in re.finditer(r'^LOCATION\s+(\d+)\s+Name: "(.*?)" <', text, re.M):
        locs[int(m.group(1))] = m.group(2)
    for m in re.finditer(r'^REGION\s+(\d+)\s+Name: ".*?" <\d+> \(Aka\. "(.*?)" <', text, re.M):
        regions[int(m.group(1))] = m.group(2)
    # a channel location's row: the row location of the same name
    by_name = {n: i for i, n in locs.items() if " / " not in n}
    row_of = {}
    for i, n in locs.items():
        row_of[i] = by_name[n.split(" / ")[0]] if " / " in n else i
    out = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
    states = collections.defaultdict(list)
    events = collections.defaultdict(collections.Counter)
    zeros = collections.defaultdict(collections.Counter)
    comms = collections.Counter()
    pending = {}  # channel location -> time of a leave not yet followed
    for line in out.stdout.splitlines():
        m = EV.match(line)
        if not m:
            continue
        kind, loc, t, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        row = row_of[loc]
        if loc in pending and (pending[loc] != t or kind != "ENTER"):
            zeros[row][(pending.pop(loc), 0)] += 1
        if kind in ("ENTER", "LEAVE"):
            name = regions[int(re.search(r"<(\d+)>", rest).group(1))]
            chan, value = name.rsplit("=", 1)
            if chan == "state" and " / " not in locs[loc]:
                if kind == "ENTER":
                    states[row].append((t, int(value)))
                continue
            if kind == "ENTER":
                pending.pop(loc, None)
                events[row][(t, int(value))] += 1
            else:
                pending[loc] = t
        elif kind == "METRIC":
            value = int(re.search(r"INT64; (-?\d+)\)", rest).group(1))
            (events if value else zeros)[row][(t, value)] += 1
        elif kind == "MPI_SEND":
            rcv = int(re.search(r"Receiver: (\d+)", rest).group(1))
            tag = int(re.search(r"Tag: (\d+)", rest).group(1))
            comms[(row, t, rcv, tag)] += 1
    for loc, t in pending.items():
        zeros[row_of[loc]][(t, 0)] += 1
    return locs, states, events, zeros, comms


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    prvdir, otf2dir = sys.argv[1], sys.argv[2]
    nth, st, ev, cm = prv_records(f"{prvdir}/thread.prv")
    ncpu, cst, cev, _ = prv_records(f"{prvdir}/cpu.prv")
    for r in range(ncpu):  # CPU rows follow the thread rows
        st[nth + r], ev[nth + r] = cst.get(r, []), cev.get(r, collections.Counter())
    locs, ost, oev, oz, ocm = otf2_records(f"{otf2dir}/traces.otf2", nth)
    bad, nrec = [], 0
    for r in range(nth + ncpu):
        name = locs.get(r, f"location {r}")
        if sorted(st.get(r, [])) != sorted(ost.get(r, [])):
            bad.append(f"{name}: states: prv {sorted(st.get(r, []))[:5]} otf2 {sorted(ost.get(r, []))[:5]}")
        pv = ev.get(r, collections.Counter())
        nz = collections.Counter({k: n for k, n in pv.items() if k[1]})
        if nz != oev.get(r, collections.Counter()):
            d1 = list((nz - oev[r]).items())[:3]
            d2 = list((oev[r] - nz).items())[:3]
            bad.append(f"{name}: events only in prv {d1}, only in otf2 {d2}")
        z = collections.Counter({k: n for k, n in pv.items() if not k[1]})
        if oz.get(r) and oz[r] - z:
            bad.append(f"{name}: zeros only in otf2 {list((oz[r] - z).items())[:3]}")
        nrec += sum(pv.values()) + len(st.get(r, []))
    if cm != ocm:
        bad.append(f"communications: prv {sum(cm.values())} otf2 {sum(ocm.values())}; "
                   f"only in prv {list((cm - ocm).items())[:3]}")
    for b in bad[:20]:
        print(b)
    if bad:
        sys.exit(1)
    print(f"{nth + ncpu} rows, {nrec} records, {sum(cm.values())} messages: same")


main()
