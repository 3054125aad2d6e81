/* Compiles hami/device.h on its own as strict C99 (-std=c99 -Wpedantic
 * -Werror), and reports a few layout facts so sdk_tests can check that C and
 * C++ agree on them. */
#include <stddef.h>

#include "hami/device.h"

size_t hami_c99_device_h(int which);
size_t hami_c99_device_h(int which) {
  switch (which) {
    case 0:
      return sizeof(hami_device_vtable);
    case 1:
      return offsetof(hami_device_vtable, decode_allocation);
    case 2:
      return sizeof(hami_fit_input);
    case 3:
      return sizeof(hami_fit_output);
    case 4:
      return sizeof(hami_device);
    default:
      return sizeof(hami_device_description);
  }
}
