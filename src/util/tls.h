/* The TLS model for Kiln's thread-local variables. */
#pragma once

/* libKilnOpenCL.so is dlopen()ed by the ICD loader.  Without an
 * initial-exec variable glibc gives each thread the library's TLS block
 * lazily, malloc()ed inside __tls_get_addr; with one, the block (80
 * bytes) goes into the static TLS that glibc reserves for such libraries
 * at dlopen time, as Mesa's drivers do.  Access is a plain offset from
 * the thread pointer, and GCC 12's LeakSanitizer no longer has to guess a
 * malloc()ed block's extent under ASan: it guesses wrong when the block
 * starts 16 bytes into a page, and its tracer then faults scanning
 * garbage ("Tracer caught signal 11"), failing whichever test drew that
 * address. */
#define KILN_TLS_MODEL __attribute__((tls_model("initial-exec")))
