/* The work-group pass's removal of variables whose values only feed
 * themselves (src/llvm/cpu/wg_faint.h), on functions in reg2mem form:
 * which allocas go and which stay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "llvm/cpu/wg_faint.h"

struct parsed {
   LLVMContextRef c;
   LLVMModuleRef m;
   LLVMValueRef fn;
};

static struct parsed parse(const char *ir)
{
   struct parsed p = {LLVMContextCreate(), NULL, NULL};
   LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "faint");
   char *err = NULL;
   if (LLVMParseIRInContext(p.c, buf, &p.m, &err))
      fail_msg("IR does not parse: %s", err);
   p.fn = LLVMGetNamedFunction(p.m, "f");
   assert_non_null(p.fn);
   return p;
}

static void done(struct parsed *p)
{
   LLVMDisposeModule(p->m);
   LLVMContextDispose(p->c);
}

/* Whether f still has an alloca named name. */
static bool has_alloca(const struct parsed *p, const char *name)
{
   LLVMBasicBlockRef entry = LLVMGetFirstBasicBlock(p->fn);
   for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i; i = LLVMGetNextInstruction(i)) {
      size_t len = 0;
      const char *n = LLVMGetValueName2(i, &len);
      if (LLVMIsAAllocaInst(i) && len == strlen(name) && !memcmp(n, name, len))
         return true;
   }
   return false;
}

static void verified(const struct parsed *p)
{
   char *msg = NULL;
   if (LLVMVerifyModule(p->m, LLVMReturnStatusAction, &msg))
      fail_msg("module broken after the pass: %s", msg);
   LLVMDisposeMessage(msg);
}

/* A trip counter stepped in a loop (k, and k.next carrying it to the
 * latch) beside a sum that is stored to memory and a loop test that
 * reads i. */
static const char *loop_ir =
   "define void @f(ptr %out, i32 %n) {\n"
   "entry:\n"
   "  %k = alloca i32\n"
   "  %k.next = alloca i32\n"
   "  %i = alloca i32\n"
   "  %s = alloca float\n"
   "  store i32 0, ptr %k\n"
   "  store i32 0, ptr %i\n"
   "  store float 0.0, ptr %s\n"
   "  br label %head\n"
   "head:\n"
   "  %iv = load i32, ptr %i\n"
   "  %go = icmp ult i32 %iv, %n\n"
   "  br i1 %go, label %body, label %exit\n"
   "body:\n"
   "  %kv = load i32, ptr %k\n"
   "  %k1 = add i32 %kv, 1\n"
   "  store i32 %k1, ptr %k.next\n"
   "  %sv = load float, ptr %s\n"
   "  %s1 = fadd float %sv, 1.0\n"
   "  store float %s1, ptr %s\n"
   "  %i1 = add i32 %iv, 1\n"
   "  store i32 %i1, ptr %i\n"
   "  %kn = load i32, ptr %k.next\n"
   "  store i32 %kn, ptr %k\n"
   "  br label %head\n"
   "exit:\n"
   "  %sf = load float, ptr %s\n"
   "  store float %sf, ptr %out\n"
   "  ret void\n"
   "}\n";

static void test_counter_goes(void **state)
{
   (void)state;
   struct parsed p = parse(loop_ir);
   assert_int_equal(kiln_wg_drop_faint_allocas(p.fn), 2);
   assert_false(has_alloca(&p, "k"));
   assert_false(has_alloca(&p, "k.next"));
   assert_true(has_alloca(&p, "i")); /* the loop test reads it */
   assert_true(has_alloca(&p, "s")); /* stored to memory after the loop */
   verified(&p);
   done(&p);
}

/* What keeps an alloca: its value reaching a branch (through a compare),
 * a call, memory that is not an alloca, or a select's condition; its
 * address escaping; a volatile access; no load or no store at all (the
 * work-group pass's own variables before the regions use them). */
static const char *kept_ir =
   "declare void @g(i32)\n"
   "declare void @h(ptr)\n"
   "define void @f(ptr %out) {\n"
   "entry:\n"
   "  %branch = alloca i32\n"
   "  %call = alloca i32\n"
   "  %mem = alloca i32\n"
   "  %escape = alloca i32\n"
   "  %vol = alloca i32\n"
   "  %unused = alloca i32\n"
   "  %onlystored = alloca i32\n"
   "  %chain = alloca i32\n"
   "  store i32 1, ptr %branch\n"
   "  store i32 1, ptr %call\n"
   "  store i32 1, ptr %mem\n"
   "  store i32 1, ptr %escape\n"
   "  store volatile i32 1, ptr %vol\n"
   "  store i32 1, ptr %onlystored\n"
   "  store i32 1, ptr %chain\n"
   "  %b = load i32, ptr %branch\n"
   "  %c = load i32, ptr %call\n"
   "  call void @g(i32 %c)\n"
   "  %m = load i32, ptr %mem\n"
   "  %m2 = mul i32 %m, 3\n"
   "  store i32 %m2, ptr %out\n"
   "  call void @h(ptr %escape)\n"
   "  %v = load i32, ptr %vol\n"
   "  %v1 = add i32 %v, 1\n"
   "  store i32 %v1, ptr %vol\n"
   "  %ch = load i32, ptr %chain\n"
   "  %ch1 = add i32 %ch, 1\n"
   "  store i32 %ch1, ptr %branch\n"
   "  %t = icmp eq i32 %b, 0\n"
   "  br i1 %t, label %a, label %z\n"
   "a:\n"
   "  ret void\n"
   "z:\n"
   "  ret void\n"
   "}\n";

static void test_kept(void **state)
{
   (void)state;
   struct parsed p = parse(kept_ir);
   assert_int_equal(kiln_wg_drop_faint_allocas(p.fn), 0);
   static const char *names[] = {"branch", "call", "mem", "escape", "vol",
                                 "unused", "onlystored", "chain"};
   for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
      if (!has_alloca(&p, names[k]))
         fail_msg("alloca %s was removed", names[k]);
   verified(&p);
   done(&p);
}

/* Two variables that only feed each other (through a select and a
 * cast) go together; a third that feeds them and a branch stays. */
static const char *cycle_ir =
   "define void @f(i1 %p) {\n"
   "entry:\n"
   "  %a = alloca i32\n"
   "  %b = alloca i64\n"
   "  %live = alloca i32\n"
   "  store i32 0, ptr %a\n"
   "  store i64 0, ptr %b\n"
   "  store i32 5, ptr %live\n"
   "  br label %loop\n"
   "loop:\n"
   "  %av = load i32, ptr %a\n"
   "  %bv = load i64, ptr %b\n"
   "  %lv = load i32, ptr %live\n"
   "  %ax = zext i32 %av to i64\n"
   "  %sum = add i64 %ax, %bv\n"
   "  store i64 %sum, ptr %b\n"
   "  %bt = trunc i64 %bv to i32\n"
   "  %sel = select i1 %p, i32 %bt, i32 %lv\n"
   "  store i32 %sel, ptr %a\n"
   "  %more = icmp ne i32 %lv, 0\n"
   "  br i1 %more, label %loop, label %out\n"
   "out:\n"
   "  ret void\n"
   "}\n";

static void test_cycle(void **state)
{
   (void)state;
   struct parsed p = parse(cycle_ir);
   assert_int_equal(kiln_wg_drop_faint_allocas(p.fn), 2);
   assert_false(has_alloca(&p, "a"));
   assert_false(has_alloca(&p, "b"));
   assert_true(has_alloca(&p, "live"));
   verified(&p);
   done(&p);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counter_goes),
      cmocka_unit_test(test_kept),
      cmocka_unit_test(test_cycle),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
