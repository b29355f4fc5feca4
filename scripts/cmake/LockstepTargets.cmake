# Per-target settings: no global flags, no global include directories.

# lockstep_target_defaults(<target> [DRIVER]): C++20, warnings (errors with LOCKSTEP_WERROR), sanitizers.
# DRIVER: a program whose own code only drives lockstep's libraries and the port (a test, a test tool).
# With LOCKSTEP_SANITIZE it is linked with the sanitizers' runtimes but not instrumented itself: the
# libraries and the port it drives are, and they are what the sanitizer job checks (instrumenting the
# tests' own code too cost about a third of that job's build).
function(lockstep_target_defaults target)
  cmake_parse_arguments(PARSE_ARGV 1 _defaults "DRIVER" "" "")
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
                              -Wimplicit-fallthrough -Wnull-dereference>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra>)
  if(LOCKSTEP_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(_defaults_DRIVER)
    if(LOCKSTEP_SANITIZE)
      target_link_options(${target} PRIVATE -fsanitize=${LOCKSTEP_SANITIZE})
    endif()
  else()
    lockstep_target_sanitize(${target})
  endif()
endfunction()

# lockstep_target_sanitize(<target>): applies LOCKSTEP_SANITIZE (address, undefined) to one target.
function(lockstep_target_sanitize target)
  if(LOCKSTEP_SANITIZE)
    get_target_property(_type ${target} TYPE)
    target_compile_options(${target} PRIVATE -fsanitize=${LOCKSTEP_SANITIZE} -fno-omit-frame-pointer
                                             -fno-sanitize-recover=all)
    if(NOT _type STREQUAL "STATIC_LIBRARY" AND NOT _type STREQUAL "OBJECT_LIBRARY")
      target_link_options(${target} PRIVATE -fsanitize=${LOCKSTEP_SANITIZE})
    else()
      target_link_options(${target} INTERFACE -fsanitize=${LOCKSTEP_SANITIZE})
    endif()
  endif()
endfunction()

# The port must give the same bytes on every host: no FMA contraction (x86-64 and aarch64 have no
# excess precision for double: SSE2 and AArch64 FP round every operation to binary64).
function(lockstep_port_fp_flags target)
  target_compile_options(${target} PRIVATE -ffp-contract=off -fno-fast-math)
endfunction()

# lockstep_unity_build(<target>): compiles the target's sources in batches of a few files each (one
# translation unit per batch). For lockstep's libraries most of a file's compile time is the same
# headers' inline code (fmt, nlohmann::json, CLI11, the standard library) generated again; in batches
# it is generated once per batch (on a fresh build: the command line's library about 160 → 40 s of
# CPU, the harness's 86 → 48). A change to one file recompiles its batch. Never for the port: a
# porter's edit-and-replay loop recompiles one file.
function(lockstep_unity_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
endfunction()

# lockstep_cold_code(<target>): compiles a library at -O1 in a Release build. For code that runs once
# per command or per file (option parsing, profile and manifest parsing, reports, the file readers'
# headers and tables) -O3's inlining and unrolling buy nothing a user can see, and they cost the most
# build time of anything lockstep compiles: the command line's first batch takes 29.9 s of CPU at -O3
# and 19.3 s at -O1. The hot loops (the machine, the replay, the cases' memory, the port) keep -O3.
function(lockstep_cold_code target)
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
endfunction()
