/* The header every Kiln object starts with, and the registry of live
 * handles.
 *
 * cl_khr_icd requires the dispatch table pointer to be the first word of
 * every handle.  After it come a type tag and two counts:
 *   - refcount: the application's references (clRetain and clRelease calls).  When
 *     it reaches zero the handle leaves the registry, so any later use of it
 *     returns CL_INVALID_* instead of touching memory.
 *   - internal: references Kiln holds itself (a pending command holding its
 *     queue, a buffer holding its context, ...).  The application's
 *     references together count as one internal reference; the object is
 *     destroyed when internal reaches zero.
 */
#ifndef KILN_CORE_OBJECT_H
#define KILN_CORE_OBJECT_H

#include <CL/cl_icd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum kiln_type {
   KILN_TYPE_NONE = 0,
   KILN_TYPE_PLATFORM = 0x4b6c5001,
   KILN_TYPE_DEVICE,
   KILN_TYPE_CONTEXT,
   KILN_TYPE_QUEUE,
   KILN_TYPE_MEM,
   KILN_TYPE_PROGRAM,
   KILN_TYPE_KERNEL,
   KILN_TYPE_EVENT,
   KILN_TYPE_SAMPLER,
   KILN_TYPE_COMMAND_BUFFER,
};

struct kiln_object {
   const cl_icd_dispatch *dispatch; /* must stay first (cl_khr_icd) */
   enum kiln_type type;
   atomic_uint refcount;
   atomic_uint internal;
   /* In the registry (kiln_object_init); not for handles the application
    * never sees (kiln_object_init_unlisted). */
   bool listed;
   void (*destroy)(struct kiln_object *obj);
};

/* Memory for objects.  Freed objects go back to Kiln's own free lists,
 * never to malloc, and keep a valid dispatch pointer: an ICD loader reads
 * it from a handle before Kiln can check the handle, so a stale handle
 * must still lead to Kiln (which then answers CL_INVALID_*).  Returns
 * zeroed memory, or NULL. */
void *kiln_object_alloc(size_t size);
void kiln_object_free(void *obj);

/* The table installed in every handle; set once by the API layer. */
void kiln_object_set_dispatch(const cl_icd_dispatch *dispatch);

/* Gives obj one application reference and makes its handle valid.
 * Returns false when the registry cannot grow (out of host memory). */
bool kiln_object_init(struct kiln_object *obj, enum kiln_type type,
                      void (*destroy)(struct kiln_object *obj));

/* The same for an object whose handle the application never gets (the
 * event of a launch enqueued without an event pointer): its counts as
 * above, but it stays out of the registry, so creating and releasing it
 * costs no registry look-up (docs/performance.md, "Launch path").
 * Cannot fail. */
void kiln_object_init_unlisted(struct kiln_object *obj, enum kiln_type type,
                               void (*destroy)(struct kiln_object *obj));
/* How many memory objects have left the registry so far (their last
 * application reference went): while it stays the same, a memory object
 * found alive is still alive (kiln_kernel_args_live). */
uint64_t kiln_object_mems_gone(void);
/* Object for a handle if it is live and of the wanted type, else NULL.
 * Never dereferences a pointer that is not a live Kiln object. */
struct kiln_object *kiln_object_lookup(const void *handle, enum kiln_type type);

/* Application references (clRetain and clRelease calls). */
void kiln_object_retain(struct kiln_object *obj);
void kiln_object_release(struct kiln_object *obj);

/* Kiln's own references. */
void kiln_object_ref(struct kiln_object *obj);
void kiln_object_unref(struct kiln_object *obj);

static inline cl_uint kiln_object_refcount(const struct kiln_object *obj)
{
   return atomic_load(&((struct kiln_object *)obj)->refcount);
}

/* Number of live handles of a type (leak checks in tests and at exit). */
unsigned kiln_object_count_live(enum kiln_type type);

/* Calls fn for every live handle, with the registry locked (fn must not
 * create, look up or release handles). */
void kiln_object_foreach_live(void (*fn)(struct kiln_object *obj, void *data), void *data);

#endif
