/* keys: the messages waiting for their other end, per matching key
 * (source processor, destination processor, message type), in a FIFO
 * (legacy-formats.md §5). A key's waiting ends are all sends or all
 * receives (an end that finds the other kind waiting is matched instead),
 * so each key has one FIFO and a direction. Keys live in one array in the
 * order they were first seen (reports are deterministic), 64 bytes each
 * with the FIFO's first element inline: a lookup reads one small index
 * slot (hash bits and the key's position; the index stays in cache) and
 * the key's cache line. Private to the msg model. */
#ifndef WEFT_MSG_KEYS_H
#define WEFT_MSG_KEYS_H

#include <stddef.h>
#include <stdint.h>

struct emu_thread;

struct pend {              /* a waiting end */
	uint64_t a, b;         /* sends: comm id, lsend; receives: lrecv, precv */
	struct emu_thread *th; /* the sender or the receiver */
};

enum { KEY_SENDS, KEY_RECVS };

struct key {
	int32_t src, dst, tag;
	uint32_t n;            /* ends waiting (first in `first`, the rest in `ring`) */
	uint8_t dir;           /* KEY_SENDS or KEY_RECVS, when n > 0 */
	uint32_t head, cap;    /* ring of the ends after the first */
	struct pend first;
	struct pend *ring;
} __attribute__((aligned(64)));

struct keytab {
	uint64_t *slot;        /* hash bits << 32 | key position + 1; 0 = empty */
	uint32_t bits;         /* 1 << bits slots, at most half used */
	struct key *key;       /* by position, first-seen order (32-bit) */
	size_t n, cap;
	void *keymem;          /* the allocation holding `key` */
};

static inline uint64_t key_hash(int32_t src, int32_t dst, int32_t tag)
{
	uint64_t z = ((uint64_t) (uint32_t) src << 32 | (uint32_t) dst) * 0x9e3779b97f4a7c15ull;
	z ^= (uint64_t) (uint32_t) tag * 0xc2b2ae3d27d4eb4full;
	return z ^ (z >> 29);
}

struct key *keytab_add(struct keytab *t, int32_t src, int32_t dst, int32_t tag, uint64_t h);

/* The key's entry, created empty when new. The pointer is valid until the
 * next lookup. */
static inline struct key *keytab_get(struct keytab *t, int32_t src, int32_t dst, int32_t tag)
{
	uint64_t h = key_hash(src, dst, tag);
	if (__builtin_expect(t->slot != NULL, 1)) {
		uint64_t mask = ((uint64_t) 1 << t->bits) - 1, want = h >> 32 << 32;
		for (uint64_t j = h & mask;; j = (j + 1) & mask) {
			uint64_t s = t->slot[j];
			if (!s)
				break;
			if ((s & ~0xffffffffull) == want) {
				struct key *k = &t->key[(uint32_t) s - 1];
				if (k->src == src && k->dst == dst && k->tag == tag)
					return k;
			}
		}
	}
	return keytab_add(t, src, dst, tag, h);
}

void keytab_free(struct keytab *t);

/* Queue an end (of direction dir: the key holds none of the other). */
void key_push_slow(struct key *k, const struct pend *p);

static inline void key_push(struct key *k, int dir, const struct pend *p)
{
	if (k->n == 0) {
		k->first = *p;
		k->dir = (uint8_t) dir;
		k->n = 1;
		return;
	}
	key_push_slow(k, p);
}

/* The oldest end (k->n > 0), removed. */
static inline struct pend key_pop(struct key *k)
{
	struct pend p = k->first;
	if (--k->n) {
		k->first = k->ring[k->head];
		k->head = k->head + 1 == k->cap ? 0 : k->head + 1;
	}
	return p;
}

/* The ends waiting of direction dir. */
static inline uint32_t key_waiting(const struct key *k, int dir)
{
	return k->n && k->dir == dir ? k->n : 0;
}

#endif
