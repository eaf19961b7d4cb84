# Reference vectors for on-target tests (samples and ztest suites).
#
#   usmp_add_reference_vectors(<target> MODEL <file.tflite> NAME <c_name>
#                              [INPUTS <in0.npy> ...] [SEED <n>]
#                              [SHARED_WORKSPACE <group>] [COMPILE_ARGS <args>...]
#                              [CHECK])
#
# At build time, runs TFLite Micro's interpreter (PyPI tflite-micro, in the
# Python Zephyr's build uses) on fixed inputs (the .npy files, else random
# ones from SEED) and adds usmp_<name>_reference.{h,c} to <target>:
# usmp_<name>_reference_input_<input>[], usmp_<name>_expected_<output>[],
# USMP_<NAME>_LOWER_BOUND_BYTES and, with CHECK, usmp_<name>_reference_check().
# Call it after usmp_add_model() for the same NAME, with the same
# SHARED_WORKSPACE and COMPILE_ARGS; the vectors follow the build's Kconfig
# like the model (the check function calls the library as it was generated).

function(_usmp_require_tflite_micro)
  get_property(checked GLOBAL PROPERTY USMP_TFLITE_MICRO_CHECKED)
  if(checked)
    return()
  endif()
  execute_process(COMMAND ${PYTHON_EXECUTABLE} -c "import tflite_micro"
    RESULT_VARIABLE result OUTPUT_QUIET ERROR_QUIET)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "usmp: reference vectors need the tflite-micro package in ${PYTHON_EXECUTABLE}: "
      "run `${PYTHON_EXECUTABLE} -m pip install tflite-micro`")
  endif()
  set_property(GLOBAL PROPERTY USMP_TFLITE_MICRO_CHECKED TRUE)
endfunction()

function(usmp_add_reference_vectors target)
  cmake_parse_arguments(ARG "CHECK" "MODEL;NAME;SEED;SHARED_WORKSPACE" "INPUTS;COMPILE_ARGS" ${ARGN})
  if(NOT ARG_MODEL OR NOT ARG_NAME)
    message(FATAL_ERROR "usmp_add_reference_vectors(${target}): MODEL and NAME are required")
  endif()
  _usmp_require_tflite_micro()
  get_filename_component(model ${ARG_MODEL} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  set(args ${model} --name ${ARG_NAME})
  set(input_files)
  foreach(input ${ARG_INPUTS})
    get_filename_component(input ${input} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND args --input ${input})
    list(APPEND input_files ${input})
  endforeach()
  if(DEFINED ARG_SEED)
    list(APPEND args --seed ${ARG_SEED})
  endif()
  if(ARG_SHARED_WORKSPACE)
    list(APPEND args --user-pools)
  endif()
  if(ARG_CHECK)
    list(APPEND args --check)
  endif()
  list(APPEND args ${ARG_COMPILE_ARGS})

  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/usmp/${ARG_NAME}_reference)
  file(MAKE_DIRECTORY ${out_dir})
  _usmp_python_command(cmd usmp)
  _usmp_zephyr_inputs(inputs)
  _usmp_compiler_sources(deps)
  set(outputs ${out_dir}/${ARG_NAME}_reference.c ${out_dir}/${ARG_NAME}_reference.h)
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${cmd} reference ${args} -o ${out_dir} ${inputs}
    DEPENDS ${model} ${input_files} ${deps}
    COMMENT "usmp: reference vectors of ${ARG_NAME} (tflite-micro interpreter)"
    VERBATIM)
  target_sources(${target} PRIVATE ${out_dir}/${ARG_NAME}_reference.c)
  target_include_directories(${target} PRIVATE ${out_dir})
endfunction()
