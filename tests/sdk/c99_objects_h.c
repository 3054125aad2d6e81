/* Compiles hami/objects.h on its own as strict C99 (-std=c99 -Wpedantic
 * -Werror), and reports a few layout facts so sdk_tests can check that C and
 * C++ agree on them. */
#include <stddef.h>

#include "hami/objects.h"

size_t hami_c99_objects_h(int which);
size_t hami_c99_objects_h(int which) {
  switch (which) {
    case 0:
      return sizeof(hami_container_view);
    case 1:
      return sizeof(hami_pod_view);
    case 2:
      return offsetof(hami_pod_view, init_count);
    default:
      return sizeof(hami_node_view);
  }
}
