# Fails when libsegfeed.so exports a dynamic symbol that is not public API:
# anything outside namespace segfeed, inside one of the rooms' namespaces
# (segfeed::decode, segfeed::source, ...: the public API has no nested
# namespace, so any segfeed::lowercase:: is a room), or one of the
# primitives declared at src/'s root (Status, Result, Mutex, ...).
#
# Reads `nm -D --defined-only --demangle LIBRARY`. Allowed are the names in
# namespace segfeed and the typeinfo, typeinfo name and vtable of a class
# there (the public exception classes need them: a user catches them by
# type), never a room's or a root primitive's. The symbols a sanitizer adds to an
# instrumented library (__asan_*, __odr_asan_*, __tsan_*, ...) are not ours
# and are skipped.
execute_process(COMMAND ${NM} -D --defined-only --demangle ${LIBRARY}
                OUTPUT_VARIABLE listing RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only --demangle ${LIBRARY} failed (${status})")
endif()
string(REPLACE "\n" ";" lines "${listing}")
# The classes and functions of src/*.h, in namespace segfeed but not API.
set(root_primitives "^segfeed::(Status|Result|Mutex|MutexLock|CondVar|CounterRng|Mix64|Digest|Fnv1aDigest|WorkerArena|StageClock|NanosBetween|NanosSince)[^A-Za-z0-9_]")
set(exported 0)
set(leaked)
foreach(line IN LISTS lines)
  # "<address> <type> <name>"; the name may contain spaces.
  if(NOT line MATCHES "^[0-9a-fA-F]+ [A-Za-z] (.+)$")
    continue()
  endif()
  set(name "${CMAKE_MATCH_1}")
  if(name MATCHES "^_*(asan|odr_asan|tsan|ubsan|sanitizer)")
    continue()
  endif()
  math(EXPR exported "${exported} + 1")
  string(REGEX REPLACE "^(typeinfo name for|typeinfo for|vtable for) " "" entity "${name}")
  if(entity MATCHES "^segfeed::[a-z_]+::" OR entity MATCHES "${root_primitives}"
     OR NOT entity MATCHES "^segfeed::")
    list(APPEND leaked "${name}")
  endif()
endforeach()
list(LENGTH leaked leaked_count)
message(STATUS "${LIBRARY}: ${exported} exported symbols, ${leaked_count} outside the public API")
if(leaked_count GREATER 0)
  list(SUBLIST leaked 0 40 shown)
  list(JOIN shown "\n  " shown)
  message(FATAL_ERROR "libsegfeed exports symbols that are not public API "
                      "(mark public API SEGFEED_EXPORT, keep the rest hidden):\n  ${shown}")
endif()
if(exported EQUAL 0)
  message(FATAL_ERROR "no exported symbols found in ${LIBRARY}: is it the shared library?")
endif()
