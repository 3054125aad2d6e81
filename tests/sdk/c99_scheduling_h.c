/* Compiles hami/scheduling.h on its own as strict C99 (-std=c99 -Wpedantic
 * -Werror), and reports a few layout facts so sdk_tests can check that C and
 * C++ agree on them. */
#include <stddef.h>

#include "hami/scheduling.h"

size_t hami_c99_scheduling_h(int which);
size_t hami_c99_scheduling_h(int which) {
  switch (which) {
    case 0:
      return sizeof(hami_scheduling_vtable);
    case 1:
      return sizeof(hami_order_input);
    case 2:
      return sizeof(hami_order_output);
    default:
      return sizeof(hami_node_usage);
  }
}
