# The include graph: no file of a lower layer includes a header of a higher one. Run by ctest
# (tests/layers/CMakeLists.txt) as
#   cmake -DROOT=<source tree> -P check_layers.cmake
# It fails listing every file:line that breaks the order, with what it may include instead.
#
# The layers, bottom to top, as the targets link (each folder's CMakeLists.txt):
#   x87      cases/x87/include                   lockstep::x87: the 80-bit extended value, header-only,
#                                                standard C++ only (a game's port includes it)
#   base     cases/{include/lockstep,src}/base   lockstep/base: Result, bytes, files, threads
#   cases    cases/{include/lockstep,src}/cases  lockstep::cases: the case model, corpora, replay memory
#   harness  harness/                            lockstep::harness: snapshots, the machine, profiles, replay
#   capture  capture/                            lockstep::capture: state logs, drivers, capture, search
#   cli      capture/cli/                        lockstep::cli: the command line (the top)
#   gate     harness/gate/                       lockstep::gate: the replay gate (above harness, beside capture)
# (a nested folder is its own layer, above the folder that holds it; its rule below owns its files)
# and POD's, apart:
#   port          port/include, port/src  pod::port: nothing but the C++ standard library
#   port/bindings port/bindings/          pod::bindings: the port + base, cases, harness
#   port/cli      port/cli/               the lockstep executable: lockstep::cli + POD's bindings
# tests/ and scripts/ may include anything.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "check_layers: give the source tree: cmake -DROOT=DIR -P check_layers.cmake")
endif()

# folder (relative to ROOT) | the header families (include path prefixes) it may include
set(rules
  "cases/x87|lockstep/x87/"
  "cases/include/lockstep/base|lockstep/base/"
  "cases/src/base|lockstep/base/"
  "cases/include/lockstep/cases|lockstep/x87/ lockstep/base/ lockstep/cases/"
  "cases/src/cases|lockstep/x87/ lockstep/base/ lockstep/cases/"
  "harness|lockstep/x87/ lockstep/base/ lockstep/cases/ lockstep/harness/"
  "capture|lockstep/x87/ lockstep/base/ lockstep/cases/ lockstep/harness/ lockstep/capture/"
  "capture/cli|lockstep/x87/ lockstep/base/ lockstep/cases/ lockstep/harness/ lockstep/capture/ lockstep/cli/"
  "harness/gate|lockstep/x87/ lockstep/base/ lockstep/cases/ lockstep/harness/ lockstep/testing/"
  "port/include|pod/"
  "port/src|pod/"
  "port/bindings|lockstep/x87/ lockstep/base/ lockstep/cases/ lockstep/harness/ pod/ pod/bindings/"
  "port/cli|lockstep/x87/ lockstep/base/ lockstep/cases/ lockstep/cli/ pod/ pod/bindings/")
# Every family of the project's own headers; an include of one not allowed above is a violation.
set(families lockstep/x87/ lockstep/base/ lockstep/cases/ lockstep/harness/ lockstep/capture/ lockstep/cli/ lockstep/testing/
             pod/bindings/ pod/)
# The port (and the x87 value a port may include) depends on nothing but the standard library: its <...> includes are standard headers
# (a bare name: <cstdint>, <vector>), never a library's (<fmt/format.h>, <unicorn/unicorn.h>).
set(standard_only cases/x87 port/include port/src)

set(violations "")
set(files_checked 0)
foreach(rule IN LISTS rules)
  string(REPLACE "|" ";" parts "${rule}")
  list(GET parts 0 folder)
  list(GET parts 1 allowed)
  string(REPLACE " " ";" allowed "${allowed}")
  if(NOT IS_DIRECTORY "${ROOT}/${folder}")
    continue()
  endif()
  file(GLOB_RECURSE sources "${ROOT}/${folder}/*.hpp" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.h"
                            "${ROOT}/${folder}/*.c")
  # A deeper rule's folder is checked by its own rule (port/bindings is not port/src's).
  foreach(file IN LISTS sources)
    file(RELATIVE_PATH rel "${ROOT}" "${file}")
    set(owner "${folder}")
    foreach(other IN LISTS rules)
      string(REGEX REPLACE "\\|.*" "" other_folder "${other}")
      string(LENGTH "${other_folder}" other_len)
      string(LENGTH "${owner}" owner_len)
      if(other_len GREATER owner_len AND rel MATCHES "^${other_folder}/")
        set(owner "${other_folder}")
      endif()
    endforeach()
    if(NOT owner STREQUAL folder)
      continue()
    endif()
    math(EXPR files_checked "${files_checked} + 1")
    file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include")
    set(n 0)
    foreach(line IN LISTS lines)
      if(NOT line MATCHES "#[ \t]*include[ \t]*([\"<])([^\">]+)[\">]")
        continue()
      endif()
      set(bracket "${CMAKE_MATCH_1}")
      set(header "${CMAKE_MATCH_2}")
      if(folder IN_LIST standard_only AND bracket STREQUAL "<" AND NOT header MATCHES "^[a-z_]+$")
        list(APPEND violations "${rel}: <${header}>: the port uses nothing but the standard library")
        continue()
      endif()
      # The family: the longest known prefix of the header's path.
      set(family "")
      foreach(f IN LISTS families)
        string(FIND "${header}" "${f}" at)
        string(LENGTH "${f}" f_len)
        string(LENGTH "${family}" family_len)
        if(at EQUAL 0 AND f_len GREATER family_len)
          set(family "${f}")
        endif()
      endforeach()
      if(family STREQUAL "" OR family IN_LIST allowed)
        continue()
      endif()
      string(REPLACE ";" " " allowed_text "${allowed}")
      list(APPEND violations "${rel}: includes ${header} (${folder} may include ${allowed_text})")
    endforeach()
  endforeach()
endforeach()

if(files_checked EQUAL 0)
  message(FATAL_ERROR "check_layers: no source file found under ${ROOT}: is it the source tree?")
endif()
list(LENGTH violations count)
if(count GREATER 0)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "check_layers: ${count} include(s) against the layer order "
                      "(base -> cases -> harness -> capture -> cli; gate above harness; the port alone):\n  ${text}")
endif()
message(STATUS "check_layers: ${files_checked} files, every include goes down the layers")
