/* model: the data every model folder provides.
 * An event table row is one MCV with its payload signature and a sentence
 * template; it is the single description shared by dump, top, query, the
 * emulator and the docs. Adding an event to a model is adding one row.
 *
 * Signature: comma-separated "TYPE name" with TYPE one of u8 u16 u32 u64 i8
 * i16 i32 i64 str (str: NUL-terminated tail), laid out back to back from
 * payload offset 0; jumbo events count from the jumbo data. An empty
 * signature means no payload. Template: text where %{name} inserts a field. */
#ifndef WEFT_MODEL_H
#define WEFT_MODEL_H

struct emu;
struct weft_ev;
struct evinfo;
struct weft_err;

/* How the emulator handles one event: 0 ok, -1 fatal error (err filled),
 * 1 the event was rejected and skipped (--keep-going). */
typedef int (*weft_handler)(struct emu *e, const struct weft_ev *ev, const struct evinfo *in,
			    struct weft_err *err);

struct weft_evdecl {
	const char *mcv;      /* three characters */
	int jumbo;            /* 1 if written as a jumbo event */
	const char *sig;      /* payload signature */
	const char *desc;     /* sentence template */
	weft_handler handler; /* NULL: the emulator does not model it yet */
};

struct weft_model_def {
	char id;              /* model character */
	const char *name;     /* ovni's name for it ("ovni", "nosv", ...) */
	const char *version;  /* model version weft implements, "" if none */
	const struct weft_evdecl *events;
	int nevents;          /* 0: weft knows the model's name only */
};

/* Every model weft knows, by character; NULL if unknown. */
const struct weft_model_def *model_by_id(char id);
/* All known models in character order; returns the count. */
int model_all(const struct weft_model_def *const **out);

extern const struct weft_model_def model_ovni;
extern const struct weft_model_def model_kernel;
extern const struct weft_model_def model_mpi;

#endif
