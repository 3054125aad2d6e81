# ascend.so: its test program and the fuzz target of its decoder.
add_executable(ascend_plugin_tests
  ascend_admission_test.cpp
  ascend_fit_test.cpp
  ascend_node_test.cpp)
target_link_libraries(ascend_plugin_tests PRIVATE hami_device_test_support GTest::gtest_main)
add_dependencies(ascend_plugin_tests ascend)
hami_target_defaults(ascend_plugin_tests)
gtest_discover_tests(ascend_plugin_tests DISCOVERY_TIMEOUT 30)

set(_ascend ${PROJECT_SOURCE_DIR}/plugins/devices/ascend)
hami_device_fuzz(ascend_attributes CORPUS corpus_ascend_attributes SOURCES
  fuzz/ascend_attributes_fuzz.cpp ${_ascend}/ascend_attributes.cpp)
foreach(t ascend_attributes_regress ascend_attributes_fuzz)
  if(TARGET ${t})
    target_include_directories(${t} PRIVATE ${_ascend})
  endif()
endforeach()
