/* Polling before sleeping.  A thread that waits for something another
 * thread will do within microseconds (the next command of a queue, a
 * launch's work-groups, a command's completion) polls for a while before
 * it sleeps on a condition variable: waking a sleeper costs a system call
 * on one side and a trip through the scheduler on the other, tens of
 * microseconds on a busy machine, more than a small command takes.
 * KILN_SPIN_US sets how long (docs/env.md); 0 turns polling off. */
#ifndef KILN_UTIL_SPIN_H
#define KILN_UTIL_SPIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
static inline void kiln_cpu_relax(void)
{
   _mm_pause();
}
#elif defined(__aarch64__)
static inline void kiln_cpu_relax(void)
{
   __asm__ __volatile__("yield");
}
#else
static inline void kiln_cpu_relax(void)
{
}
#endif

static inline uint64_t kiln_monotonic_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* How long a waiter polls, in ns (KILN_SPIN_US, default 50 µs). */
uint64_t kiln_spin_ns(void);

/* Polls done(arg) for up to kiln_spin_ns(); true once it held.  The
 * clock is read every few dozen polls only. */
static inline bool kiln_spin_until(bool (*done)(void *), void *arg)
{
   uint64_t budget = kiln_spin_ns(), end = 0;
   if (!budget)
      return done(arg);
   for (unsigned i = 0;; i++) {
      if (done(arg))
         return true;
      kiln_cpu_relax();
      if (i % 64 == 0) {
         uint64_t t = kiln_monotonic_ns();
         if (!end)
            end = t + budget;
         else if (t >= end)
            return done(arg);
      }
   }
}

/* A mutex that spins a little before it sleeps (glibc's adaptive
 * kind), for locks that two threads take for a few instructions each on
 * every command (a queue's, an event's, the executor's): without it, one
 * side that finds the lock held sleeps in the kernel and the other wakes
 * it, which costs more than the command. */
void kiln_mutex_init_spinning(pthread_mutex_t *m);

#endif
