/* clCreateBuffer(WithProperties), clCreateSubBuffer, clRetain/ReleaseMemObject,
 * clGetMemObjectInfo, clSetMemObjectDestructorCallback. */
#include <string.h>

#include "api/api.h"
#include "kiln/cl_version.h"
#include "core/context.h"
#include "core/device.h"
#include "core/mem.h"
#include "core/svm.h"

#define ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOST_FLAGS (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define HOST_ACCESS_FLAGS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)

static bool at_most_one(cl_mem_flags f)
{
   return !(f & (f - 1));
}

bool kiln_api_valid_mem_flags(cl_mem_flags flags)
{
   if (flags & ~(cl_mem_flags)(ACCESS_FLAGS | HOST_FLAGS | HOST_ACCESS_FLAGS))
      return false;
   if (!at_most_one(flags & ACCESS_FLAGS) || !at_most_one(flags & HOST_ACCESS_FLAGS))
      return false;
   if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
      return false;
   return true;
}

bool kiln_api_flags_narrow(cl_mem_flags parent_flags, cl_mem_flags f)
{
   cl_mem_flags acc = parent_flags & ACCESS_FLAGS, host = parent_flags & HOST_ACCESS_FLAGS;
   if ((acc == CL_MEM_WRITE_ONLY && (f & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
       (acc == CL_MEM_READ_ONLY && (f & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))))
      return false;
   if ((host == CL_MEM_HOST_WRITE_ONLY && (f & CL_MEM_HOST_READ_ONLY)) ||
       (host == CL_MEM_HOST_READ_ONLY && (f & CL_MEM_HOST_WRITE_ONLY)) ||
       (host == CL_MEM_HOST_NO_ACCESS && (f & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))))
      return false;
   return true;
}

cl_mem_flags kiln_api_inherit_flags(cl_mem_flags parent_flags, cl_mem_flags f)
{
   if (!(f & ACCESS_FLAGS))
      f |= parent_flags & ACCESS_FLAGS;
   if (!(f & HOST_ACCESS_FLAGS))
      f |= parent_flags & HOST_ACCESS_FLAGS;
   return f | (parent_flags & HOST_FLAGS);
}

bool kiln_api_valid_map_flags(cl_map_flags flags)
{
   const cl_map_flags rw = CL_MAP_READ | CL_MAP_WRITE;
   if (flags & ~(rw | CL_MAP_WRITE_INVALIDATE_REGION))
      return false;
   return !((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & rw));
}

/* A size is invalid only when it exceeds every device's limit (5.2.1). */
static cl_ulong max_alloc(cl_context ctx)
{
   cl_ulong m = 0;
   for (cl_uint i = 0; i < ctx->num_devices; i++)
      if (ctx->devices[i]->caps->max_mem_alloc_size > m)
         m = ctx->devices[i]->caps->max_mem_alloc_size;
   return m;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags,
                                               size_t size, void *host_ptr, cl_int *errcode_ret)
{
   cl_context ctx = kiln_context_from(context);
   if (!ctx)
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   if (!kiln_api_valid_mem_flags(flags))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
   if (!size || size > max_alloc(ctx))
      API_FAIL_RET(errcode_ret, CL_INVALID_BUFFER_SIZE, "size %zu (max %llu)", size,
                   (unsigned long long)max_alloc(ctx));
   bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
   if (wants_ptr != (host_ptr != NULL))
      API_FAIL_RET(errcode_ret, CL_INVALID_HOST_PTR, "host_ptr %p with flags 0x%llx", host_ptr,
                   (unsigned long long)flags);
   /* 3.0: a buffer over SVM memory must fit in its allocation. */
   struct kiln_svm_block blk;
   if ((flags & CL_MEM_USE_HOST_PTR) && kiln_svm_find(ctx, host_ptr, 0, &blk) &&
       size > blk.size - (size_t)((char *)host_ptr - blk.ptr))
      API_FAIL_RET(errcode_ret, CL_INVALID_BUFFER_SIZE,
                   "size %zu: the SVM allocation at %p holds %zu bytes from host_ptr %p", size,
                   (void *)blk.ptr, blk.size - (size_t)((char *)host_ptr - blk.ptr), host_ptr);
   if (!(flags & ACCESS_FLAGS))
      flags |= CL_MEM_READ_WRITE;

   cl_mem mem = NULL;
   cl_int err = kiln_mem_create_buffer(ctx, flags, size, host_ptr, &mem);
   if (err)
      API_FAIL_RET(errcode_ret, err, "cannot create a buffer of %zu bytes", size);
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return mem;
}

/* OpenCL 3.0 defines no memory property of its own (the names come from
 * extensions Kiln does not offer: external memory, buffer device
 * address): any name is CL_INVALID_PROPERTY, an empty list is fine. */
cl_int kiln_api_check_mem_properties(const cl_mem_properties *properties, const char *func)
{
   if (properties && properties[0])
      return kiln_api_fail(func, CL_INVALID_PROPERTY, "unknown memory property 0x%llx",
                           (unsigned long long)properties[0]);
   return CL_SUCCESS;
}

cl_mem kiln_api_mem_set_properties(cl_mem mem, const cl_mem_properties *properties,
                                   cl_int *errcode_ret)
{
   if (!mem)
      return NULL;
   if (kiln_props_copy(&mem->props, properties)) {
      clReleaseMemObject(mem);
      kiln_set_error(errcode_ret, CL_OUT_OF_HOST_MEMORY);
      return NULL;
   }
   return mem;
}

/* OpenCL 3.0: clCreateBuffer with a property list (5.2.1). */
CL_API_ENTRY cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context context,
                                                             const cl_mem_properties *properties,
                                                             cl_mem_flags flags, size_t size,
                                                             void *host_ptr, cl_int *errcode_ret)
{
   if (!kiln_context_from(context))
      API_FAIL_RET(errcode_ret, CL_INVALID_CONTEXT, "%p is not a context", (void *)context);
   cl_int err = kiln_api_check_mem_properties(properties, __func__);
   if (err)
      API_FAIL_RET(errcode_ret, err, "bad properties");
   cl_mem mem = clCreateBuffer(context, flags, size, host_ptr, errcode_ret);
   return kiln_api_mem_set_properties(mem, properties, errcode_ret);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                                  cl_buffer_create_type buffer_create_type,
                                                  const void *buffer_create_info,
                                                  cl_int *errcode_ret)
{
   cl_mem parent = kiln_mem_from(buffer);
   if (!parent || parent->type != CL_MEM_OBJECT_BUFFER || parent->parent)
      API_FAIL_RET(errcode_ret, CL_INVALID_MEM_OBJECT, "%p is not a buffer", (void *)buffer);
   if (flags & ~(cl_mem_flags)(ACCESS_FLAGS | HOST_ACCESS_FLAGS) ||
       !kiln_api_valid_mem_flags(flags))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "flags 0x%llx", (unsigned long long)flags);
   /* A sub-buffer may not grant access the parent does not have. */
   if (!kiln_api_flags_narrow(parent->flags, flags))
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "flags 0x%llx conflict with the parent's",
                   (unsigned long long)flags);
   if (buffer_create_type != CL_BUFFER_CREATE_TYPE_REGION)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "buffer_create_type 0x%x", buffer_create_type);
   if (!buffer_create_info)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "buffer_create_info is NULL");
   const cl_buffer_region *region = buffer_create_info;
   if (region->origin > parent->size || region->size > parent->size - region->origin)
      API_FAIL_RET(errcode_ret, CL_INVALID_VALUE, "region %zu+%zu outside a buffer of %zu",
                   region->origin, region->size, parent->size);
   if (!region->size)
      API_FAIL_RET(errcode_ret, CL_INVALID_BUFFER_SIZE, "region size 0");
   /* The origin must suit at least one device of the context. */
   bool aligned = false;
   for (cl_uint i = 0; i < parent->context->num_devices; i++)
      aligned |= region->origin % (parent->context->devices[i]->caps->mem_base_addr_align / 8) == 0;
   if (!aligned)
      API_FAIL_RET(errcode_ret, CL_MISALIGNED_SUB_BUFFER_OFFSET, "origin %zu", region->origin);

   /* Access, host access and host-pointer flags not given are
    * inherited. */
   flags = kiln_api_inherit_flags(parent->flags, flags);
   cl_mem mem = NULL;
   cl_int err = kiln_mem_create_sub_buffer(parent, flags, region->origin, region->size, &mem);
   if (err)
      API_FAIL_RET(errcode_ret, err, "out of host memory");
   kiln_set_error(errcode_ret, CL_SUCCESS);
   return mem;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainMemObject(cl_mem memobj)
{
   cl_mem mem = kiln_mem_from(memobj);
   if (!mem)
      return API_FAIL(CL_INVALID_MEM_OBJECT, "%p is not a memory object", (void *)memobj);
   kiln_object_retain(&mem->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj)
{
   cl_mem mem = kiln_mem_from(memobj);
   if (!mem)
      return API_FAIL(CL_INVALID_MEM_OBJECT, "%p is not a memory object", (void *)memobj);
   kiln_object_release(&mem->obj);
   return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetMemObjectInfo(cl_mem memobj, cl_mem_info param_name,
                                                   size_t param_value_size, void *param_value,
                                                   size_t *param_value_size_ret)
{
   cl_mem mem = kiln_mem_from(memobj);
   if (!mem)
      return API_FAIL_HANDLE(param_name >= CL_MEM_TYPE && param_name <= CL_MEM_PROPERTIES, param_name,
                             CL_INVALID_MEM_OBJECT, memobj, "a memory object");
   switch (param_name) {
   case CL_MEM_TYPE:
      INFO_VALUE(cl_mem_object_type, mem->type);
   case CL_MEM_FLAGS:
      INFO_VALUE(cl_mem_flags, mem->flags);
   case CL_MEM_SIZE:
      INFO_VALUE(size_t, mem->size);
   case CL_MEM_HOST_PTR:
      /* 1.1 returns the host_ptr given at creation whatever the flags; 1.2
       * only for CL_MEM_USE_HOST_PTR (a sub-buffer's is inside its
       * parent's, and NULL unless the parent uses host memory). */
      if (KILN_CL_VERSION_NUMBER >= 120 && !(mem->flags & CL_MEM_USE_HOST_PTR) && !mem->parent)
         INFO_VALUE(void *, NULL);
      INFO_VALUE(void *, mem->info_host_ptr);
   case CL_MEM_MAP_COUNT: {
      pthread_mutex_lock(&mem->lock);
      cl_uint n = mem->map_count;
      pthread_mutex_unlock(&mem->lock);
      INFO_VALUE(cl_uint, n);
   }
   case CL_MEM_REFERENCE_COUNT:
      INFO_VALUE(cl_uint, kiln_object_refcount(&mem->obj));
   case CL_MEM_CONTEXT:
      INFO_VALUE(cl_context, mem->context);
   case CL_MEM_ASSOCIATED_MEMOBJECT:
      INFO_VALUE(cl_mem, mem->parent);
   case CL_MEM_OFFSET:
      /* A sub-buffer's origin; a 1D image buffer (whose parent is its
       * buffer) has none. */
      INFO_VALUE(size_t, mem->parent && !kiln_mem_is_image(mem) ? mem->offset : 0);
   /* OpenCL 2.0 and 3.0. */
   case CL_MEM_USES_SVM_POINTER:
      /* CL_MEM_USE_HOST_PTR with memory from clSVMAlloc (a sub-buffer's
       * host_ptr is its parent's plus its origin). */
      INFO_VALUE(cl_bool, (mem->flags & CL_MEM_USE_HOST_PTR) && mem->host_ptr &&
                             kiln_svm_find(mem->context, mem->host_ptr, 0, NULL));
   case CL_MEM_PROPERTIES:
      INFO_ARRAY(mem->props.list, mem->props.count);
   default:
      return API_FAIL(CL_INVALID_VALUE, "unknown param_name 0x%x", param_name);
   }
}

CL_API_ENTRY cl_int CL_API_CALL clSetMemObjectDestructorCallback(
   cl_mem memobj, void(CL_CALLBACK *pfn_notify)(cl_mem, void *), void *user_data)
{
   cl_mem mem = kiln_mem_from(memobj);
   if (!mem)
      return API_FAIL(CL_INVALID_MEM_OBJECT, "%p is not a memory object", (void *)memobj);
   if (!pfn_notify)
      return API_FAIL(CL_INVALID_VALUE, "pfn_notify is NULL");
   cl_int err = kiln_mem_add_destructor_callback(mem, pfn_notify, user_data);
   return err ? API_FAIL(err, "out of host memory") : CL_SUCCESS;
}
