; The texture and surface instructions of Kiln's nvptx image functions
; (image.cl, KILN_IMAGE_HW): thin wrappers around LLVM's NVVM intrinsics,
; which OpenCL C cannot name.  Every wrapper takes the coordinates in one
; shape, whatever the image type:
;   __kiln_hw_tex_{f,i,u}_<dim>(i64 handle, float x, float y, float z, i32 layer)
;     -> <4 x float|i32>: tex.<dim>.v4.<type>.f32 (unified mode: the handle
;     is a texture object); y, z and layer are ignored where the type has
;     no such coordinate.
;   __kiln_hw_sust_<bytes>_<dim>(i64 handle, i32 x_bytes, i32 y, i32 z, <4 x i32> v)
;     sust.b.<dim> of a <bytes>-byte texel (v's first bytes), .zero: a
;     store outside the surface is dropped; the layer of an array is y
;     (1D array) or z (2D array), as in core's linear layout.
; <dim>: 1d, 1da (1D array), 2d, 2da (2D array), 3d.  Generated once by
; hand from the intrinsic list of LLVM 19 (IntrinsicsNVVM.td).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.f32(i64, float)
define <4 x float> @__kiln_hw_tex_f_1d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { float, float, float, float } @llvm.nvvm.tex.unified.1d.v4f32.f32(i64 %h, float %x)
  %r0 = extractvalue { float, float, float, float } %r, 0
  %r1 = extractvalue { float, float, float, float } %r, 1
  %r2 = extractvalue { float, float, float, float } %r, 2
  %r3 = extractvalue { float, float, float, float } %r, 3
  %v0 = insertelement <4 x float> undef, float %r0, i32 0
  %v1 = insertelement <4 x float> %v0, float %r1, i32 1
  %v2 = insertelement <4 x float> %v1, float %r2, i32 2
  %v3 = insertelement <4 x float> %v2, float %r3, i32 3
  ret <4 x float> %v3
}

declare { float, float, float, float } @llvm.nvvm.tex.unified.1d.array.v4f32.f32(i64, i32, float)
define <4 x float> @__kiln_hw_tex_f_1da(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { float, float, float, float } @llvm.nvvm.tex.unified.1d.array.v4f32.f32(i64 %h, i32 %layer, float %x)
  %r0 = extractvalue { float, float, float, float } %r, 0
  %r1 = extractvalue { float, float, float, float } %r, 1
  %r2 = extractvalue { float, float, float, float } %r, 2
  %r3 = extractvalue { float, float, float, float } %r, 3
  %v0 = insertelement <4 x float> undef, float %r0, i32 0
  %v1 = insertelement <4 x float> %v0, float %r1, i32 1
  %v2 = insertelement <4 x float> %v1, float %r2, i32 2
  %v3 = insertelement <4 x float> %v2, float %r3, i32 3
  ret <4 x float> %v3
}

declare { float, float, float, float } @llvm.nvvm.tex.unified.2d.v4f32.f32(i64, float, float)
define <4 x float> @__kiln_hw_tex_f_2d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { float, float, float, float } @llvm.nvvm.tex.unified.2d.v4f32.f32(i64 %h, float %x, float %y)
  %r0 = extractvalue { float, float, float, float } %r, 0
  %r1 = extractvalue { float, float, float, float } %r, 1
  %r2 = extractvalue { float, float, float, float } %r, 2
  %r3 = extractvalue { float, float, float, float } %r, 3
  %v0 = insertelement <4 x float> undef, float %r0, i32 0
  %v1 = insertelement <4 x float> %v0, float %r1, i32 1
  %v2 = insertelement <4 x float> %v1, float %r2, i32 2
  %v3 = insertelement <4 x float> %v2, float %r3, i32 3
  ret <4 x float> %v3
}

declare { float, float, float, float } @llvm.nvvm.tex.unified.2d.array.v4f32.f32(i64, i32, float, float)
define <4 x float> @__kiln_hw_tex_f_2da(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { float, float, float, float } @llvm.nvvm.tex.unified.2d.array.v4f32.f32(i64 %h, i32 %layer, float %x, float %y)
  %r0 = extractvalue { float, float, float, float } %r, 0
  %r1 = extractvalue { float, float, float, float } %r, 1
  %r2 = extractvalue { float, float, float, float } %r, 2
  %r3 = extractvalue { float, float, float, float } %r, 3
  %v0 = insertelement <4 x float> undef, float %r0, i32 0
  %v1 = insertelement <4 x float> %v0, float %r1, i32 1
  %v2 = insertelement <4 x float> %v1, float %r2, i32 2
  %v3 = insertelement <4 x float> %v2, float %r3, i32 3
  ret <4 x float> %v3
}

declare { float, float, float, float } @llvm.nvvm.tex.unified.3d.v4f32.f32(i64, float, float, float)
define <4 x float> @__kiln_hw_tex_f_3d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { float, float, float, float } @llvm.nvvm.tex.unified.3d.v4f32.f32(i64 %h, float %x, float %y, float %z)
  %r0 = extractvalue { float, float, float, float } %r, 0
  %r1 = extractvalue { float, float, float, float } %r, 1
  %r2 = extractvalue { float, float, float, float } %r, 2
  %r3 = extractvalue { float, float, float, float } %r, 3
  %v0 = insertelement <4 x float> undef, float %r0, i32 0
  %v1 = insertelement <4 x float> %v0, float %r1, i32 1
  %v2 = insertelement <4 x float> %v1, float %r2, i32 2
  %v3 = insertelement <4 x float> %v2, float %r3, i32 3
  ret <4 x float> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.v4s32.f32(i64, float)
define <4 x i32> @__kiln_hw_tex_i_1d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.v4s32.f32(i64 %h, float %x)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.array.v4s32.f32(i64, i32, float)
define <4 x i32> @__kiln_hw_tex_i_1da(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.array.v4s32.f32(i64 %h, i32 %layer, float %x)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.v4s32.f32(i64, float, float)
define <4 x i32> @__kiln_hw_tex_i_2d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.v4s32.f32(i64 %h, float %x, float %y)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.array.v4s32.f32(i64, i32, float, float)
define <4 x i32> @__kiln_hw_tex_i_2da(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.array.v4s32.f32(i64 %h, i32 %layer, float %x, float %y)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.3d.v4s32.f32(i64, float, float, float)
define <4 x i32> @__kiln_hw_tex_i_3d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.3d.v4s32.f32(i64 %h, float %x, float %y, float %z)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.v4u32.f32(i64, float)
define <4 x i32> @__kiln_hw_tex_u_1d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.v4u32.f32(i64 %h, float %x)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.array.v4u32.f32(i64, i32, float)
define <4 x i32> @__kiln_hw_tex_u_1da(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.array.v4u32.f32(i64 %h, i32 %layer, float %x)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.v4u32.f32(i64, float, float)
define <4 x i32> @__kiln_hw_tex_u_2d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.v4u32.f32(i64 %h, float %x, float %y)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.array.v4u32.f32(i64, i32, float, float)
define <4 x i32> @__kiln_hw_tex_u_2da(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.2d.array.v4u32.f32(i64 %h, i32 %layer, float %x, float %y)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.3d.v4u32.f32(i64, float, float, float)
define <4 x i32> @__kiln_hw_tex_u_3d(i64 %h, float %x, float %y, float %z, i32 %layer) #0 {
  %r = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.3d.v4u32.f32(i64 %h, float %x, float %y, float %z)
  %r0 = extractvalue { i32, i32, i32, i32 } %r, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %r, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %r, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %r, 3
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  ret <4 x i32> %v3
}

declare void @llvm.nvvm.sust.b.1d.i8.zero(i64, i32, i16)
define void @__kiln_hw_sust_1_1d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.1d.i8.zero(i64 %h, i32 %x, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.array.i8.zero(i64, i32, i32, i16)
define void @__kiln_hw_sust_1_1da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.1d.array.i8.zero(i64 %h, i32 %y, i32 %x, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.i8.zero(i64, i32, i32, i16)
define void @__kiln_hw_sust_1_2d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.2d.i8.zero(i64 %h, i32 %x, i32 %y, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.array.i8.zero(i64, i32, i32, i32, i16)
define void @__kiln_hw_sust_1_2da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.2d.array.i8.zero(i64 %h, i32 %z, i32 %x, i32 %y, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.3d.i8.zero(i64, i32, i32, i32, i16)
define void @__kiln_hw_sust_1_3d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.3d.i8.zero(i64 %h, i32 %x, i32 %y, i32 %z, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.i16.zero(i64, i32, i16)
define void @__kiln_hw_sust_2_1d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.1d.i16.zero(i64 %h, i32 %x, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.array.i16.zero(i64, i32, i32, i16)
define void @__kiln_hw_sust_2_1da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.1d.array.i16.zero(i64 %h, i32 %y, i32 %x, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.i16.zero(i64, i32, i32, i16)
define void @__kiln_hw_sust_2_2d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.2d.i16.zero(i64 %h, i32 %x, i32 %y, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.array.i16.zero(i64, i32, i32, i32, i16)
define void @__kiln_hw_sust_2_2da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.2d.array.i16.zero(i64 %h, i32 %z, i32 %x, i32 %y, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.3d.i16.zero(i64, i32, i32, i32, i16)
define void @__kiln_hw_sust_2_3d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %t0 = trunc i32 %e0 to i16
  call void @llvm.nvvm.sust.b.3d.i16.zero(i64 %h, i32 %x, i32 %y, i32 %z, i16 %t0)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.i32.zero(i64, i32, i32)
define void @__kiln_hw_sust_4_1d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  call void @llvm.nvvm.sust.b.1d.i32.zero(i64 %h, i32 %x, i32 %e0)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.array.i32.zero(i64, i32, i32, i32)
define void @__kiln_hw_sust_4_1da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  call void @llvm.nvvm.sust.b.1d.array.i32.zero(i64 %h, i32 %y, i32 %x, i32 %e0)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.i32.zero(i64, i32, i32, i32)
define void @__kiln_hw_sust_4_2d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  call void @llvm.nvvm.sust.b.2d.i32.zero(i64 %h, i32 %x, i32 %y, i32 %e0)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.array.i32.zero(i64, i32, i32, i32, i32)
define void @__kiln_hw_sust_4_2da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  call void @llvm.nvvm.sust.b.2d.array.i32.zero(i64 %h, i32 %z, i32 %x, i32 %y, i32 %e0)
  ret void
}

declare void @llvm.nvvm.sust.b.3d.i32.zero(i64, i32, i32, i32, i32)
define void @__kiln_hw_sust_4_3d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  call void @llvm.nvvm.sust.b.3d.i32.zero(i64 %h, i32 %x, i32 %y, i32 %z, i32 %e0)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.v2i32.zero(i64, i32, i32, i32)
define void @__kiln_hw_sust_8_1d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  call void @llvm.nvvm.sust.b.1d.v2i32.zero(i64 %h, i32 %x, i32 %e0, i32 %e1)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.array.v2i32.zero(i64, i32, i32, i32, i32)
define void @__kiln_hw_sust_8_1da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  call void @llvm.nvvm.sust.b.1d.array.v2i32.zero(i64 %h, i32 %y, i32 %x, i32 %e0, i32 %e1)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.v2i32.zero(i64, i32, i32, i32, i32)
define void @__kiln_hw_sust_8_2d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  call void @llvm.nvvm.sust.b.2d.v2i32.zero(i64 %h, i32 %x, i32 %y, i32 %e0, i32 %e1)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.array.v2i32.zero(i64, i32, i32, i32, i32, i32)
define void @__kiln_hw_sust_8_2da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  call void @llvm.nvvm.sust.b.2d.array.v2i32.zero(i64 %h, i32 %z, i32 %x, i32 %y, i32 %e0, i32 %e1)
  ret void
}

declare void @llvm.nvvm.sust.b.3d.v2i32.zero(i64, i32, i32, i32, i32, i32)
define void @__kiln_hw_sust_8_3d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  call void @llvm.nvvm.sust.b.3d.v2i32.zero(i64 %h, i32 %x, i32 %y, i32 %z, i32 %e0, i32 %e1)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.v4i32.zero(i64, i32, i32, i32, i32, i32)
define void @__kiln_hw_sust_16_1d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  %e2 = extractelement <4 x i32> %v, i32 2
  %e3 = extractelement <4 x i32> %v, i32 3
  call void @llvm.nvvm.sust.b.1d.v4i32.zero(i64 %h, i32 %x, i32 %e0, i32 %e1, i32 %e2, i32 %e3)
  ret void
}

declare void @llvm.nvvm.sust.b.1d.array.v4i32.zero(i64, i32, i32, i32, i32, i32, i32)
define void @__kiln_hw_sust_16_1da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  %e2 = extractelement <4 x i32> %v, i32 2
  %e3 = extractelement <4 x i32> %v, i32 3
  call void @llvm.nvvm.sust.b.1d.array.v4i32.zero(i64 %h, i32 %y, i32 %x, i32 %e0, i32 %e1, i32 %e2, i32 %e3)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.v4i32.zero(i64, i32, i32, i32, i32, i32, i32)
define void @__kiln_hw_sust_16_2d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  %e2 = extractelement <4 x i32> %v, i32 2
  %e3 = extractelement <4 x i32> %v, i32 3
  call void @llvm.nvvm.sust.b.2d.v4i32.zero(i64 %h, i32 %x, i32 %y, i32 %e0, i32 %e1, i32 %e2, i32 %e3)
  ret void
}

declare void @llvm.nvvm.sust.b.2d.array.v4i32.zero(i64, i32, i32, i32, i32, i32, i32, i32)
define void @__kiln_hw_sust_16_2da(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  %e2 = extractelement <4 x i32> %v, i32 2
  %e3 = extractelement <4 x i32> %v, i32 3
  call void @llvm.nvvm.sust.b.2d.array.v4i32.zero(i64 %h, i32 %z, i32 %x, i32 %y, i32 %e0, i32 %e1, i32 %e2, i32 %e3)
  ret void
}

declare void @llvm.nvvm.sust.b.3d.v4i32.zero(i64, i32, i32, i32, i32, i32, i32, i32)
define void @__kiln_hw_sust_16_3d(i64 %h, i32 %x, i32 %y, i32 %z, <4 x i32> %v) #0 {
  %e0 = extractelement <4 x i32> %v, i32 0
  %e1 = extractelement <4 x i32> %v, i32 1
  %e2 = extractelement <4 x i32> %v, i32 2
  %e3 = extractelement <4 x i32> %v, i32 3
  call void @llvm.nvvm.sust.b.3d.v4i32.zero(i64 %h, i32 %x, i32 %y, i32 %z, i32 %e0, i32 %e1, i32 %e2, i32 %e3)
  ret void
}

attributes #0 = { alwaysinline nounwind }
