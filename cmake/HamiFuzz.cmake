# hami_add_fuzz_target(<name> SOURCES <files...> [LIBS <targets...>] CORPUS <dir>)
#
# A fuzz target is a file defining LLVMFuzzerTestOneInput. It is always built
# and registered with ctest as a regression run over its seed corpus (a
# standalone driver feeds every corpus file once), so the normal test suite
# keeps every parser honest against the seeds and past crashes. With
# -DHAMI_BUILD_FUZZ=ON and clang, it is also built as a real libFuzzer binary
# `<name>_fuzz`, which scripts/fuzz.sh runs for a bounded time.
function(hami_add_fuzz_target name)
  cmake_parse_arguments(F "" "CORPUS" "SOURCES;LIBS" ${ARGN})
  add_executable(${name}_regress ${F_SOURCES} ${PROJECT_SOURCE_DIR}/tests/support/fuzz_driver.cpp)
  target_link_libraries(${name}_regress PRIVATE ${F_LIBS})
  hami_target_defaults(${name}_regress)
  add_test(NAME fuzz_regress.${name} COMMAND ${name}_regress ${F_CORPUS})
  if(HAMI_BUILD_FUZZ AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    add_executable(${name}_fuzz ${F_SOURCES})
    target_link_libraries(${name}_fuzz PRIVATE ${F_LIBS})
    target_compile_options(${name}_fuzz PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name}_fuzz PRIVATE -fsanitize=fuzzer,address,undefined)
    set_property(GLOBAL APPEND PROPERTY HAMI_FUZZ_TARGETS "${name}_fuzz|${F_CORPUS}")
  endif()
endfunction()
