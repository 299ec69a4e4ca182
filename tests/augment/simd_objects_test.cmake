# Fails when an ISA file's object could run its ISA's instructions on a CPU
# without it (the rules in src/augment/simd_dispatch.h):
#   - a weak or unique symbol (an inline function, a template instance, a
#     static of either) is one the linker may pick for the whole program,
#     so baseline code could call the copy compiled for the ISA;
#   - an exported function whose name does not say its ISA (Avx2, Avx512)
#     is one that baseline code could call without asking the CPU first;
#   - an initialiser (.init_array, .ctors) runs at start-up on every CPU.
# The sanitizers add a module constructor to every object they instrument
# (it registers the file with their runtime, no kernel code), so sanitized
# builds skip the last check; their runtime's symbols are not ours either,
# and nor is DW.ref.__gxx_personality_v0, a pointer to the C++ runtime's
# unwinding routine that objects with unwinding tables share (data, no code).
#
#   cmake -DNM=nm -DREADELF=readelf -DOBJECTS=a.o|b.o|... -DSOURCES=x_avx2.cc;...
#         -DSANITIZED=ON|OFF -P simd_objects_test.cmake
string(REPLACE "|" ";" objects "${OBJECTS}")
set(problems)
set(checked 0)
foreach(source IN LISTS SOURCES)
  if(source MATCHES "_avx512\\.cc$")
    set(isa Avx512)
  elseif(source MATCHES "_avx2\\.cc$")
    set(isa Avx2)
  else()
    message(FATAL_ERROR "${source}: an ISA file's name ends in _avx2.cc or _avx512.cc")
  endif()
  set(object)
  foreach(candidate IN LISTS objects)
    get_filename_component(name "${candidate}" NAME)
    if(name MATCHES "^${source}\\.(o|obj)$")
      set(object "${candidate}")
    endif()
  endforeach()
  if(NOT object)
    message(FATAL_ERROR "no object for ${source} among: ${OBJECTS}")
  endif()
  math(EXPR checked "${checked} + 1")

  execute_process(COMMAND ${NM} --defined-only --demangle ${object}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NM} --defined-only --demangle ${object} failed (${status})")
  endif()
  string(REPLACE "\n" ";" lines "${listing}")
  set(exports 0)
  foreach(line IN LISTS lines)
    # "<address> <type> <name>"; the name may contain spaces.
    if(NOT line MATCHES "^[0-9a-fA-F]+ ([A-Za-z]) (.+)$")
      continue()
    endif()
    set(type "${CMAKE_MATCH_1}")
    set(symbol "${CMAKE_MATCH_2}")
    if(symbol MATCHES "^_*(asan|odr_asan|tsan|ubsan|sanitizer)" OR symbol MATCHES "^DW\\.ref\\.")
      continue()
    endif()
    if(type MATCHES "^[VvWwu]$")
      list(APPEND problems "${source}: weak or unique symbol (${type}) ${symbol}")
    elseif(type MATCHES "^[A-Z]$")
      if(type STREQUAL "T" AND symbol MATCHES "${isa}\\(")
        math(EXPR exports "${exports} + 1")
      else()
        list(APPEND problems "${source}: exported symbol (${type}) not named for ${isa}: ${symbol}")
      endif()
    endif()
  endforeach()
  if(exports EQUAL 0)
    list(APPEND problems "${source}: exports no ${isa} function (is this the right object?)")
  endif()

  if(NOT SANITIZED)
    execute_process(COMMAND ${READELF} --section-headers --wide ${object}
                    OUTPUT_VARIABLE sections RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR "${READELF} --section-headers --wide ${object} failed (${status})")
    endif()
    if(sections MATCHES "\\.(init_array|preinit_array|ctors)")
      list(APPEND problems "${source}: has code that runs at start-up (.${CMAKE_MATCH_1})")
    endif()
  endif()
endforeach()

list(LENGTH problems problem_count)
message(STATUS "${checked} ISA objects checked, ${problem_count} problems")
if(problem_count GREATER 0)
  list(JOIN problems "\n  " shown)
  message(FATAL_ERROR "ISA objects that could run their instructions on a CPU without them "
                      "(see src/augment/simd_dispatch.h):\n  ${shown}")
endif()
