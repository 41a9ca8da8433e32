/* ovni model (O) event table: thread life cycle, affinity, marks, flushes,
 * unordered regions and bursts (ovni-trace-format.md §8.2). */
#include "model.h"

static const struct weft_evdecl ovni_events[] = {
	{"OHx", 0, "i32 cpu, i32 creator, u64 tag",
	 "starts running on cpu %{cpu} (created by thread %{creator}, tag %{tag})"},
	{"OHC", 0, "i32 cpu, u64 tag", "creates a thread that will run on cpu %{cpu} (tag %{tag})"},
	{"OHp", 0, "", "pauses"},
	{"OHr", 0, "", "resumes"},
	{"OHc", 0, "", "cools down before sleeping"},
	{"OHw", 0, "", "warms up after waking"},
	{"OHe", 0, "", "ends"},
	{"OAs", 0, "i32 cpu", "moves itself to cpu %{cpu}"},
	{"OAr", 0, "i32 cpu, i32 tid", "moves thread %{tid} to cpu %{cpu}"},
	{"OCn", 0, "i32 ncpus", "reports %{ncpus} cpus (obsolete)"},
	{"OF[", 0, "", "starts flushing its buffer"},
	{"OF]", 0, "", "stops flushing its buffer"},
	{"OU[", 0, "", "opens an unordered region"},
	{"OU]", 0, "", "closes an unordered region"},
	{"OB.", 0, "", "emits a burst probe"},
	{"OM[", 0, "i64 value, i32 type", "pushes value %{value} on mark type %{type}"},
	{"OM]", 0, "i64 value, i32 type", "pops value %{value} from mark type %{type}"},
	{"OM=", 0, "i64 value, i32 type", "sets mark type %{type} to value %{value}"},
};

const struct weft_model_def model_ovni = {
	'O', "ovni", "1.1.0", ovni_events, (int) (sizeof(ovni_events) / sizeof(ovni_events[0])),
};
