/* KILN_PERF_MAP: names for the CPU device's JIT'd code in perf's map
 * file, /tmp/perf-<pid>.map ("start size name" per function), which
 * `perf report` and `perf top` read for code no file on disk holds. */
#ifndef KILN_LLVM_PERF_MAP_H
#define KILN_LLVM_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>

/* The functions of a loaded program not yet written to the map. */
struct kiln_perf_map;

/* True when KILN_PERF_MAP asks for the map (read once per process). */
bool kiln_perf_map_on(void);

/* Notes the global functions an object defines (an object kiln_elf_check
 * accepted), with their sizes; the first object noted is the program's
 * base.  Creates *map at the first call.  A debug aid: what cannot be
 * noted (out of memory) is left out of the map, silently. */
void kiln_perf_map_note(struct kiln_perf_map **map, const void *object, size_t size);

/* After `name` was found at run time (its object is linked): writes the
 * functions of its object, and of the base, finding each with resolve
 * (NULL where it cannot), and forgets them. */
void kiln_perf_map_found(struct kiln_perf_map *map, const char *name,
                         void *(*resolve)(void *ctx, const char *name), void *ctx);

void kiln_perf_map_free(struct kiln_perf_map *map);

#endif
