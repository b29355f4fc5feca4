# Captures Crawl's corpus from crawl.exe alone (cmake -P; CMakeLists.txt runs it as a test):
#   lockstep snapshot --from crawl.exe
#   lockstep capture SNAPSHOT --calls calls.toml --profile game.toml -o corpus
# MODE=check: into WORK_DIR, then every file must equal the checked-in corpus/ byte for byte, and the
#             EXE's SHA-256 the one recorded in corpus/crawl.exe.sha256; then the checked-in corpus
#             re-runs under `lockstep coverage` with the profile its manifest names.
# MODE=write: the same, then corpus/ is replaced (after a deliberate change to game/ or calls.toml).
# Inputs: LOCKSTEP (the lockstep executable), EXE (crawl.exe), SOURCE_DIR (this folder), WORK_DIR.
foreach(v MODE LOCKSTEP EXE SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "corpus.cmake: -D${v}=... is required")
  endif()
endforeach()
if(NOT MODE MATCHES "^(check|write)$")
  message(FATAL_ERROR "corpus.cmake: MODE is check or write, not '${MODE}'")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(SHA256 "${EXE}" exe_sha)

# Relative names only: the snapshot records the image's name (its regions are named after it) and
# the manifest the snapshot's SHA-256, so nothing may depend on where the build lives.
function(run_lockstep what dir)
  execute_process(COMMAND "${LOCKSTEP}" ${ARGN} WORKING_DIRECTORY "${dir}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "corpus.cmake: lockstep ${what} failed (exit ${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
file(COPY_FILE "${EXE}" "${WORK_DIR}/crawl.exe")
# The manifest records the profile relative to the corpus ("../game.toml"): a copy beside the
# corpus, as game.toml lies beside corpus/ here.
file(COPY_FILE "${SOURCE_DIR}/game.toml" "${WORK_DIR}/game.toml")
run_lockstep(snapshot "${WORK_DIR}" snapshot --from crawl.exe -o crawl.lks)
run_lockstep(capture "${WORK_DIR}" capture crawl.lks --calls "${SOURCE_DIR}/calls.toml" --profile game.toml
             -o corpus)
file(WRITE "${WORK_DIR}/corpus/crawl.exe.sha256" "${exe_sha}  crawl.exe\n")

if(MODE STREQUAL "write")
  file(REMOVE_RECURSE "${SOURCE_DIR}/corpus")
  file(COPY "${WORK_DIR}/corpus" DESTINATION "${SOURCE_DIR}")
  message(STATUS "corpus.cmake: corpus/ rewritten (crawl.exe ${exe_sha})")
  return()
endif()

file(STRINGS "${SOURCE_DIR}/corpus/crawl.exe.sha256" recorded LIMIT_COUNT 1)
string(REGEX MATCH "^[0-9a-f]+" recorded "${recorded}")
if(NOT recorded STREQUAL exe_sha)
  message(FATAL_ERROR "corpus.cmake: crawl.exe's SHA-256 is ${exe_sha}; the corpus was captured from "
          "${recorded}. The game's source, its flags or the mingw-w64 toolchain changed: check game.toml's "
          "addresses (crawl_addresses_test), then rewrite the corpus with -DMODE=write.")
endif()
file(GLOB_RECURSE fresh RELATIVE "${WORK_DIR}/corpus" "${WORK_DIR}/corpus/*")
file(GLOB_RECURSE kept RELATIVE "${SOURCE_DIR}/corpus" "${SOURCE_DIR}/corpus/*")
list(SORT fresh)
list(SORT kept)
if(NOT fresh STREQUAL kept)
  message(FATAL_ERROR "corpus.cmake: the capture wrote [${fresh}], the checked-in corpus holds [${kept}]")
endif()
foreach(f IN LISTS fresh)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK_DIR}/corpus/${f}" "${SOURCE_DIR}/corpus/${f}"
                  RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "corpus.cmake: ${f} differs from the checked-in corpus/${f} (the capture is no longer "
            "the same: see ${WORK_DIR}/corpus)")
  endif()
endforeach()
list(LENGTH fresh n)
message(STATUS "corpus.cmake: ${n} files identical to the checked-in corpus (crawl.exe ${exe_sha})")

# The checked-in corpus re-run under coverage with no --profile: its manifest names ../game.toml (a
# corpus captured from a call list, on a profile without a [[driver]]); every case must reproduce its
# recording (exit 0).
run_lockstep(coverage "${WORK_DIR}" coverage "${SOURCE_DIR}/corpus" --snapshot crawl.lks --quiet)
