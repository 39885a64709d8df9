#include "model.h"

#include <iostream>

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Recommender model(/*users=*/100, /*items=*/50, /*dim=*/8);
  model->to(device);
  torch::optim::Adam opt(model->parameters(), /*lr=*/1e-3);

  for (int step = 0; step < 10; ++step) {
    auto users = torch::randint(0, 100, {32}, torch::kLong).to(device);
    auto items = torch::randint(0, 50, {32}, torch::kLong).to(device);
    auto target = torch::rand({32}, device);
    auto loss = torch::mse_loss(model(users, items), target);
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::cout << "step " << step << " loss " << loss.item<float>() << "\n";
  }
  auto recent = model->history({{1, 2, 3}, {4}});
  std::cout << "history " << recent.sizes() << "\n";
}
