/* core/binary.c's OpenCL 1.2 additions: the PROGRAM section records the
 * CL_PROGRAM_BINARY_TYPE (compiled objects and libraries hold bitcode and
 * no object) and whether kernels carry argument names. */
#include "kiln_test.h"

#include <stdlib.h>
#include <string.h>

#include "core/binary.h"
#include "kiln/kernel_info.h"

static unsigned char bitcode[] = {'B', 'C', 0xc0, 0xde, 1, 2, 3, 4};
static unsigned char object[] = {0x7f, 'E', 'L', 'F', 9, 9};

static unsigned char *write_bin(const struct kiln_binary_contents *c, size_t *size)
{
   *size = kiln_binary_write(c, NULL);
   unsigned char *out = malloc(*size);
   assert_non_null(out);
   assert_int_equal(kiln_binary_write(c, out), *size);
   return out;
}

static void test_compiled_object(void **state)
{
   (void)state;
   struct kiln_binary_contents c = {
      .target = "cpu:test", .options = "-DX", .bitcode = bitcode,
      .bitcode_size = sizeof(bitcode), .binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT};
   size_t size;
   unsigned char *bin = write_bin(&c, &size);
   struct kiln_binary_contents r;
   assert_int_equal(kiln_binary_read(bin, size, &r), KILN_BINARY_OK);
   assert_int_equal(r.binary_type, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
   assert_int_equal(r.bitcode_size, sizeof(bitcode));
   assert_memory_equal(r.bitcode, bitcode, sizeof(bitcode));
   assert_int_equal(r.object_size, 0);
   assert_int_equal(r.num_kernels, 0);
   kiln_binary_contents_fini(&r);
   free(bin);

   /* A library the same way; an executable needs its object. */
   c.binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
   bin = write_bin(&c, &size);
   assert_int_equal(kiln_binary_read(bin, size, &r), KILN_BINARY_OK);
   assert_int_equal(r.binary_type, CL_PROGRAM_BINARY_TYPE_LIBRARY);
   kiln_binary_contents_fini(&r);
   free(bin);
   c.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
   bin = write_bin(&c, &size);
   assert_int_equal(kiln_binary_read(bin, size, &r), KILN_BINARY_INVALID);
   free(bin);
   /* A compiled object needs its bitcode. */
   c.binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
   c.bitcode = NULL;
   c.bitcode_size = 0;
   c.object = object;
   c.object_size = sizeof(object);
   bin = write_bin(&c, &size);
   assert_int_equal(kiln_binary_read(bin, size, &r), KILN_BINARY_INVALID);
   free(bin);
   /* A type that is none of the three (the checksum is recomputed by
    * writing, so only the type is wrong). */
   c.binary_type = 0x8;
   c.bitcode = bitcode;
   c.bitcode_size = sizeof(bitcode);
   bin = write_bin(&c, &size);
   assert_int_equal(kiln_binary_read(bin, size, &r), KILN_BINARY_INVALID);
   free(bin);
}

static void test_arg_names(void **state)
{
   (void)state;
   struct kiln_arg_info args[2] = {
      {.kind = KILN_ARG_GLOBAL, .size = 8, .offset = 0, .type_name = "int*", .name = "a"},
      {.kind = KILN_ARG_VALUE, .size = 4, .offset = 8, .type_name = "int", .name = "b"},
   };
   struct kiln_kernel_info k = {.name = "k", .num_args = 2, .args = args, .args_size = 12,
                                .vec_type_hint = ""};
   struct kiln_binary_contents c = {.target = "cpu:test", .object = object,
                                    .object_size = sizeof(object), .kernels = &k,
                                    .num_kernels = 1};
   for (int named = 1; named >= 0; named--) {
      k.no_arg_info = !named;
      size_t size;
      unsigned char *bin = write_bin(&c, &size);
      struct kiln_binary_contents r;
      assert_int_equal(kiln_binary_read(bin, size, &r), KILN_BINARY_OK);
      /* No type recorded: the writer says EXECUTABLE. */
      assert_int_equal(r.binary_type, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
      assert_int_equal(r.num_kernels, 1);
      assert_string_equal(r.kernels[0].args[0].type_name, "int*");
      /* The names stay either way; the flag says whether to show them. */
      assert_string_equal(r.kernels[0].args[0].name, "a");
      assert_string_equal(r.kernels[0].args[1].name, "b");
      assert_int_equal(r.kernels[0].no_arg_info, !named);
      kiln_binary_contents_fini(&r);
      free(bin);
   }
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_compiled_object),
      cmocka_unit_test(test_arg_names),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
