# SPDX-License-Identifier: GPL-3.0-or-later
# Summarise a weft Paraver output of a VisAndOr log: time per state per agent
# (ns, from the state records of thread.prv), the number of communication
# records, and the number of labelled and-/or-nodes in thread.pcf.
#   awk -f summary.awk thread.row thread.pcf thread.prv
FILENAME ~ /\.row$/ {
	if ($1 == "LEVEL") { inth = ($2 == "THREAD"); next }
	if (inth && $1 == "agent") { nrow++; agent[nrow] = $2 }
	next
}
FILENAME ~ /\.pcf$/ {
	if ($0 == "") { intype = 0; next }
	if ($1 == "0" && ($2 == "1000" || $2 == "1020")) { intype = $2; next }
	if (intype && $1 != "VALUES") nodes[intype]++
	next
}
/^1:/ { split($0, f, ":"); t[agent[f[5]] " " f[8]] += f[7] - f[6]; next }
/^3:/ { comms++ }
END {
	for (k in t) print "agent " k " " t[k] | "sort -n -k2 -k3"
	close("sort -n -k2 -k3")
	print "comms " comms + 0
	print "and-nodes " nodes["1000"] + 0
	print "or-nodes " nodes["1020"] + 0
}
