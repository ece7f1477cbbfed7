# run_golden.cmake: runs gpmc on one golden test and compares exit status, stdout and stderr with <name>.out.
# The command is the test file's first line `// RUN: <args>` (or the sidecar <name>.run for files that
# cannot hold one); `%s` stands for the test file. Runs from the repository root, so paths print relative.
# -DUPDATE=1 rewrites the expected file instead of comparing. Lines `// SQLITE: OUT SCRIPT [--truncate N |
# --overwrite-from N]` first build OUT, an SQLite database, from the SQL file SCRIPT with -DMAKE_SQLITE (paths
# from the repository root; OUT under a folder named `generated/`, which git ignores). Lines `// ENV: NAME=VALUE`
# set environment variables for the run (NAME= sets an empty value).
cmake_minimum_required(VERSION 3.22)
get_filename_component(dir "${TEST_FILE}" DIRECTORY)
get_filename_component(name "${TEST_FILE}" NAME_WE)
set(expected_file "${dir}/${name}.out")
file(RELATIVE_PATH rel "${ROOT}" "${TEST_FILE}")
if(EXISTS "${dir}/${name}.run")
  file(READ "${dir}/${name}.run" run_line)
else()
  file(STRINGS "${TEST_FILE}" first_lines LIMIT_COUNT 1)
  list(GET first_lines 0 run_line)
  if(NOT run_line MATCHES "^// RUN: ")
    message(FATAL_ERROR "${rel}: the first line must be `// RUN: <gpmc arguments>` (or add ${name}.run)")
  endif()
  string(REGEX REPLACE "^// RUN: " "" run_line "${run_line}")
endif()
file(STRINGS "${TEST_FILE}" sqlite_lines REGEX "^// SQLITE: ")
foreach(sqlite_line ${sqlite_lines})
  string(REGEX REPLACE "^// SQLITE: " "" sqlite_line "${sqlite_line}")
  separate_arguments(sqlite_args UNIX_COMMAND "${sqlite_line}")
  execute_process(COMMAND "${MAKE_SQLITE}" ${sqlite_args} WORKING_DIRECTORY "${ROOT}" RESULT_VARIABLE sqlite_status
                  ERROR_VARIABLE sqlite_error)
  if(NOT sqlite_status EQUAL 0)
    message(FATAL_ERROR "${rel}: building the database failed: ${sqlite_error}")
  endif()
endforeach()
string(STRIP "${run_line}" run_line)
string(REPLACE "%s" "${rel}" run_line "${run_line}")
separate_arguments(args UNIX_COMMAND "${run_line}")
file(STRINGS "${TEST_FILE}" env_lines REGEX "^// ENV: ")
set(env_args)
foreach(env_line ${env_lines})
  string(REGEX REPLACE "^// ENV: " "" env_line "${env_line}")
  string(STRIP "${env_line}" env_line)
  list(APPEND env_args "${env_line}")
endforeach()
execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${env_args} "${GPMC}" ${args} WORKING_DIRECTORY "${ROOT}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status TIMEOUT 60)
set(actual "# exit: ${status}\n# stdout:\n${out}# stderr:\n${err}")
# The provenance of JSON results names the commit and the input files' digests, which change with every commit
# and every edit of an input: the expected outputs show placeholders (the provenance unit test checks the values).
string(REGEX REPLACE "\"commit\": \"[^\"]*\"" "\"commit\": \"COMMIT\"" actual "${actual}")
string(REGEX REPLACE "\\(commit [0-9a-z-]+\\)" "(commit COMMIT)" actual "${actual}")
string(REGEX REPLACE "\"bytes\": [0-9]+,([ \n]*)\"sha256\": \"[0-9a-f]+\"" "\"bytes\": 0,\\1\"sha256\": \"SHA256\""
       actual "${actual}")
if(UPDATE)
  file(WRITE "${expected_file}" "${actual}")
  return()
endif()
if(NOT EXISTS "${expected_file}")
  message(FATAL_ERROR "${rel}: no expected output ${name}.out; run `cmake --build build --target golden-update`\n${actual}")
endif()
file(READ "${expected_file}" expected)
if(NOT actual STREQUAL expected)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${name}.actual" "${actual}")
  execute_process(COMMAND diff -u "${expected_file}" "${CMAKE_CURRENT_BINARY_DIR}/${name}.actual")
  message(FATAL_ERROR "${rel}: output differs from ${name}.out (diff above)")
endif()
