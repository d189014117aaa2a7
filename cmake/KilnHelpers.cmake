# Build conventions shared by every folder: warnings, sanitizers, and the
# helpers that register unit tests, FileCheck tests and fuzz targets.

# Warnings are errors for every Kiln target under gcc and clang.
set(KILN_WARNINGS -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wvla -Wformat=2 -Wno-unused-parameter)

# Under KILN_FUZZ every Kiln library carries libFuzzer's coverage
# instrumentation, so a fuzz target explores the code it calls, not just
# its own file.
if(KILN_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
  add_link_options(-fsanitize=fuzzer-no-link)
endif()

if(KILN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# kiln_target_defaults(TARGET): flags every Kiln C target carries.
function(kiln_target_defaults target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${KILN_WARNINGS}>)
endfunction()

# kiln_runtime_defaults(TARGET): kiln_target_defaults plus what the
# libraries a device links (runtime, format reader, bytecode, ELF, CPU)
# carry so an embedder's image stays small: one section per function and
# object, so a --gc-sections link keeps only what the embedder reaches, and
# in MinSizeRel builds -Oz where the compiler has it (gcc 12+, clang), which
# trades a little speed for size beyond -Os (calls instead of inlined
# copies, shorter encodings), and on x86 -malign-data=abi: gcc otherwise
# aligns every static array of 32 bytes or more to 32 for vector loads
# nothing here does (the smallest runtime lost 192 bytes of padding with
# messages, 224 without), and -fno-semantic-interposition: the runtime is
# position-independent, so the compiler otherwise treats each global
# function as replaceable at load time and neither inlines nor clones it
# within its file; a static library is never interposed (runtime-size,
# gcc 12: x86-64 with messages -48 bytes, aarch64 -24, riscv64 +32).
# Release and debug builds are unchanged.
include(CheckCCompilerFlag)
check_c_compiler_flag(-Oz KILN_HAVE_OZ)
check_c_compiler_flag(-fno-semantic-interposition KILN_HAVE_NO_SEMANTIC_INTERPOSITION)
check_c_compiler_flag(-malign-data=abi KILN_HAVE_ALIGN_DATA_ABI)
function(kiln_runtime_defaults target)
  kiln_target_defaults(${target})
  target_compile_options(${target} PRIVATE -ffunction-sections -fdata-sections)
  if(KILN_HAVE_OZ)
    target_compile_options(${target} PRIVATE $<$<CONFIG:MinSizeRel>:-Oz>)
  endif()
  if(KILN_HAVE_NO_SEMANTIC_INTERPOSITION)
    target_compile_options(${target} PRIVATE
                           $<$<CONFIG:MinSizeRel>:-fno-semantic-interposition>)
  endif()
  if(KILN_HAVE_ALIGN_DATA_ABI)
    target_compile_options(${target} PRIVATE
                           $<$<CONFIG:MinSizeRel>:-malign-data=abi>)
  endif()
endfunction()

# kiln_message_words(TARGET NAME:POS...): TARGET's C sources compile
# through format/module/message_words.py, which stores the literal format
# of each call to NAME (POS: the format's 0-based argument index) with its
# catalog words as single bytes, then the phrases of message_phrases.def
# as one byte each, a control byte or one past the words' (kiln/message.h
# says how they expand); a format listed in message_catalog.def is passed
# as its ID there instead.
# Where it ran, the target is compiled with KILN_MESSAGE_WORDS_CHECKED:
# it also refuses floating-point conversions (see KILN_MESSAGE_VARIADIC).
# Without message text, or without python3, the sources compile as they
# are (the formats then take their full size).
function(kiln_message_words target)
  if(NOT KILN_MESSAGES OR NOT KILN_PYTHON)
    if(NOT KILN_PYTHON)
      message(STATUS "${target}: message formats not compressed (no python3)")
    endif()
    return()
  endif()
  set(script ${PROJECT_SOURCE_DIR}/format/module/message_words.py)
  set(words ${PROJECT_SOURCE_DIR}/format/module/message_words.def)
  set(phrases ${PROJECT_SOURCE_DIR}/format/module/message_phrases.def)
  set(catalog ${PROJECT_SOURCE_DIR}/format/module/message_catalog.def)
  # `cmake --build B --target message-words` prints the word list that
  # saves the most over every source and call list given here.
  if(NOT TARGET message-words)
    add_custom_target(message-words
      COMMAND ${KILN_PYTHON} ${script} suggest $<TARGET_PROPERTY:message-words,SPECS>
      COMMAND_EXPAND_LISTS VERBATIM)
    # ... and `--target message-phrases` the phrases for those words.
    add_custom_target(message-phrases
      COMMAND ${KILN_PYTHON} ${script} phrases ${words} $<TARGET_PROPERTY:message-words,SPECS>
      COMMAND_EXPAND_LISTS VERBATIM)
    # ... and `--target message-catalog` rewrites message_catalog.def, the
    # formats passed as IDs, from the sources (after changing the phrases
    # or the formats; the message_catalog_current test says when).
    add_custom_target(message-catalog
      COMMAND ${KILN_PYTHON} ${script} catalog ${words} ${phrases} ${catalog}
              $<TARGET_PROPERTY:message-words,SPECS>
      COMMAND_EXPAND_LISTS VERBATIM)
  endif()
  string(REPLACE ";" "," calls "${ARGN}")
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(rewritten)
  foreach(s ${sources})
    if(NOT s MATCHES "\\.c$")
      list(APPEND rewritten ${s})
      continue()
    endif()
    get_filename_component(abs ${s} ABSOLUTE BASE_DIR ${dir})
    get_filename_component(abs_dir ${abs} DIRECTORY)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
    # One copy per target: the runtime's variants share their sources.
    set(out ${CMAKE_BINARY_DIR}/message_words/${target}/${rel})
    get_filename_component(out_dir ${out} DIRECTORY)
    file(MAKE_DIRECTORY ${out_dir})
    add_custom_command(OUTPUT ${out}
      COMMAND ${KILN_PYTHON} ${script} transform ${words} ${phrases} ${abs} ${out}
              --catalog=${catalog} ${ARGN}
      DEPENDS ${abs} ${script} ${words} ${phrases} ${catalog} VERBATIM)
    list(APPEND rewritten ${out})
    # A source of an optional part (KILN_MESSAGE_OPTIONAL, set where it is
    # added) gets no catalog entries: they would cost every build bytes.
    get_source_file_property(optional ${abs} KILN_MESSAGE_OPTIONAL)
    set(mark "")
    if(optional)
      set(mark "?")
    endif()
    set_property(TARGET message-words APPEND PROPERTY SPECS "${mark}${abs}=${calls}")
    # The copy's quoted includes still resolve next to the original.
    target_include_directories(${target} PRIVATE ${abs_dir})
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${rewritten})
  target_compile_definitions(${target} PRIVATE KILN_MESSAGE_WORDS_CHECKED)
endfunction()

# kiln_add_check_test(NAME SOURCES a.c b.c LIBS x y): a Check unit test.
function(kiln_add_check_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  kiln_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} PkgConfig::CHECK)
  add_test(NAME ${name} COMMAND ${name})
  # Check forks each test by default; no-fork keeps sanitizer reports whole.
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "CK_FORK=no")
endfunction()

# kiln_add_fuzzer(NAME SOURCES ... LIBS ... [CORPUS dir]): a libFuzzer
# target, built only with KILN_FUZZ=ON (clang); ctest runs it for
# KILN_FUZZ_SECONDS so CI time stays bounded.
function(kiln_add_fuzzer name)
  cmake_parse_arguments(ARG "" "CORPUS" "SOURCES;LIBS" ${ARGN})
  if(NOT KILN_FUZZ)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  kiln_target_defaults(${name})
  target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  # libFuzzer writes new inputs into its first corpus folder: make that a
  # fresh build-tree folder so seeds in the source tree are only read.
  set(work_corpus ${CMAKE_CURRENT_BINARY_DIR}/${name}.corpus)
  file(MAKE_DIRECTORY ${work_corpus})
  set(corpus_args ${work_corpus} ${ARG_CORPUS})
  add_test(NAME ${name}
           COMMAND ${name} -max_total_time=${KILN_FUZZ_SECONDS} -timeout=10
                   -rss_limit_mb=2048 -print_final_stats=1 ${corpus_args})
  set_tests_properties(${name} PROPERTIES LABELS fuzz)
endfunction()

# kiln_add_lit_dir(DIR TOOLS t1 t2): every *.mlir / *.test file in DIR whose
# first lines hold `// RUN:` commands becomes one ctest test, run by
# tests/lit/run-lit.sh with %s, %kiln-opt etc. substituted.
function(kiln_add_lit_dir dir)
  cmake_parse_arguments(ARG "" "" "TOOLS" ${ARGN})
  file(GLOB_RECURSE cases CONFIGURE_DEPENDS ${dir}/*.mlir ${dir}/*.test)
  foreach(case ${cases})
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/tests/lit ${case})
    string(REPLACE "/" "." tname "lit.${rel}")
    set(tool_args)
    foreach(t ${ARG_TOOLS})
      list(APPEND tool_args "${t}=$<TARGET_FILE:${t}>")
    endforeach()
    add_test(NAME ${tname}
             COMMAND bash ${PROJECT_SOURCE_DIR}/tests/lit/run-lit.sh ${case}
                     FileCheck=${KILN_FILECHECK} not=${KILN_NOT}
                     mlir-opt=${KILN_MLIR_OPT} ${tool_args})
    set_tests_properties(${tname} PROPERTIES LABELS lit SKIP_RETURN_CODE 77)
  endforeach()
endfunction()

# kiln_add_child_dirs(): add_subdirectory for every child folder of the
# current source folder that has a CMakeLists.txt, in name order, so a new
# stage or test folder needs no edit to its parent.
macro(kiln_add_child_dirs)
  file(GLOB _kiln_children LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}
       CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT _kiln_children)
  foreach(_kiln_child ${_kiln_children})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${_kiln_child}/CMakeLists.txt)
      add_subdirectory(${_kiln_child})
    endif()
  endforeach()
endmacro()
