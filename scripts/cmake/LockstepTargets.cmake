# Per-target settings: no global flags, no global include directories.

# lockstep_target_defaults(<target>): C++20, warnings (errors with LOCKSTEP_WERROR), sanitizers.
function(lockstep_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
                              -Wimplicit-fallthrough -Wnull-dereference>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra>)
  if(LOCKSTEP_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  lockstep_target_sanitize(${target})
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
