# hami_add_plugin(<target> KIND device|admission|scheduling SOURCES <files...>
#                 [LIBRARIES <libs...>] [OUTPUT_NAME <name>]
#                 [OUTPUT_DIRECTORY <dir>] [TEST_FIXTURE])
#
# Builds a hami-scheduler plugin: a MODULE library named `<target>.so` (or
# `<OUTPUT_NAME>.so`, never with a `lib` prefix), compiled with hidden
# visibility and linked with a version script that exports only
# hami_plugin_negotiate, plus --no-undefined so a plugin cannot depend on
# symbols of the host that loads it (HAMI-PLUGIN-1).
#
# The file lands in OUTPUT_DIRECTORY, else ${HAMI_PLUGIN_OUTPUT_DIR} (the
# hami-scheduler build sets it), else the current binary directory (an
# out-of-tree plugin project).
#
# Every plugin is recorded in the global property HAMI_PLUGIN_TARGETS, which
# the conformance suite reads; TEST_FIXTURE keeps deliberately broken test
# plugins out of that list.
include_guard(GLOBAL)

set(_HAMI_PLUGIN_VERSION_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/hami_plugin.map"
    CACHE INTERNAL "Version script that exports only hami_plugin_negotiate")

function(hami_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 P "TEST_FIXTURE" "KIND;OUTPUT_NAME;OUTPUT_DIRECTORY"
                        "SOURCES;LIBRARIES")
  if(P_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hami_add_plugin(${target}): unknown arguments: ${P_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT P_KIND MATCHES "^(device|admission|scheduling)$")
    message(FATAL_ERROR
      "hami_add_plugin(${target}): KIND must be device, admission or scheduling (got '${P_KIND}')")
  endif()
  if(NOT P_SOURCES)
    message(FATAL_ERROR "hami_add_plugin(${target}): SOURCES is required")
  endif()

  if(P_OUTPUT_DIRECTORY)
    set(_dir "${P_OUTPUT_DIRECTORY}")
  elseif(HAMI_PLUGIN_OUTPUT_DIR)
    set(_dir "${HAMI_PLUGIN_OUTPUT_DIR}")
  else()
    set(_dir "${CMAKE_CURRENT_BINARY_DIR}")
  endif()

  add_library(${target} MODULE ${P_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    # $<1:...> stops multi-config generators from appending a per-config
    # folder: the host is pointed at one directory.
    LIBRARY_OUTPUT_DIRECTORY "$<1:${_dir}>"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    HAMI_PLUGIN_KIND "${P_KIND}")
  if(P_OUTPUT_NAME)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME "${P_OUTPUT_NAME}")
  endif()
  # The C++ wrapper needs C++20; C sources are unaffected.
  if(NOT CMAKE_CXX_STANDARD OR CMAKE_CXX_STANDARD LESS 20)
    set_target_properties(${target} PROPERTIES CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON)
  endif()
  target_link_libraries(${target} PRIVATE Hami::sdk ${P_LIBRARIES})
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${_HAMI_PLUGIN_VERSION_SCRIPT}"
    "LINKER:--no-undefined")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${_HAMI_PLUGIN_VERSION_SCRIPT}")
  if(COMMAND hami_target_defaults)
    hami_target_defaults(${target})
  endif()
  if(NOT P_TEST_FIXTURE)
    set_property(GLOBAL APPEND PROPERTY HAMI_PLUGIN_TARGETS ${target})
  endif()
endfunction()
