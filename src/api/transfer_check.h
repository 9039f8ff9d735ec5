/* Argument checks shared by the transfer entry points (api/transfer.c)
 * and the command-buffer commands that record the same transfers
 * (api/command_buffer_record.c), so both answer alike. */
#ifndef KILN_API_TRANSFER_CHECK_H
#define KILN_API_TRANSFER_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/command.h"

/* [offset, offset + size) lies within total bytes. */
bool kiln_range_ok(size_t offset, size_t size, size_t total);
/* Fills in default pitches (0 means tightly packed); false for pitches
 * smaller than the region (CL_INVALID_VALUE in 5.2.2). */
bool kiln_rect_setup(struct kiln_rect *r, const size_t origin[3], const size_t region[3],
                     size_t row_pitch, size_t slice_pitch);
/* One past the last byte a rectangle touches, or SIZE_MAX on overflow. */
size_t kiln_rect_end(const struct kiln_rect *r, const size_t region[3]);
/* region is not NULL and has no zero extent. */
bool kiln_region_ok(const size_t *region);
/* A copy's source and destination share a byte of storage. */
bool kiln_copy_overlaps(cl_mem src, size_t so, cl_mem dst, size_t dof, size_t size);

#endif
