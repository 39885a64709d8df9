// torch-tidy cuda-compat stand-in for <pybind11/pybind11.h>.
//
// Debian has no pybind11 package, and LibTorch's <torch/extension.h> pulls
// in Python.h and pybind11. Extension sources only need the binding block
// to parse: PYBIND11_MODULE(name, m) { m.def("f", &f, "doc", py::arg("x")); }.
// This declares just that much; it registers nothing and links to nothing.
// Only for static analysis.
#pragma once

#include <utility>

namespace pybind11 {

/// A keyword argument name, as in py::arg("x") or py::arg("x") = 1.
struct arg {
  explicit arg(const char *Name) : name(Name) {}
  template <typename T> arg &operator=(T &&) { return *this; }
  const char *name;
};

/// The module object the binding block receives.
class module_ {
public:
  explicit module_(const char *Name) : name(Name) {}
  /// m.def(name, function, extras...): accepts and ignores the extras
  /// (docstrings, py::arg, return-value policies).
  template <typename Func, typename... Extra>
  module_ &def(const char *, Func &&, const Extra &...) {
    return *this;
  }
  module_ def_submodule(const char *Name, const char * = nullptr) {
    return module_(Name);
  }
  const char *name;
};
using module = module_;

} // namespace pybind11

/// Defines the body as a function taking the module, as pybind11 does; the
/// Python entry point (PyInit_<name>) is not declared.
#define PYBIND11_MODULE(name, variable)                                        \
  [[maybe_unused]] static void pybind11_init_##name(::pybind11::module_ &);    \
  [[maybe_unused]] static void pybind11_init_##name(                           \
      ::pybind11::module_ &variable)
