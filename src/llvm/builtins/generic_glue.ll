; What OpenCL C cannot say (see generic.cl): the stack pointer where a
; function runs, the lower end of the private memory in use.  Inlined, it
; reads the stack pointer of the function it ends up in; called, its own,
; which lies lower still: either is at or below every private object of
; the work-group but those in the caller's red zone, which generic.cl
; allows for.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"

define i64 @__kiln_stack_pointer() #0 {
  %sp = call ptr @llvm.stacksave.p0()
  %a = ptrtoint ptr %sp to i64
  ret i64 %a
}

declare ptr @llvm.stacksave.p0()

attributes #0 = { alwaysinline nounwind }
