# python.cmake: finds the Python interpreter and pybind11 for the gpmc Python module (python/, docs/python.md).
# Sets GPMC_PYTHON_EXECUTABLE (the interpreter the module is built for and the Python tests run with) and
# GPMC_PYTHON_MODULE (ON when the module is built). The module is optional: without pybind11, or in a checked build
# (GPMC_SANITIZE, GPMC_FUZZ: an instrumented extension cannot be loaded by an uninstrumented interpreter), everything
# else builds and the Python tests are skipped.
option(GPMC_PYTHON "Build the gpmc Python module where pybind11 is installed" ON)
set(GPMC_PYTHON_MODULE OFF)

# The interpreter: the first python3 that can import pybind11 (Debian's python3-pybind11 goes with Debian's python3,
# which may not be the first python3 on the PATH), else the first python3 found. -DGPMC_PYTHON_EXECUTABLE=... wins.
if(NOT GPMC_PYTHON_EXECUTABLE)
  find_program(GPMC_PYTHON_ON_PATH NAMES python3)
  set(candidates ${GPMC_PYTHON_ON_PATH} /usr/bin/python3)
  list(REMOVE_DUPLICATES candidates)
  set(chosen "")
  foreach(candidate ${candidates})
    if(candidate AND EXISTS ${candidate})
      execute_process(COMMAND ${candidate} -c "import pybind11" RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
      if(status EQUAL 0)
        set(chosen ${candidate})
        break()
      endif()
    endif()
  endforeach()
  if(NOT chosen)
    set(chosen ${GPMC_PYTHON_ON_PATH})
  endif()
  set(GPMC_PYTHON_EXECUTABLE "${chosen}" CACHE FILEPATH "The Python interpreter of the gpmc module and the Python tests")
endif()

if(NOT GPMC_PYTHON)
  message(STATUS "GPMC_PYTHON=OFF: the gpmc Python module is not built")
elseif(GPMC_SANITIZE OR GPMC_FUZZ)
  message(STATUS "Checked build: the gpmc Python module is not built (an instrumented extension needs an "
                 "instrumented interpreter); its tests are skipped")
elseif(NOT GPMC_PYTHON_EXECUTABLE)
  message(STATUS "No python3: the gpmc Python module is not built")
else()
  # pybind11's CMake files need the interpreter's headers (python3-dev) and stop the configure step without them.
  execute_process(COMMAND ${GPMC_PYTHON_EXECUTABLE} -c
                  "import os, sysconfig, pybind11; h = os.path.join(sysconfig.get_paths()['include'], 'Python.h'); \
assert os.path.exists(h), h; print(pybind11.get_cmake_dir(), end='')"
                  RESULT_VARIABLE status OUTPUT_VARIABLE pybind11_dir ERROR_QUIET)
  if(status EQUAL 0)
    set(PYTHON_EXECUTABLE ${GPMC_PYTHON_EXECUTABLE})
    find_package(pybind11 CONFIG QUIET HINTS ${pybind11_dir})
  endif()
  if(pybind11_FOUND)
    set(GPMC_PYTHON_MODULE ON)
    message(STATUS "gpmc Python module: pybind11 ${pybind11_VERSION} for ${GPMC_PYTHON_EXECUTABLE}")
    # The module is a shared object holding the layers' static libraries: they are compiled position-independent.
    # -fno-semantic-interposition keeps the code the executable runs as it is without -fPIC (calls within a
    # library may still be inlined; the linker relaxes the GOT loads of the non-PIE gpmc).
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
    add_compile_options(-fno-semantic-interposition)
  else()
    message(STATUS "No pybind11 or no Python headers for ${GPMC_PYTHON_EXECUTABLE}: the gpmc Python module is not "
                   "built (apt-get install pybind11-dev python3-pybind11 python3-dev)")
  endif()
endif()

# Where `cmake --install` puts the gpmc package: under the prefix, as Python's site-packages (with the prefix
# ~/.local it is the user's site folder, searched without PYTHONPATH).
execute_process(COMMAND ${GPMC_PYTHON_EXECUTABLE} -c
                "import sys; print(f'lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages', end='')"
                OUTPUT_VARIABLE python_site ERROR_QUIET)
if(NOT python_site)
  set(python_site lib/python3/site-packages)
endif()
set(GPMC_PYTHON_INSTALL_DIR ${python_site} CACHE STRING "Where the gpmc Python package is installed, under the prefix")
