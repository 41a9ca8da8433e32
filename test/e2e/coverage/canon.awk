# SPDX-License-Identifier: GPL-3.0-or-later
# Canonical form of a Paraver .prv body, for comparison with results worked
# out by hand (test/e2e/coverage/README.md). One line per fact:
#   S APPL.TASK.THREAD BEGIN END STATE      a state record whose value is in SLO..SHI
#   E APPL.TASK.THREAD TIME TYPE VALUE      the value an event type in TLO..THI
#                                      takes at TIME (of several at one
#                                      instant, the last, as Paraver shows)
#   C APPL.TASK.THREAD LSEND PSEND > APPL.TASK.THREAD LRECV PRECV SIZE TAG
#   U APPL.TASK.THREAD LSEND PSEND SIZE TAG (a '#' line: a send never received)
# Records of other types (ovni's own process, thread and CPU values) are
# left out; zero padding is removed. The caller sorts the lines.
# With -v pcf=TYPE it prints instead the labels of that event type of a
# .pcf, one line each: L TYPE VALUE LABEL.
#   awk -F: -v slo=30 -v shi=39 -v tlo=1040 -v thi=1057 -f canon.awk thread.prv
pcf != "" {
	if ($0 ~ /^EVENT_TYPE/ || $0 == "") { inv = 0; hit = 0; next }
	if ($0 ~ /^[0-9]+ +[0-9]+ /) { split($0, w, " "); hit = (w[2] == pcf); next }
	if ($0 ~ /^VALUES/) { inv = hit; next }
	if (inv) { v = $0; sub(/ .*/, "", v); l = $0; sub(/^[^ ]* +/, "", l); print "L", pcf, v, l }
	next
}
FNR == 1 { next }
function obj(i) { return ($i + 0) "." ($(i + 1) + 0) "." ($(i + 2) + 0) }
$1 == "1" && $8 + 0 >= slo && $8 + 0 <= shi {
	print "S", obj(3), $6 + 0, $7 + 0, $8 + 0
	next
}
$1 == "2" {
	for (i = 7; i < NF; i += 2)
		if ($i + 0 >= tlo && $i + 0 <= thi)
			ev[obj(3) " " ($6 + 0) " " ($i + 0)] = $(i + 1)
	next
}
$1 == "3" {
	print "C", obj(3), $6 + 0, $7 + 0, ">", obj(9), $12 + 0, $13 + 0, $14 + 0, $15 + 0
	next
}
$1 == "#" {
	print "U", obj(3), $6 + 0, $7 + 0, $14 + 0, $15 + 0
}
END {
	for (k in ev)
		print "E", k, ev[k]
}
