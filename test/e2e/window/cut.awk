# SPDX-License-Identifier: GPL-3.0-or-later
# cut.awk -v from=A -v to=B: the window [A, B] of a .prv body, as Paraver's
# cutter gives it: states clipped (zero-length ones dropped), events in
# [A, B], communications wholly in the window; times minus A.
BEGIN { FS = OFS = ":" }
NR == 1 { next }
$1 == "1" { b = $6 + 0; e = $7 + 0; if (e <= from || b > to) next
	if (b < from) b = from; if (e > to) e = to; if (e <= b) next
	$6 = b - from; $7 = e - from; print; next }
$1 == "2" { t = $6 + 0; if (t < from || t > to) next; $6 = t - from; print; next }
$1 == "3" { ls = $6 + 0; lr = $12 + 0; pr = $13 + 0; ps = $7 + 0
	if (ls < from || ls > to || pr > to || lr > to) next
	for (i = 2; i <= NF; i++) $i = $i + 0
	$6 = ls - from; $7 = ps - from; $12 = lr - from; $13 = pr - from; print; next }
