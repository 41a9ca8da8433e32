#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# summary.sh RESULTS...: counts per verdict, then per (verdict, class),
# most frequent first, of campaign.sh's results.txt files (a differing
# trace counts in each of its classes, "; "-separated), with the family of
# each disagreement (the class of issue 23 its message points at).
set -u
cat "$@" | awk '
{
	n++; v[$2]++
	c = $0; sub(/^[^ ]* [^ ]* /, "", c)
	# a differing trace counts once in each of its classes
	m = split(c, part, "; ")
	for (i = 1; i <= m; i++) k[$2 " " part[i]]++
	f = family($2, c)
	if (f != "-") fam[$2 ": " f]++
}
# the family of a class: the issue-23 class it belongs to, by the words
# of its message (first match)
function family(v, c) {
	if (v == "agree" || v == "both-refuse-same") return "-"
	if (c ~ /steps type weft/) return "diff-tool: rows of one name"
	if (c ~ /steps/) return "values (steps)"
	if (v == "differ") return "records/order (see classes)"
	if (c ~ /threads running at (the same time|once)/) return "6 tie order: 2 threads on a CPU"
	if (c ~ /o:[^ ]*\|(.*unknown .*event|.*unexpected .*value)/ || (v == "ovniemu-only-refuses" && c ~ /unknown .*event|unexpected .*value/)) return "5 unknown events"
	if (c ~ /out of CPU/) return "events of a paused thread"
	if (c ~ /mark type N$|while flushing/) return "3 lint: marks, flushes at the end"
	if (c ~ /payload of N bytes/) return "4 payload sizes"
	if (c ~ /unordered region|OU\]|OU\[/) return "4 unordered regions"
	if (c ~ /clock goes backwards/) return "clock back (OU[ marker)"
	return "other"
}
END {
	printf "%d cases\n", n
	for (x in v) printf "  %-22s %6d\n", x, v[x] | "sort -k2 -n -r"
	close("sort -k2 -n -r")
	print "families:"
	for (x in fam) printf "%6d  %s\n", fam[x], x | "sort -n -r"
	close("sort -n -r")
	print "classes:"
	for (x in k) printf "%6d  %s\n", k[x], x | "sort -n -r"
}'
