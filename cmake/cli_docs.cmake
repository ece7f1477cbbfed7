# cli_docs.cmake: writes gpmc's bash and zsh completions and, with help2man, its man page, from the built gpmc.
# cmake -DGPMC=path/to/gpmc -DOUT=dir [-DHELP2MAN=path/to/help2man] -P cli_docs.cmake
# OUT/bash/gpmc and OUT/zsh/_gpmc come from `gpmc completion bash|zsh` (the CLI11 definition itself); OUT/gpmc.1 from
# `gpmc --help`, `gpmc --version` and each subcommand's --help, so none of them can drift from the command line.

file(MAKE_DIRECTORY ${OUT}/bash ${OUT}/zsh)
foreach(shell bash zsh)
  if(shell STREQUAL "bash")
    set(file ${OUT}/bash/gpmc)
  else()
    set(file ${OUT}/zsh/_gpmc)
  endif()
  execute_process(COMMAND ${GPMC} completion ${shell} OUTPUT_FILE ${file}.tmp RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "`${GPMC} completion ${shell}` failed (${status})")
  endif()
  file(RENAME ${file}.tmp ${file})
endforeach()

if(NOT HELP2MAN)
  return()
endif()

# The subcommands listed by `gpmc --help` (CLI11's "Subcommands:" section, one `  name  description` per line).
execute_process(COMMAND ${GPMC} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "`${GPMC} --help` failed (${status})")
endif()
string(REGEX REPLACE ".*\nSubcommands:\n" "" listed "${help}")
string(REGEX MATCHALL "(^|\n)  [a-z][a-z-]*" names "${listed}")

# help2man's include file: each subcommand's --help as it prints it, then the files and the environment.
set(include "[SUBCOMMANDS IN DETAIL]\n")
foreach(name ${names})
  string(STRIP "${name}" name)
  execute_process(COMMAND ${GPMC} ${name} --help OUTPUT_VARIABLE text RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "`${GPMC} ${name} --help` failed (${status})")
  endif()
  string(REPLACE "${GPMC}" "gpmc" text "${text}")  # CLI11 names the program by the path it was run as
  # roff: a backslash is \e, and a line starting with `.` or `'` would be a request.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(APPEND include ".SS \"gpmc ${name}\"\n.nf\n${text}.fi\n")
endforeach()
string(APPEND include
  "[ENVIRONMENT]\n"
  ".TP\n.B GPMC_STDLIB\n"
  "The folder of the standard library (roofline.gpm, transfer.gpm...), loaded before every model. When it is not set,\n"
  "gpmc uses share/gpmc/stdlib beside the folder of its executable (an installed tree, wherever it is moved), else\n"
  "the source tree's stdlib/ it was built from.\n"
  ".TP\n.B NO_COLOR\n"
  "When set and not empty, --color=auto (the default) does not colour diagnostics, even on a terminal.\n"
  "[FILES]\n"
  ".TP\n.I PREFIX/share/gpmc/stdlib\n"
  "The standard library.\n"
  ".TP\n.I PREFIX/share/gpmc/machines, PREFIX/share/gpmc/apps\n"
  "The shipped machine and application models.\n"
  "[EXIT STATUS]\n"
  "0 on success, 1 on any error in the input or the command line (diagnostics on standard error), 2 on an internal\n"
  "error.\n")
file(WRITE ${OUT}/gpmc.h2m "${include}")
execute_process(COMMAND ${HELP2MAN} --no-info --section=1 --include=${OUT}/gpmc.h2m
                        "--name=compile and evaluate .gpm performance models of GPU machines and applications"
                        --output=${OUT}/gpmc.1.tmp ${GPMC}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "help2man failed (${status})")
endif()
file(RENAME ${OUT}/gpmc.1.tmp ${OUT}/gpmc.1)
