#include "model.h"

int main() {
  NetImpl net(4);
  CleanImpl clean;
  MovedImpl moved;
  auto y = net.forward(torch::ones({4}));
  return static_cast<int>(y.numel()) + static_cast<int>(moved.forward(y).numel());
}
