# install_debug.cmake: installs gpmc.debug as DEST/.build-id/xx/yyyy.debug, named by the executable's build ID.
# cmake -DEXE=build/gpmc -DDEBUG=build/gpmc.debug -DDEST=PREFIX/lib/debug -P install_debug.cmake
# gdb finds it there by the build ID alone (`set debug-file-directory PREFIX/lib/debug`; /usr/lib/debug by default),
# so the installed tree can be moved.
find_program(READELF NAMES readelf)
if(NOT READELF OR NOT EXISTS ${DEBUG})
  message(STATUS "Not installing gpmc's debug information (no readelf or no ${DEBUG})")
  return()
endif()
execute_process(COMMAND ${READELF} -n ${EXE} OUTPUT_VARIABLE notes RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT notes MATCHES "Build ID: ([0-9a-f][0-9a-f])([0-9a-f]+)")
  message(STATUS "Not installing gpmc's debug information (${EXE} has no build ID)")
  return()
endif()
set(target ${DEST}/.build-id/${CMAKE_MATCH_1}/${CMAKE_MATCH_2}.debug)
message(STATUS "Installing: ${target}")
file(MAKE_DIRECTORY ${DEST}/.build-id/${CMAKE_MATCH_1})
file(COPY_FILE ${DEBUG} ${target} ONLY_IF_DIFFERENT)
