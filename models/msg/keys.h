/* keys: the messages waiting for their other end, per matching key
 * (source processor, destination processor, message type), each with a
 * FIFO of sends and one of receives (legacy-formats.md §5). An open-
 * addressing table finds a key in one or two cache lines; keys are also
 * kept in the order they were first seen, so reports are deterministic.
 * Private to the msg model. */
#ifndef WEFT_MSG_KEYS_H
#define WEFT_MSG_KEYS_H

#include <stddef.h>
#include <stdint.h>

struct emu_thread;

struct pend {
	uint64_t id;             /* sends: comm id */
	uint64_t ltime, ptime;   /* sends: lsend; receives: lrecv, precv */
	struct emu_thread *th;   /* the sender (sends) or the receiver (receives) */
};

struct fifo {              /* a ring; the first element lives inline */
	struct pend *v;
	uint32_t head, n, cap;
	struct pend one;
};

struct key {
	int32_t src, dst, tag;
	struct fifo sends, recvs;
};

/* Slots hold the key's fields, so a probe reads one cache line. */
struct keyslot {
	int32_t src, dst, tag;
	uint32_t used;
	struct key *k;
};

struct keytab {
	struct keyslot *slot;
	size_t cap, used;
	struct key **order;      /* first-seen order */
	size_t norder, corder;
};

/* The key's entry, created empty when new. */
struct key *keytab_get(struct keytab *t, int32_t src, int32_t dst, int32_t tag);
void keytab_free(struct keytab *t);

void fifo_push(struct fifo *f, const struct pend *p);
struct pend fifo_pop(struct fifo *f);

#endif
