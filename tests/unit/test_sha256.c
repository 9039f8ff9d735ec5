/* util/sha256.c against the known answers of FIPS 180-4's examples and
 * NIST's SHA-256 test vectors, fed whole and in awkward pieces. */
#include "kiln_test.h"

#include <stdlib.h>

#include "util/sha256.h"

static void check(const void *data, size_t size, const char *want)
{
   unsigned char d[KILN_SHA256_SIZE];
   char hex[65];
   kiln_sha256(data, size, d);
   kiln_sha256_hex(d, hex);
   assert_string_equal(hex, want);

   /* The same bytes in pieces of 1, 3, 63, 64 and 65 bytes. */
   static const size_t pieces[] = {1, 3, 63, 64, 65};
   for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
      struct kiln_sha256 s;
      kiln_sha256_init(&s);
      for (size_t off = 0; off < size; off += pieces[p]) {
         size_t n = size - off < pieces[p] ? size - off : pieces[p];
         kiln_sha256_update(&s, (const char *)data + off, n);
      }
      kiln_sha256_final(&s, d);
      kiln_sha256_hex(d, hex);
      assert_string_equal(hex, want);
   }
}

static void test_empty(void **state)
{
   (void)state;
   check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_abc(void **state)
{
   (void)state;
   check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* 448 bits: the padding needs a second block. */
static void test_two_blocks(void **state)
{
   (void)state;
   const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
   check(m, strlen(m), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
   const char *m2 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklm"
                    "nopqklmnopqrlmnopqrsmnopqrstnopqrstu";
   check(m2, strlen(m2), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* 55, 56 and 64 bytes: the padding's edges. */
static void test_padding_edges(void **state)
{
   (void)state;
   char a[64];
   memset(a, 'a', sizeof(a));
   check(a, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
   check(a, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
   check(a, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

static void test_million_a(void **state)
{
   (void)state;
   size_t n = 1000000;
   char *a = malloc(n);
   assert_non_null(a);
   memset(a, 'a', n);
   check(a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
   free(a);
}

int main(void)
{
   const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty),        cmocka_unit_test(test_abc),
      cmocka_unit_test(test_two_blocks),   cmocka_unit_test(test_padding_edges),
      cmocka_unit_test(test_million_a),
   };
   return cmocka_run_group_tests(tests, NULL, NULL);
}
