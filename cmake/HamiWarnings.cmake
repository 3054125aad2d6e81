# hami_target_defaults(<target>): the warning set every first-party target
# compiles with, plus the sanitizer flags of the asan preset.
function(hami_target_defaults target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
      -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wconversion -Wsign-conversion
      -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wstrict-prototypes>)
  # GCC 12 with optimisation reports -Wrestrict inside libstdc++ for plain
  # std::string concatenations ("[" + host, GCC bug 105329) and, in test
  # bodies, -Wnull-dereference inside the inlined stream iterators and
  # std::optional of libstdc++. Both are reported in library code the
  # project does not write; Debug builds (dev, and asan, which CI runs)
  # keep both warnings.
  set(gcc12_optimised
      "$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>,$<NOT:$<CONFIG:Debug>>>")
  target_compile_options(${target} PRIVATE $<${gcc12_optimised}:-Wno-restrict>)
  if(HAMI_TEST_CODE)
    target_compile_options(${target} PRIVATE $<${gcc12_optimised}:-Wno-null-dereference>)
  endif()
  if(HAMI_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(HAMI_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
