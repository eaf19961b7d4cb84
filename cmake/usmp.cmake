# usmp CMake API for Zephyr applications.
#
# Every model also gets a report page: `west build -t usmp_report` writes
# usmp_report_<name>.html into the build directory (see _usmp_report_target).
#
#   usmp_add_model(<target> MODEL <file.tflite> [NAME <c_name>]
#                  [SHARED_WORKSPACE <group>] [COMPILE_ARGS <args>...])
#
# compiles the model at build time with the pools and algorithm of the
# build's Kconfig (CONFIG_USMP_*) and the devicetree's memory regions, and
# links the generated library into <target> (usually `app`). Editing the
# model, .config (menuconfig) or the devicetree regenerates it.
#
# Models with the same SHARED_WORKSPACE group share their workspace pools:
# each is compiled with --user-pools and usmp_group_<group>.{h,c} defines one
# array per pool, sized at build time to the largest member's need. Include
# "usmp_group_<group>.h" and pass &usmp_group_<group>_<model>_pools to
# usmp_<model>_run().

get_filename_component(_usmp_root ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
set(USMP_MODULE_DIR ${_usmp_root} CACHE INTERNAL "usmp module root")

# The command line of the usmp package with the Zephyr build's inputs.
function(_usmp_python_command out_var module)
  set(${out_var}
    ${CMAKE_COMMAND} -E env PYTHONPATH=${USMP_MODULE_DIR}/scripts
    ${PYTHON_EXECUTABLE} -m ${module}
    PARENT_SCOPE)
endfunction()

function(_usmp_zephyr_inputs out_var)
  set(args --dotconfig ${DOTCONFIG} --zephyr-base ${ZEPHYR_BASE})
  if(DEFINED EDT_PICKLE)
    list(APPEND args --devicetree ${EDT_PICKLE})
  endif()
  set(${out_var} ${args} PARENT_SCOPE)
endfunction()

# Everything a regeneration depends on besides the model: the compiler itself.
function(_usmp_compiler_sources out_var)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS
    ${USMP_MODULE_DIR}/scripts/usmp/*.py ${USMP_MODULE_DIR}/templates/*.j2)
  set(${out_var} ${sources} ${DOTCONFIG} ${EDT_PICKLE} PARENT_SCOPE)
endfunction()

# Same rule as the compiler's default model name (usmp.frontend).
function(_usmp_default_name model out_var)
  get_filename_component(stem ${model} NAME_WE)
  string(TOLOWER "${stem}" stem)
  string(REGEX REPLACE "[^0-9a-z_]" "_" stem "${stem}")
  if(stem MATCHES "^[0-9]" OR stem STREQUAL "")
    set(stem "m_${stem}")
  endif()
  set(${out_var} ${stem} PARENT_SCOPE)
endfunction()

# Configure time: Python packages present and Kconfig options consistent
# with the devicetree; otherwise stop with the compiler's one-line reason.
function(usmp_check_configuration)
  _usmp_python_command(cmd usmp.zephyr.check)
  _usmp_zephyr_inputs(inputs)
  execute_process(COMMAND ${cmd} ${inputs}
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE error
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "usmp: ${error}")
  endif()
  message(STATUS "${output}")
endfunction()

# The build's inputs, and CMSIS-NN where the build has it: with Zephyr's cmsis-nn module enabled, DSP
# and Helium cores call CMSIS-NN where it is exact (--kernels auto; kernels/CMakeLists.txt compiles the glue).
function(_usmp_build_inputs out_var)
  _usmp_zephyr_inputs(inputs)
  if(CONFIG_CMSIS_NN AND DEFINED ZEPHYR_CMSIS_NN_MODULE_DIR AND NOT CONFIG_USMP_KERNELS_PORTABLE)
    list(APPEND inputs --cmsis-nn ${ZEPHYR_CMSIS_NN_MODULE_DIR})
  endif()
  set(${out_var} ${inputs} PARENT_SCOPE)
endfunction()

# `usmp_report`: the report page of every model of the build, as Zephyr's ram_report and rom_report
# are reports of the image: built on request only (`west build -t usmp_report`), into the build directory.
function(_usmp_report_target model name extra_args)
  _usmp_python_command(cmd usmp)
  _usmp_build_inputs(inputs)
  set(page ${CMAKE_BINARY_DIR}/usmp_report_${name}.html)
  add_custom_target(usmp_report_${name}
    COMMAND ${cmd} report ${model} -o ${page} --name ${name} ${inputs} ${extra_args}
    COMMENT "usmp: report page of ${name}: ${page}"
    VERBATIM)
  if(NOT TARGET usmp_report)
    add_custom_target(usmp_report)
  endif()
  add_dependencies(usmp_report usmp_report_${name})
endfunction()

# The custom command that writes <out_dir>/<name>{.c,_constants.c,.h}.
function(_usmp_compile_command model name out_dir extra_args)
  _usmp_python_command(cmd usmp)
  _usmp_build_inputs(inputs)
  _usmp_compiler_sources(deps)
  file(MAKE_DIRECTORY ${out_dir})
  add_custom_command(
    OUTPUT ${out_dir}/${name}.c ${out_dir}/${name}_constants.c ${out_dir}/${name}.h
    COMMAND ${cmd} compile ${model} -o ${out_dir} --name ${name} ${inputs} ${extra_args}
    DEPENDS ${model} ${deps}
    COMMENT "usmp: compiling ${name} from ${model}"
    VERBATIM)
  _usmp_report_target(${model} ${name} "${extra_args}")
endfunction()

function(usmp_add_model target)
  cmake_parse_arguments(ARG "" "MODEL;NAME;SHARED_WORKSPACE" "COMPILE_ARGS" ${ARGN})
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "usmp_add_model(${target}): MODEL <file.tflite> is required")
  endif()
  get_filename_component(model ${ARG_MODEL} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT EXISTS ${model})
    message(FATAL_ERROR "usmp_add_model(${target}): model ${model} does not exist")
  endif()
  if(ARG_NAME)
    set(name ${ARG_NAME})
  else()
    _usmp_default_name(${model} name)
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "usmp_add_model(${target}): NAME '${name}' is not a C identifier")
  endif()
  if(TARGET usmp_model_${name})
    message(FATAL_ERROR "usmp_add_model(${target}): a model named '${name}' exists already: give NAME")
  endif()
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/usmp/${name})
  set(extra ${ARG_COMPILE_ARGS})
  if(ARG_SHARED_WORKSPACE)
    list(APPEND extra --user-pools)
  endif()
  _usmp_compile_command(${model} ${name} ${out_dir} "${extra}")

  add_library(usmp_model_${name} STATIC ${out_dir}/${name}.c ${out_dir}/${name}_constants.c)
  target_include_directories(usmp_model_${name} PUBLIC ${out_dir})
  target_link_libraries(usmp_model_${name} PUBLIC zephyr_interface)
  target_link_libraries(${target} PRIVATE usmp_model_${name})
  # <target>'s own sources include <name>.h: generate it first.
  add_custom_target(usmp_model_${name}_sources DEPENDS ${out_dir}/${name}.h)
  add_dependencies(${target} usmp_model_${name}_sources)

  if(ARG_SHARED_WORKSPACE)
    set(group ${ARG_SHARED_WORKSPACE})
    if(NOT group MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "usmp_add_model(${target}): SHARED_WORKSPACE '${group}' is not a C identifier")
    endif()
    get_property(members GLOBAL PROPERTY USMP_GROUP_${group}_MODELS)
    if(NOT members)
      # Written once every member is known: at the end of this directory.
      # (EVAL: DEFER would expand ${target} only when the call runs, outside this function)
      cmake_language(EVAL CODE "cmake_language(DEFER CALL _usmp_add_group [[${target}]] [[${group}]])")
    endif()
    set_property(GLOBAL APPEND PROPERTY USMP_GROUP_${group}_MODELS ${name})
  endif()
endfunction()

function(_usmp_add_group target group)
  get_property(members GLOBAL PROPERTY USMP_GROUP_${group}_MODELS)
  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/usmp/group_${group})
  file(MAKE_DIRECTORY ${out_dir})
  _usmp_python_command(cmd usmp.zephyr.group)
  _usmp_zephyr_inputs(inputs)
  _usmp_compiler_sources(deps)
  set(model_args)
  foreach(member ${members})
    list(APPEND model_args --model ${member})
  endforeach()
  add_custom_command(
    OUTPUT ${out_dir}/usmp_group_${group}.c ${out_dir}/usmp_group_${group}.h
    COMMAND ${cmd} ${group} ${model_args} -o ${out_dir} ${inputs}
    DEPENDS ${deps}
    COMMENT "usmp: shared workspace of group ${group} (${members})"
    VERBATIM)
  add_library(usmp_group_${group} STATIC ${out_dir}/usmp_group_${group}.c)
  target_include_directories(usmp_group_${group} PUBLIC ${out_dir})
  foreach(member ${members})
    target_link_libraries(usmp_group_${group} PUBLIC usmp_model_${member})
  endforeach()
  target_link_libraries(${target} PRIVATE usmp_group_${group})
  add_custom_target(usmp_group_${group}_sources DEPENDS ${out_dir}/usmp_group_${group}.h)
  add_dependencies(${target} usmp_group_${group}_sources)
endfunction()

# CONFIG_USMP_MODEL: one model, no CMake code in the application. Built in
# this (module) directory, so its sources and custom command live together.
function(usmp_add_kconfig_model)
  get_filename_component(model ${CONFIG_USMP_MODEL} ABSOLUTE BASE_DIR ${APPLICATION_SOURCE_DIR})
  if(NOT EXISTS ${model})
    message(FATAL_ERROR "usmp: CONFIG_USMP_MODEL=\"${CONFIG_USMP_MODEL}\": ${model} does not exist "
      "(the path is relative to the application directory ${APPLICATION_SOURCE_DIR})")
  endif()
  if(NOT "${CONFIG_USMP_MODEL_NAME}" STREQUAL "")
    set(name ${CONFIG_USMP_MODEL_NAME})
  else()
    _usmp_default_name(${model} name)
  endif()
  set(out_dir ${CMAKE_BINARY_DIR}/usmp/${name})
  _usmp_compile_command(${model} ${name} ${out_dir} "")
  zephyr_library_named(usmp_model_${name})
  zephyr_library_sources(${out_dir}/${name}.c ${out_dir}/${name}_constants.c)
  zephyr_include_directories(${out_dir})
  # The application includes <name>.h: generate it before app compiles.
  add_custom_target(usmp_model_${name}_sources DEPENDS ${out_dir}/${name}.h)
  add_dependencies(app usmp_model_${name}_sources)
endfunction()

# usmp_add_reference_vectors(): expected outputs for on-target tests.
include(${CMAKE_CURRENT_LIST_DIR}/usmp_reference.cmake)
