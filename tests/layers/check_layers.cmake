# The include graph: no file of a lower layer includes a header of a higher one. Run by ctest
# (tests/layers/CMakeLists.txt) as
#   cmake -DROOT=<source tree> -P check_layers.cmake
# It fails listing every file:line that breaks the order, with what it may include instead.
#
# The layers, bottom to top, as the targets link (each folder's CMakeLists.txt); each library may
# include its own headers and those of the libraries it links, nothing else:
#   x87       cases/x87/         lockstep::x87: the 80-bit extended value, header-only, standard C++ only
#                                (a game's port includes it)
#   base      cases/base/        lockstep::base: Result, bytes, files, threads, markup
#   cases     cases/{include/lockstep,src}/cases
#                                lockstep::cases: the CPU vocabulary, the case model, corpora, replay memory
#   snapshot  harness/snapshot/  lockstep::snapshot: the snapshot model, lockstep's snapshot file
#   readers   harness/readers/   lockstep::readers: minidump, ELF core, PE32, ELF32, symbol tables
#   load      harness/load/      lockstep::load: a snapshot from any file (the loader, above the readers)
#   live      harness/live/      lockstep::live: /proc snapshots, the ptrace tracer (on snapshot only)
#   calls     harness/calls/     lockstep::calls: conventions, arguments, a call's effects (on snapshot)
#   profile   harness/profile/   lockstep::profile: profiles, labels, values, symbol files (on calls, load)
#   disasm    harness/disasm/    lockstep::disasm: Capstone, the instruction behind a write (on snapshot)
#   machine   harness/machine/   lockstep::machine: the Unicorn machine (on profile, disasm)
#   replay    harness/replay/    lockstep::replay: the port on a corpus, reports (on profile, disasm: no machine)
#   coverage  harness/coverage/  lockstep::coverage: branch coverage, its reports (on machine)
#   progress  harness/progress/  lockstep::progress: a port's progress (on replay)
#   capture   capture/           lockstep::capture: state logs, drivers, capture, search (on every harness library)
#   cli       capture/cli/       lockstep::cli: the command line (the top)
#   gate      harness/gate/      lockstep::gate: the replay gate (above the harness, beside capture)
# (a nested folder is its own layer, above the folder that holds it; its rule below owns its files)
# and POD's, apart:
#   port          port/physics/   pod::port: nothing but the C++ standard library
#   port/bindings port/bindings/  pod::bindings: the port + base, cases, the harness
#   port/lockstep port/lockstep/  the lockstep executable: lockstep::cli + POD's bindings
# tests/ and scripts/ may include anything.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "check_layers: give the source tree: cmake -DROOT=DIR -P check_layers.cmake")
endif()

# What each library may include: its own header family and those of the libraries below it that it links.
set(x87 "lockstep/x87/")
set(base "lockstep/base/")
set(cases "${x87} ${base} lockstep/cases/")
set(snapshot "${cases} lockstep/snapshot/")
set(readers "${snapshot} lockstep/readers/")
set(load "${readers} lockstep/load/")
set(live "${snapshot} lockstep/live/")
set(calls "${snapshot} lockstep/calls/")
set(profile "${load} lockstep/calls/ lockstep/profile/")
set(disasm "${snapshot} lockstep/disasm/")
set(machine "${profile} lockstep/disasm/ lockstep/machine/")
set(replay "${profile} lockstep/disasm/ lockstep/replay/")
set(coverage "${machine} lockstep/coverage/")
set(progress "${replay} lockstep/progress/")
set(harness "${coverage} ${progress} lockstep/live/")
set(capture "${harness} lockstep/capture/")
set(cli "${capture} lockstep/cli/")
set(gate "${harness} lockstep/testing/")
set(port "pod/")
set(bindings "${harness} ${port} pod/bindings/")
set(executable "${x87} ${base} lockstep/cases/ lockstep/cli/ ${port} pod/bindings/")

# folder (relative to ROOT) | the header families (include path prefixes) it may include
set(rules
  "cases/x87|${x87}"
  "cases/base|${base}"
  "cases/include/lockstep/cases|${cases}"
  "cases/src/cases|${cases}"
  "harness/snapshot|${snapshot}"
  "harness/readers|${readers}"
  "harness/load|${load}"
  "harness/live|${live}"
  "harness/calls|${calls}"
  "harness/profile|${profile}"
  "harness/disasm|${disasm}"
  "harness/machine|${machine}"
  "harness/replay|${replay}"
  "harness/coverage|${coverage}"
  "harness/progress|${progress}"
  "capture|${capture}"
  "capture/cli|${cli}"
  "harness/gate|${gate}"
  "port/physics|${port}"
  "port/bindings|${bindings}"
  "port/lockstep|${executable}")
# Every family of the project's own headers; an include of one not allowed above is a violation
# (lockstep/harness/, the one family the harness had before its libraries, is allowed nowhere).
set(families lockstep/x87/ lockstep/base/ lockstep/cases/ lockstep/snapshot/ lockstep/readers/ lockstep/load/
             lockstep/live/ lockstep/calls/ lockstep/profile/ lockstep/disasm/ lockstep/machine/ lockstep/replay/
             lockstep/coverage/ lockstep/progress/ lockstep/harness/ lockstep/capture/ lockstep/cli/
             lockstep/testing/ pod/bindings/ pod/)
# The port (and the x87 value a port may include) depends on nothing but the standard library: its <...> includes are standard headers
# (a bare name: <cstdint>, <vector>), never a library's (<fmt/format.h>, <unicorn/unicorn.h>).
set(standard_only cases/x87 port/physics)

set(violations "")
set(files_checked 0)
foreach(rule IN LISTS rules)
  string(REPLACE "|" ";" parts "${rule}")
  list(GET parts 0 folder)
  list(GET parts 1 allowed)
  string(REGEX REPLACE " +" ";" allowed "${allowed}")
  if(NOT IS_DIRECTORY "${ROOT}/${folder}")
    continue()
  endif()
  file(GLOB_RECURSE sources "${ROOT}/${folder}/*.hpp" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.h"
                            "${ROOT}/${folder}/*.c")
  # A deeper rule's folder is checked by its own rule (capture/cli is not capture's).
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
                      "(base -> cases -> snapshot -> readers -> load, live, calls -> profile -> disasm -> machine, replay -> "
                      "coverage, progress -> capture -> cli; gate above the harness; the port alone):\n  ${text}")
endif()
message(STATUS "check_layers: ${files_checked} files, every include goes down the layers")
