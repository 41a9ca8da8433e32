/* visandor_synth: `weft synth --format visandor` writes a large, valid
 * VisAndOr log (deterministic). AND logs look like Ciao's writer (width-8
 * right-aligned timestamps, trailing blank): agent 0 runs the root goal and
 * forks 2 tasks again and again, running task 0 itself while another agent
 * runs task 1, then joins. OR logs: agent 0 makes a node public with one
 * branch per agent; each agent runs its branch and ends it with success or
 * failure (every third one is suspended, then resumed and ended by the next
 * agent once that one has ended its own). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "visandor_synth.h"

static const char help[] =
	"Usage: weft synth --format visandor -o FILE [--kind and|or] [--agents N] [-n EVENTS]\n"
	"\n"
	"Write a synthetic VisAndOr log of about EVENTS events (default 100000) over N\n"
	"agents (default 4, at least 2): an and-parallel log in Ciao's layout, or an\n"
	"or-parallel one. Times are in microseconds, one event per microsecond or so.\n";

struct vs {
	FILE *f;
	uint64_t t, n;
};

static void ev(struct vs *s, int code, uint64_t node, long f4, int agent)
{
	s->t += 1 + (s->n * 7 % 5);
	fprintf(s->f, "%8llu %d %llX %ld %X %d \n", (unsigned long long) s->t, code, (unsigned long long) node,
		f4, 0x1000u + (unsigned) agent, agent);
	s->n++;
}

static void gen_and(struct vs *s, int agents, uint64_t events)
{
	ev(s, 5, 0, 0, 0);
	uint64_t k = 0;
	while (s->n + 7 < events) {
		int other = 1 + (int) (k % (uint64_t) (agents - 1));
		uint64_t node = 0x100 + (k % 3); /* Ciao reuses Nodeids after JOIN */
		ev(s, 1, node, 2, 0);
		ev(s, 2, node, 0, 0);
		ev(s, 2, node, 1, other);
		ev(s, 3, node, 0, 0);
		ev(s, 3, node, 1, other);
		ev(s, 4, node, 2, 0);
		k++;
	}
	ev(s, 6, 0, 0, 0);
}

static void gen_or(struct vs *s, int agents, uint64_t events)
{
	ev(s, 5, 0, 0, 0);
	uint64_t node = 1;
	while (s->n + 4 * (uint64_t) agents + 2 < events) {
		ev(s, 20, node, agents, 0);
		for (int a = 0; a < agents; a++)
			ev(s, 21, node, a, a);
		for (int a = 0; a < agents; a++)
			ev(s, a % 3 == 2 ? 24 : a % 2 ? 23 : 22, node, a, a);
		for (int a = 2; a < agents; a += 3) {
			ev(s, 25, node, a, (a + 1) % agents);
			ev(s, 22, node, a, (a + 1) % agents);
		}
		node++;
	}
	ev(s, 6, 0, 0, 0);
}

int synth_visandor(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'}, {"kind", required_argument, NULL, 'k'},
		{"agents", required_argument, NULL, 'a'}, {"events", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *kind = "and";
	long agents = 4;
	unsigned long long events = 100000;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:n:h", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'o': out = optarg; break;
		case 'k': kind = optarg; break;
		case 'a':
			agents = strtol(optarg, &end, 10);
			if (*end || agents < 2 || agents > 100000)
				return cli_usage_error("synth", "--agents: expected 2 to 100000, found '%s'", optarg);
			break;
		case 'n':
			events = strtoull(optarg, &end, 10);
			if (*end || events == 0)
				return cli_usage_error("synth", "--events: expected a positive count, found '%s'", optarg);
			break;
		case 'h': fputs(help, stdout); return 0;
		default: return cli_usage_error("synth", "unknown option (see 'weft synth --format visandor --help')");
		}
	}
	if (!out)
		return cli_usage_error("synth", "--format visandor: missing -o FILE");
	if (strcmp(kind, "and") != 0 && strcmp(kind, "or") != 0)
		return cli_usage_error("synth", "--kind: expected and or or, found '%s'", kind);
	struct vs s = {0};
	s.f = fopen(out, "w");
	if (!s.f) {
		fprintf(stderr, "weft: error: %s: cannot create\n", out);
		return 3;
	}
	static char buf[1 << 20];
	setvbuf(s.f, buf, _IOFBF, sizeof(buf));
	fprintf(s.f, "%d\n", kind[0] == 'o');
	if (kind[0] == 'a')
		gen_and(&s, (int) agents, events);
	else
		gen_or(&s, (int) agents, events);
	if (fclose(s.f) != 0) {
		fprintf(stderr, "weft: error: %s: write failed\n", out);
		return 3;
	}
	return 0;
}

const struct synth_format synth_format_visandor = {
	"visandor", "VisAndOr logs (--kind and|or, --agents N, -n EVENTS)", synth_visandor,
};
