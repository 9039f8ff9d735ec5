; What OpenCL C cannot say (see image.cl): an image argument is a pointer to
; its struct kiln_image_desc, reached through a private pointer; a sampler
; is its CLK_* bits in a pointer value, which is also what Clang asks
; __translate_sampler_initializer for when a kernel uses a program-scope
; sampler constant (include/kiln/image.h).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define ptr addrspace(2) @__translate_sampler_initializer(i32 %bits) #0 {
  %w = zext i32 %bits to i64
  %p = inttoptr i64 %w to ptr addrspace(2)
  ret ptr addrspace(2) %p
}

define i32 @__kiln_sampler_bits(ptr addrspace(2) %s) #0 {
  %w = ptrtoint ptr addrspace(2) %s to i64
  %b = trunc i64 %w to i32
  ret i32 %b
}

define ptr @_Z12__kiln_image14ocl_image2d_ro(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image14ocl_image2d_wo(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image14ocl_image3d_ro(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image14ocl_image3d_wo(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

; OpenCL 1.2 image types: the same descriptor behind every type.
define ptr @_Z12__kiln_image14ocl_image1d_ro(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image14ocl_image1d_wo(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image21ocl_image1d_buffer_ro(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image21ocl_image1d_buffer_wo(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image20ocl_image1d_array_ro(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image20ocl_image1d_array_wo(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image20ocl_image2d_array_ro(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image20ocl_image2d_array_wo(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

; read_write images (OpenCL C 2.0, 3.0's __opencl_c_read_write_images):
; the same descriptor again.  Only the CPU library calls these (image.cl
; declares them under the feature macro); on nvptx they are unused.
define ptr @_Z12__kiln_image14ocl_image2d_rw(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image14ocl_image3d_rw(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image14ocl_image1d_rw(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image21ocl_image1d_buffer_rw(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image20ocl_image1d_array_rw(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

define ptr @_Z12__kiln_image20ocl_image2d_array_rw(ptr addrspace(1) %img) #0 {
  %p = addrspacecast ptr addrspace(1) %img to ptr
  ret ptr %p
}

attributes #0 = { alwaysinline nounwind readnone willreturn }
