; Device-side enqueue's entry points as Clang emits them for
; enqueue_kernel() and the get_kernel_*() queries of a block (Clang
; CodeGen names them; they are not OpenCL C functions, so OpenCL C cannot
; define them with these exact types).  Each passes the launch context
; (the work-group pass lowers __kiln_wg_ctx) and its arguments to the CPU
; driver's run-time (include/kiln/devq_abi.h, src/pipe/cpu/cpu_devq.c).
; "invoke" is what Kiln's compiler left in place of the block's kernel: a
; pointer to that kernel's name (src/llvm/block_kernels.c).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

declare ptr @__kiln_wg_ctx()
; (ctx, queue, flags, ndrange, num_events, wait_list, event_ret, name,
;  block, num_local_sizes, local_sizes)
declare i32 @__kiln_devq_enqueue(ptr, ptr, i32, ptr, i32, ptr addrspace(4), ptr addrspace(4), ptr addrspace(4), ptr addrspace(4), i32, ptr)
; (ctx, what, name, ndrange or null)
declare i32 @__kiln_devq_kernel_query(ptr, i32, ptr addrspace(4), ptr)

define i32 @__enqueue_kernel_basic(ptr %q, i32 %flags, ptr %nd, ptr addrspace(4) %invoke, ptr addrspace(4) %block) #0 {
  %c = call ptr @__kiln_wg_ctx()
  %r = call i32 @__kiln_devq_enqueue(ptr %c, ptr %q, i32 %flags, ptr %nd, i32 0, ptr addrspace(4) null, ptr addrspace(4) null, ptr addrspace(4) %invoke, ptr addrspace(4) %block, i32 0, ptr null)
  ret i32 %r
}

define i32 @__enqueue_kernel_basic_events(ptr %q, i32 %flags, ptr %nd, i32 %n, ptr addrspace(4) %wait, ptr addrspace(4) %ret, ptr addrspace(4) %invoke, ptr addrspace(4) %block) #0 {
  %c = call ptr @__kiln_wg_ctx()
  %r = call i32 @__kiln_devq_enqueue(ptr %c, ptr %q, i32 %flags, ptr %nd, i32 %n, ptr addrspace(4) %wait, ptr addrspace(4) %ret, ptr addrspace(4) %invoke, ptr addrspace(4) %block, i32 0, ptr null)
  ret i32 %r
}

define i32 @__enqueue_kernel_varargs(ptr %q, i32 %flags, ptr %nd, ptr addrspace(4) %invoke, ptr addrspace(4) %block, i32 %nsizes, ptr %sizes) #0 {
  %c = call ptr @__kiln_wg_ctx()
  %r = call i32 @__kiln_devq_enqueue(ptr %c, ptr %q, i32 %flags, ptr %nd, i32 0, ptr addrspace(4) null, ptr addrspace(4) null, ptr addrspace(4) %invoke, ptr addrspace(4) %block, i32 %nsizes, ptr %sizes)
  ret i32 %r
}

define i32 @__enqueue_kernel_events_varargs(ptr %q, i32 %flags, ptr %nd, i32 %n, ptr addrspace(4) %wait, ptr addrspace(4) %ret, ptr addrspace(4) %invoke, ptr addrspace(4) %block, i32 %nsizes, ptr %sizes) #0 {
  %c = call ptr @__kiln_wg_ctx()
  %r = call i32 @__kiln_devq_enqueue(ptr %c, ptr %q, i32 %flags, ptr %nd, i32 %n, ptr addrspace(4) %wait, ptr addrspace(4) %ret, ptr addrspace(4) %invoke, ptr addrspace(4) %block, i32 %nsizes, ptr %sizes)
  ret i32 %r
}

; what: include/kiln/devq_abi.h, KILN_DEVQ_QUERY_*.
define i32 @__get_kernel_work_group_size_impl(ptr addrspace(4) %invoke, ptr addrspace(4) %block) #0 {
  %c = call ptr @__kiln_wg_ctx()
  %r = call i32 @__kiln_devq_kernel_query(ptr %c, i32 0, ptr addrspace(4) %invoke, ptr null)
  ret i32 %r
}

define i32 @__get_kernel_preferred_work_group_size_multiple_impl(ptr addrspace(4) %invoke, ptr addrspace(4) %block) #0 {
  %c = call ptr @__kiln_wg_ctx()
  %r = call i32 @__kiln_devq_kernel_query(ptr %c, i32 1, ptr addrspace(4) %invoke, ptr null)
  ret i32 %r
}

define i32 @__get_kernel_max_sub_group_size_for_ndrange_impl(ptr %nd, ptr addrspace(4) %invoke, ptr addrspace(4) %block) #0 {
  %c = call ptr @__kiln_wg_ctx()
  %r = call i32 @__kiln_devq_kernel_query(ptr %c, i32 2, ptr addrspace(4) %invoke, ptr %nd)
  ret i32 %r
}

define i32 @__get_kernel_sub_group_count_for_ndrange_impl(ptr %nd, ptr addrspace(4) %invoke, ptr addrspace(4) %block) #0 {
  %c = call ptr @__kiln_wg_ctx()
  %r = call i32 @__kiln_devq_kernel_query(ptr %c, i32 3, ptr addrspace(4) %invoke, ptr %nd)
  ret i32 %r
}

attributes #0 = { alwaysinline nounwind }
