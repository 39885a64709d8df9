#include <lib.h>

// Instantiated only from lib::apply's body.
template <typename T> struct Fill {
  void operator()() const {
    T *P = torch::ones({3}).data_ptr<T>();
    P[0] = 1;
  }
};

void run() { lib::apply(Fill<float>{}); }
