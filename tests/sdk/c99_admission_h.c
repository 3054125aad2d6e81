/* Compiles hami/admission.h on its own as strict C99 (-std=c99 -Wpedantic
 * -Werror), and reports a few layout facts so sdk_tests can check that C and
 * C++ agree on them. */
#include <stddef.h>

#include "hami/admission.h"

size_t hami_c99_admission_h(int which);
size_t hami_c99_admission_h(int which) {
  switch (which) {
    case 0:
      return sizeof(hami_admission_vtable);
    case 1:
      return sizeof(hami_admission_input);
    case 2:
      return sizeof(hami_admission_output);
    default:
      return sizeof(hami_admission_host);
  }
}
