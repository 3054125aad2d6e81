# ascend.so: its test program and the fuzz target of its decoder.
add_executable(ascend_plugin_tests
  ascend_admission_test.cpp
  ascend_fit_test.cpp
  ascend_node_test.cpp)
target_link_libraries(ascend_plugin_tests PRIVATE hami_device_test_support GTest::gtest_main)
add_dependencies(ascend_plugin_tests ascend)
hami_target_defaults(ascend_plugin_tests)
gtest_discover_tests(ascend_plugin_tests DISCOVERY_TIMEOUT 30)
