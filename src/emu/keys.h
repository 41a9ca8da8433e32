/* SPDX-License-Identifier: GPL-3.0-or-later */
/* keys: the messages waiting for their other end, per matching key
 * (source processor, destination processor, message type), in a FIFO
 * (doc/formats/legacy.md §5). A key's waiting ends are all sends or all
 * receives (an end that finds the other kind waiting is matched instead),
 * so each key has one FIFO and a direction.
 *
 * Only keys with ends waiting are in the table (open addressing, 64 bytes
 * a key with the FIFO's first element inline): a log has many keys (64
 * processors exchanging 8 types: 32 k) but few waiting at once, so a lookup
 * stays in cache. The end report names keys in the order they were first
 * seen: the keys a lookup did not find go to a short log, moved in batches
 * (their cache lines fetched together) into the set of every key seen with
 * its order. Used by the matcher (match.h), for any model pairing messages. */
#ifndef WEFT_EMU_KEYS_H
#define WEFT_EMU_KEYS_H

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
	uint32_t n;            /* ends waiting (first in `first`, the rest in `ring`); 0: a free entry */
	uint8_t dir;           /* KEY_SENDS or KEY_RECVS */
	uint32_t head, cap;    /* ring of the ends after the first (kept by a free entry, for reuse) */
	struct pend first;
	struct pend *ring;
} __attribute__((aligned(64)));

struct seenkey {
	int32_t src, dst, tag;
	uint32_t order;        /* 1, 2, ... in first-seen order; 0: empty */
};

#define KEY_LOG 64

struct keytab {
	struct key *key;       /* 1 << bits entries, at most half used */
	uint32_t bits;
	uint32_t hint;         /* the free entry where keytab_find's lookup ended */
	size_t n;
	void *keymem;          /* the allocation holding `key` */
	struct seenkey *seen;  /* 1 << sbits entries, at most half used */
	uint32_t sbits, nseen;
	int nlog;
	int32_t log[KEY_LOG][3]; /* keys not found, not yet in `seen` */
};

static inline uint64_t key_hash(int32_t src, int32_t dst, int32_t tag)
{
	uint64_t z = ((uint64_t) (uint32_t) src << 32 | (uint32_t) dst) * 0x9e3779b97f4a7c15ull;
	z ^= (uint64_t) (uint32_t) tag * 0xc2b2ae3d27d4eb4full;
	return z ^ (z >> 29);
}

void keytab_log_flush(struct keytab *t);

/* The key's waiting ends, or NULL when none wait (the key is then noted
 * as seen). The pointer is valid until the next push or pop. */
static inline struct key *keytab_find(struct keytab *t, int32_t src, int32_t dst, int32_t tag)
{
	if (__builtin_expect(t->key != NULL, 1)) {
		uint64_t mask = ((uint64_t) 1 << t->bits) - 1;
		for (uint64_t j = key_hash(src, dst, tag) & mask;; j = (j + 1) & mask) {
			struct key *k = &t->key[j];
			if (!k->n) {
				t->hint = (uint32_t) j;
				break;
			}
			if (k->src == src && k->dst == dst && k->tag == tag)
				return k;
		}
	}
	if (__builtin_expect(t->nlog == KEY_LOG, 0))
		keytab_log_flush(t);
	int32_t *l = t->log[t->nlog++];
	l[0] = src, l[1] = dst, l[2] = tag;
	return NULL;
}

/* A new key with one end, when the table must grow first. */
void keytab_insert(struct keytab *t, int32_t src, int32_t dst, int32_t tag, int dir, const struct pend *p);
/* Queue one more end on a key found with ends of the same direction. */
void key_push_slow(struct key *k, const struct pend *p);
/* Removes the key (its last end was taken) when entries after it may have
 * to move up. */
void keytab_remove(struct keytab *t, struct key *k);

/* An end for key (src, dst, tag) of direction dir; k what keytab_find
 * returned just before (NULL or a key with ends of this direction): a new
 * key goes to the free entry where that lookup ended. */
static inline void keytab_push(struct keytab *t, struct key *k, int32_t src, int32_t dst, int32_t tag, int dir,
			       const struct pend *p)
{
	if (k) {
		key_push_slow(k, p);
		return;
	}
	if (__builtin_expect(!t->key || 2 * (t->n + 1) > ((size_t) 1 << t->bits), 0)) {
		keytab_insert(t, src, dst, tag, dir, p);
		return;
	}
	k = &t->key[t->hint];
	k->src = src, k->dst = dst, k->tag = tag;
	k->n = 1;
	k->dir = (uint8_t) dir;
	k->head = 0; /* a ring left by an earlier key is kept */
	k->first = *p;
	t->n++;
}

/* The oldest end of k (k->n > 0), removed; the key leaves the table with
 * its last end. */
static inline struct pend keytab_pop(struct keytab *t, struct key *k)
{
	struct pend p = k->first;
	if (--k->n) {
		k->first = k->ring[k->head];
		k->head = k->head + 1 == k->cap ? 0 : k->head + 1;
	} else if (!t->key[(uint64_t) (k - t->key + 1) & (((uint64_t) 1 << t->bits) - 1)].n) {
		k->n = 0; /* nothing after it to move up: free the entry */
		t->n--;
	} else {
		keytab_remove(t, k);
	}
	return p;
}

/* The ends waiting of direction dir. */
static inline uint32_t key_waiting(const struct key *k, int dir)
{
	return k && k->dir == dir ? k->n : 0;
}

/* The keys with ends waiting, in the order they were first seen: *out (an
 * array to free) and their number. */
size_t keytab_waiting(struct keytab *t, struct key ***out);

void keytab_free(struct keytab *t);

#endif
