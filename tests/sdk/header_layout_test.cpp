// The C headers, compiled as C99 (c99_*_h.c), and this C++ translation unit
// agree on the layout of the ABI structs.
#include <gtest/gtest.h>

#include <cstddef>

#include "hami/admission.h"
#include "hami/device.h"
#include "hami/objects.h"
#include "hami/plugin.h"
#include "hami/scheduling.h"

extern "C" {
size_t hami_c99_plugin_h(int which);
size_t hami_c99_objects_h(int which);
size_t hami_c99_device_h(int which);
size_t hami_c99_admission_h(int which);
size_t hami_c99_scheduling_h(int which);
}

namespace {

TEST(HeaderLayout, PluginH) {
  EXPECT_EQ(hami_c99_plugin_h(0), sizeof(hami_plugin_info));
  EXPECT_EQ(hami_c99_plugin_h(1), offsetof(hami_plugin_info, vtable));
  EXPECT_EQ(hami_c99_plugin_h(2), sizeof(hami_host_info));
  EXPECT_EQ(hami_c99_plugin_h(3), offsetof(hami_host_info, host_version));
  EXPECT_EQ(hami_c99_plugin_h(4), sizeof(hami_vtable_header));
  EXPECT_EQ(hami_c99_plugin_h(5),
            sizeof(hami_str) + sizeof(hami_errbuf) + sizeof(hami_sink) + sizeof(hami_kv));
}

TEST(HeaderLayout, ObjectsH) {
  EXPECT_EQ(hami_c99_objects_h(0), sizeof(hami_container_view));
  EXPECT_EQ(hami_c99_objects_h(1), sizeof(hami_pod_view));
  EXPECT_EQ(hami_c99_objects_h(2), offsetof(hami_pod_view, init_count));
  EXPECT_EQ(hami_c99_objects_h(3), sizeof(hami_node_view));
}

TEST(HeaderLayout, DeviceH) {
  EXPECT_EQ(hami_c99_device_h(0), sizeof(hami_device_vtable));
  EXPECT_EQ(hami_c99_device_h(1), offsetof(hami_device_vtable, decode_allocation));
  EXPECT_EQ(hami_c99_device_h(2), sizeof(hami_fit_input));
  EXPECT_EQ(hami_c99_device_h(3), sizeof(hami_fit_output));
  EXPECT_EQ(hami_c99_device_h(4), sizeof(hami_device));
  EXPECT_EQ(hami_c99_device_h(5), sizeof(hami_device_description));
}

TEST(HeaderLayout, AdmissionH) {
  EXPECT_EQ(hami_c99_admission_h(0), sizeof(hami_admission_vtable));
  EXPECT_EQ(hami_c99_admission_h(1), sizeof(hami_admission_input));
  EXPECT_EQ(hami_c99_admission_h(2), sizeof(hami_admission_output));
  EXPECT_EQ(hami_c99_admission_h(3), sizeof(hami_admission_host));
}

TEST(HeaderLayout, SchedulingH) {
  EXPECT_EQ(hami_c99_scheduling_h(0), sizeof(hami_scheduling_vtable));
  EXPECT_EQ(hami_c99_scheduling_h(1), sizeof(hami_order_input));
  EXPECT_EQ(hami_c99_scheduling_h(2), sizeof(hami_order_output));
  EXPECT_EQ(hami_c99_scheduling_h(3), sizeof(hami_node_usage));
}

// Every vtable starts with the members of hami_vtable_header.
TEST(HeaderLayout, VtablesBeginWithTheHeader) {
  EXPECT_EQ(offsetof(hami_device_vtable, create), offsetof(hami_vtable_header, create));
  EXPECT_EQ(offsetof(hami_device_vtable, destroy), offsetof(hami_vtable_header, destroy));
  EXPECT_EQ(offsetof(hami_admission_vtable, destroy), offsetof(hami_vtable_header, destroy));
  EXPECT_EQ(offsetof(hami_scheduling_vtable, destroy), offsetof(hami_vtable_header, destroy));
}

}  // namespace
