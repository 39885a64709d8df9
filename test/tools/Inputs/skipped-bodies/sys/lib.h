// A library's header, included as a system header.
#pragma once
#include <torch/torch.h>

namespace lib {
// Not a template: its body cannot name user code, and the parse leaves it
// out.
inline int twice(int X) { return 2 * X; }

// A template: instantiated with a user's type, its body instantiates the
// user's code.
template <typename F> void apply(F Fn) { Fn(); }

// A module class: the registration analysis follows a user module's calls
// into its bases' methods.
struct BaseImpl : torch::nn::Module {
  void init() { Count = 1; }
  int Count = 0;
};
} // namespace lib
