#include "kiln_test_mem.h"
static void nothing(void **s) { (void)s; }
int main(void) { const struct CMUnitTest t[] = { cmocka_unit_test(nothing) }; return cmocka_run_group_tests(t, NULL, NULL); }
