#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# summary.sh RESULTS...: counts per verdict, then per (verdict, class),
# most frequent first, of campaign.sh's results.txt files (a differing
# trace counts in each of its classes, "; "-separated).
set -u
cat "$@" | awk '
{
	n++; v[$2]++
	c = $0; sub(/^[^ ]* [^ ]* /, "", c)
	# a differing trace counts once in each of its classes
	m = split(c, part, "; ")
	for (i = 1; i <= m; i++) k[$2 " " part[i]]++
}
END {
	printf "%d cases\n", n
	for (x in v) printf "  %-22s %6d\n", x, v[x] | "sort -k2 -n -r"
	close("sort -k2 -n -r")
	print "classes:"
	for (x in k) printf "%6d  %s\n", k[x], x | "sort -n -r"
}'
