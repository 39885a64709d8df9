#include <lib.h>

// The constructor calls its library base's init(), whose body says it
// registers nothing.
struct NetImpl : lib::BaseImpl {
  NetImpl() {
    Fc = torch::nn::Linear(2, 2);
    init();
  }
  torch::nn::Linear Fc{nullptr};
};
