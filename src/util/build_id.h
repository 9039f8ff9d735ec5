/* The identity of the Kiln binary this code runs in. */
#ifndef KILN_UTIL_BUILD_ID_H
#define KILN_UTIL_BUILD_ID_H

/* Hex of the GNU build-id note of the object holding Kiln (the shared
 * library, or a test executable that links it statically), which the
 * linker derives from the code itself: any change to Kiln gives another.
 * Without a note, the version and the time this file was compiled.
 * Static storage; computed once. */
const char *kiln_build_id(void);

#endif
