# hami_add_fuzz_target(<name> SOURCES <files...> [LIBS <targets...>] CORPUS <dir>)
#
# A fuzz target is a file defining LLVMFuzzerTestOneInput. It is always built
# and registered with ctest as a regression run over its seed corpus (a
# standalone driver feeds every corpus file once), so the normal test suite
# keeps every parser honest against the seeds and past crashes. With
# -DHAMI_BUILD_FUZZ=ON and clang, it is also built as a real libFuzzer binary
# `<name>_fuzz`, which scripts/fuzz.sh runs for a bounded time.
#
# A fuzz build (HAMI_BUILD_FUZZ=ON) also provides:
#   hami_fuzz_all                       custom target building every <name>_fuzz
#   ${CMAKE_BINARY_DIR}/fuzz-targets.txt one "<binary> <corpus dir>" per line
#   global property HAMI_FUZZ_TARGETS   the same list as "<name>_fuzz|<corpus dir>"

if(HAMI_BUILD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "HAMI_BUILD_FUZZ needs clang (libFuzzer); configure with "
                        "CC=clang-14 CXX=clang++-14, got ${CMAKE_CXX_COMPILER_ID}")
  endif()
  # Every first-party object is instrumented, not only the fuzz target file:
  # the parsers live in static libraries (hami_extender, hami_admission_wire,
  # ...) and libFuzzer only steers towards code that reports coverage. UBSan
  # must abort, or undefined behaviour would print and the run would pass.
  # tests/fuzz-findings/sanitizer-ignorelist.txt names the third-party
  # findings that cannot be fixed here.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer
                      -fsanitize-ignorelist=${PROJECT_SOURCE_DIR}/tests/fuzz-findings/sanitizer-ignorelist.txt)
  add_link_options(-fsanitize=address,undefined)
  # RapidJSON 1.1.0 (Debian 12) declares its member iterator's operator== as
  # a non-template member taking the const iterator, so under C++20 clang
  # flags every `it == value.MemberEnd()` on a non-const value as ambiguous
  # with its reversed form, though it names the one function both compilers
  # call. The header is the cause (fixed upstream after 1.1.0); gcc has no
  # such warning, so only this clang build silences it.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-ambiguous-reversed-operator>)
  add_custom_target(hami_fuzz_all)
  set_property(GLOBAL PROPERTY HAMI_FUZZ_TARGETS "")

  # Runs once the whole tree is configured, so every target is listed.
  function(_hami_write_fuzz_manifest)
    get_property(entries GLOBAL PROPERTY HAMI_FUZZ_TARGETS)
    set(content "")
    foreach(entry IN LISTS entries)
      string(REPLACE "|" ";" parts "${entry}")
      list(GET parts 0 target)
      list(GET parts 1 corpus)
      string(APPEND content "$<TARGET_FILE:${target}> ${corpus}\n")
    endforeach()
    file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/fuzz-targets.txt" CONTENT "${content}")
  endfunction()
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _hami_write_fuzz_manifest)
endif()

function(hami_add_fuzz_target name)
  cmake_parse_arguments(F "" "CORPUS" "SOURCES;LIBS" ${ARGN})
  if(NOT F_CORPUS OR NOT IS_DIRECTORY "${F_CORPUS}")
    message(FATAL_ERROR "hami_add_fuzz_target(${name}): CORPUS '${F_CORPUS}' is not a folder")
  endif()
  add_executable(${name}_regress ${F_SOURCES} ${PROJECT_SOURCE_DIR}/tests/support/fuzz_driver.cpp)
  target_link_libraries(${name}_regress PRIVATE ${F_LIBS})
  hami_target_defaults(${name}_regress)
  add_test(NAME fuzz_regress.${name} COMMAND ${name}_regress ${F_CORPUS})
  if(HAMI_BUILD_FUZZ)
    add_executable(${name}_fuzz ${F_SOURCES})
    target_link_libraries(${name}_fuzz PRIVATE ${F_LIBS})
    target_link_options(${name}_fuzz PRIVATE -fsanitize=fuzzer)
    hami_target_defaults(${name}_fuzz)
    add_dependencies(hami_fuzz_all ${name}_fuzz)
    set_property(GLOBAL APPEND PROPERTY HAMI_FUZZ_TARGETS "${name}_fuzz|${F_CORPUS}")
  endif()
endfunction()
