# Makes a small demo dataset and runs samples/trainer_loop on it for two
# epochs; checks the report. Run by CTest with -DCLI, -DTRAINER, -DWORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CLI}" make-demo "${WORK_DIR}/data" --count 40 --width 480 --height 320
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make-demo failed: ${out}")
endif()
execute_process(COMMAND "${TRAINER}" "${WORK_DIR}/data" 2 5 2
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "trainer loop failed (${rc})")
endif()
foreach(expected "epoch 0: 5 steps" "epoch 1: 5 steps" "loaded 80 pairs, skipped 0, replaced 0")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected '${expected}' in the trainer's report")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
