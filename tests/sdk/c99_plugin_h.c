/* Compiles hami/plugin.h on its own as strict C99 (-std=c99 -Wpedantic
 * -Werror), and reports a few layout facts so sdk_tests can check that C and
 * C++ agree on them. */
#include <stddef.h>

#include "hami/plugin.h"

size_t hami_c99_plugin_h(int which);
size_t hami_c99_plugin_h(int which) {
  switch (which) {
    case 0:
      return sizeof(hami_plugin_info);
    case 1:
      return offsetof(hami_plugin_info, vtable);
    case 2:
      return sizeof(hami_host_info);
    case 3:
      return offsetof(hami_host_info, host_version);
    case 4:
      return sizeof(hami_vtable_header);
    default:
      return sizeof(hami_str) + sizeof(hami_errbuf) + sizeof(hami_sink) + sizeof(hami_kv);
  }
}
