# Dependencies come from Debian packages only. A missing one stops the configure with the package
# to install (scripts/setup installs them all).

macro(lockstep_require_pkg var module debian_pkg)
  pkg_check_modules(${var} IMPORTED_TARGET ${module})
  if(NOT ${var}_FOUND)
    message(FATAL_ERROR "lockstep needs ${module}: install the Debian package '${debian_pkg}' "
                        "(apt-get install ${debian_pkg}, or run scripts/setup)")
  endif()
endmacro()

macro(lockstep_require_cmake_pkg name debian_pkg)
  find_package(${name} ${ARGN} QUIET)
  if(NOT ${name}_FOUND)
    message(FATAL_ERROR "lockstep needs ${name}: install the Debian package '${debian_pkg}' "
                        "(apt-get install ${debian_pkg}, or run scripts/setup)")
  endif()
endmacro()

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  message(FATAL_ERROR "lockstep needs pkg-config: install the Debian package 'pkg-config'")
endif()

lockstep_require_pkg(UNICORN unicorn libunicorn-dev)
lockstep_require_pkg(CAPSTONE capstone libcapstone-dev)
# Compression (zlib-format streams) and hashing: libdeflate and OpenSSL's libcrypto, several times
# faster than zlib and a hand-written SHA-256.
lockstep_require_pkg(LIBDEFLATE libdeflate libdeflate-dev)
lockstep_require_cmake_pkg(OpenSSL libssl-dev COMPONENTS Crypto)
find_package(Threads REQUIRED)  # --jobs
lockstep_require_cmake_pkg(fmt libfmt-dev)
lockstep_require_cmake_pkg(CLI11 libcli11-dev)
lockstep_require_cmake_pkg(nlohmann_json nlohmann-json3-dev)
lockstep_require_cmake_pkg(tomlplusplus libtomlplusplus-dev)
if(LOCKSTEP_BUILD_TESTS)
  lockstep_require_cmake_pkg(GTest libgtest-dev)
else()
  # lockstep::gate (a game's replay gate as GoogleTest tests) is built and installed when it is there.
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    message(STATUS "lockstep: no GoogleTest (Debian package 'libgtest-dev'): lockstep::gate and "
                   "lockstep_add_gate() are left out")
  endif()
endif()
