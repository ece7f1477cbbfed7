// module.cpp: the pybind11 bindings of gpmc._core: each function takes plain Python values, runs the pipeline
// (python/api.h) without the GIL on a thread with a large stack, and returns the JSON document as dicts and lists.
// Errors raise _core.Failure(text, diagnostics); gpmc/__init__.py turns it into gpmc.Error.
#include <pthread.h>

#include <exception>
#include <functional>
#include <optional>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/api.h"

namespace py = pybind11;

namespace gpm::python {
namespace {

// A JSON value as Python data: objects to dicts (in order), arrays to lists, numbers to int or float.
py::object to_python(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return py::none();
    case Json::value_t::boolean: return py::bool_(value.get<bool>());
    case Json::value_t::number_integer: return py::int_(value.get<int64_t>());
    case Json::value_t::number_unsigned: return py::int_(value.get<uint64_t>());
    case Json::value_t::number_float: return py::float_(value.get<double>());
    case Json::value_t::string: return py::str(value.get_ref<const std::string&>());
    case Json::value_t::array: {
      py::list list(value.size());
      size_t i = 0;
      for (const auto& item : value) list[i++] = to_python(item);
      return list;
    }
    case Json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items()) dict[py::str(key)] = to_python(item);
      return dict;
    }
    default: return py::none();  // binary and discarded values: gpmc writes none
  }
}

// Runs `work` without the GIL on a thread with a 1 GiB stack (reserved, not committed), as gpmc runs every command,
// so that the deepest input the nesting guard admits never exhausts the stack; rethrows what it threw.
template <typename T>
T run_large_stack(const std::function<T()>& work) {
  struct Job {
    const std::function<T()>* work;
    std::optional<T> result;
    std::exception_ptr error;
  } job{&work, std::nullopt, nullptr};
  {
    py::gil_scoped_release release;
    auto entry = [](void* arg) -> void* {
      auto* j = static_cast<Job*>(arg);
      try {
        j->result.emplace((*j->work)());
      } catch (...) {
        j->error = std::current_exception();
      }
      return nullptr;
    };
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, size_t(1) << 30);
    pthread_t thread;
    if (pthread_create(&thread, &attr, entry, &job) == 0) pthread_join(thread, nullptr);
    else entry(&job);
    pthread_attr_destroy(&attr);
  }
  if (job.error) std::rethrow_exception(job.error);
  return std::move(*job.result);
}

py::object run_json(const std::function<Json()>& work) {
  Json doc = run_large_stack(work);
  return to_python(doc);
}

}  // namespace
}  // namespace gpm::python

PYBIND11_MODULE(_core, m) {
  using namespace gpm::python;
  m.doc() = "gpmc's compiler and evaluator (use the gpmc package: import gpmc)";
  m.attr("version") = GPM_VERSION;
  m.attr("source_stdlib") = GPM_STDLIB_DIR;  // the source tree's standard library (a build tree's module)
  // gpmc reported errors: Failure(text, diagnostics). The type is kept for the module's lifetime (the reference is
  // never released: a static py::object would be destroyed after the interpreter).
  static PyObject* failure_type = py::exception<Failure>(m, "Failure").release().ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Failure& e) {
      py::object error = py::handle(failure_type)(py::str(e.what()), to_python(e.diagnostics));
      PyErr_SetObject(failure_type, error.ptr());
    }
  });

  // What every call takes (python/api.h): gpmc/__init__.py fills one from its keyword arguments.
  py::class_<Request>(m, "Request")
      .def(py::init<>())
      .def_readwrite("include_dirs", &Request::include_dirs)
      .def_readwrite("stdlib_dir", &Request::stdlib_dir)
      .def_readwrite("warnings_as_errors", &Request::warnings_as_errors)
      .def_readwrite("sets", &Request::sets)
      .def_readwrite("strategy", &Request::strategy);

  m.def("check", [](const Request& r, const std::vector<std::string>& files) {
    return run_json([&] { return check(r, files); });
  }, py::arg("request"), py::arg("files"));
  m.def("load", [](const Request& r, const std::string& machine, const std::string& app) {
    return run_json([&] { return load(r, machine, app); });
  }, py::arg("request"), py::arg("machine"), py::arg("app"));
  m.def("eval", [](const Request& r, const std::string& machine, const std::string& app, const std::string& backend) {
    return run_json([&] { return eval(r, machine, app, backend); });
  }, py::arg("request"), py::arg("machine"), py::arg("app"), py::arg("backend") = "interp");
  m.def("compare_strategies", [](const Request& r, const std::string& machine, const std::string& app) {
    return run_json([&] { return compare_strategies(r, machine, app); });
  }, py::arg("request"), py::arg("machine"), py::arg("app"));
  m.def("timeline", [](const Request& r, const std::string& machine, const std::string& app) {
    return run_json([&] { return timeline(r, machine, app); });
  }, py::arg("request"), py::arg("machine"), py::arg("app"));
  m.def("sweep", [](const Request& r, const std::string& machine, const std::string& app,
                    const std::vector<std::string>& vary, const std::string& backend, unsigned threads,
                    uint64_t max_points, bool strict) {
    SweepRequest s{vary, backend, threads, max_points, strict};
    return run_json([&] { return sweep(r, machine, app, s); });
  }, py::arg("request"), py::arg("machine"), py::arg("app"), py::arg("vary"), py::arg("backend") = "jit",
     py::arg("threads") = 0u, py::arg("max_points") = uint64_t(0), py::arg("strict") = false);
  m.def("search", [](const Request& r, const std::string& machine, const std::string& app, int threads,
                     uint64_t max_orders, bool makespans) {
    SearchResult result = run_large_stack<SearchResult>([&] {
      return search(r, machine, app, threads, max_orders, makespans);
    });
    py::dict doc = to_python(result.doc);
    if (makespans) doc["makespans"] = py::cast(result.makespans);
    return doc;
  }, py::arg("request"), py::arg("machine"), py::arg("app"), py::arg("threads") = 0,
     py::arg("max_orders") = uint64_t(20'000'000), py::arg("makespans") = false);
  m.def("validate", [](const Request& r, const std::string& machine, const std::string& app,
                       const std::string& measured, const std::string& backend) {
    return run_json([&] { return validate(r, machine, app, measured, backend); });
  }, py::arg("request"), py::arg("machine"), py::arg("app"), py::arg("measured"), py::arg("backend") = "interp");
  m.def("project", [](const Request& r, const std::string& trace, const std::string& from, const std::string& to,
                      const std::string& measured_on_b) {
    return run_json([&] { return project(r, trace, from, to, measured_on_b); });
  }, py::arg("request"), py::arg("trace"), py::arg("from_machine"), py::arg("to_machine"),
     py::arg("measured_on_b") = "");
}
