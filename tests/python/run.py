#!/usr/bin/env python3
"""run.py: runs one suite of the Python tests (unittest) against a build, for ctest.

  run.py SUITE BUILD_PYTHON_DIR GPMC SOURCE_ROOT   (SUITE: module or plots)

Exit status 77 (ctest's skip) with a message when what the suite needs is missing: the compiled module gpmc._core
(built only where pybind11 is installed) for `module`, matplotlib for `plots`.
"""
import importlib
import os
import sys
import unittest

SKIP = 77


def main():
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    suite, package_dir, gpmc, root = sys.argv[1:5]
    sys.path.insert(0, os.path.abspath(package_dir))
    os.environ["GPMC_TEST_GPMC"] = os.path.abspath(gpmc)
    os.environ["GPMC_TEST_ROOT"] = os.path.abspath(root)
    os.chdir(root)  # model paths in the tests are relative to the repository, as in the docs
    needs = {"module": ("gpmc._core", "the gpmc module was not built (pybind11-dev and python3-pybind11 were not "
                        "found, or a checked build)"),
             "plots": ("matplotlib", "matplotlib is not installed (apt-get install python3-matplotlib)")}[suite]
    try:
        importlib.import_module(needs[0])
    except ImportError as e:
        print(f"skipped: {needs[1]}: {e}")
        return SKIP
    here = os.path.dirname(os.path.abspath(__file__))
    tests = unittest.defaultTestLoader.discover(here, pattern=f"test_{suite}*.py", top_level_dir=here)
    result = unittest.TextTestRunner(verbosity=2).run(tests)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
