# Installs segfeed into a fresh prefix, then configures, builds and runs
# samples/consumer against it with find_package(segfeed), as a user would.
# Run by CTest: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P consumer_test.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(installed include/segfeed/build_info.h include/segfeed/errors.h include/segfeed/loader.h
                  include/segfeed/options.h include/segfeed/batch.h include/segfeed/memory.h
                  include/segfeed/dataset.h include/segfeed/augment.h include/segfeed/cuda_upload.h)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "cmake --install did not install ${installed}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/samples/consumer" -B "${WORK_DIR}/build"
    -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run("${WORK_DIR}/build/segfeed_consumer")
if(NOT last_output MATCHES "linked segfeed [0-9]+\\.[0-9]+\\.[0-9]+.*default plan for 1918x1280 photos: pool 134217728 bytes")
  message(FATAL_ERROR "unexpected consumer output: ${last_output}")
endif()
message(STATUS "${last_output}")
file(REMOVE_RECURSE "${WORK_DIR}")
