#include "jobs.h"

#include <cstdio>

Smoother::Smoother(const torch::Device &device, int64_t width)
    : device_(device), width_(width) {}

void Smoother::run() { fill(); }

void Smoother::fill() {
  state_ = torch::zeros({width_}, torch::TensorOptions().device(device_));
}

void Smoother::report() const { std::printf("width %ld\n", (long)width_); }

Arena::Arena(torch::Device device, int64_t n) : device_(device) {
  block_ = torch::empty({n}, device_);
}

Mover::Mover(torch::Device device) : device_(device) {}

void Mover::retarget(torch::Device device) { device_ = device; }

void Mover::run() { auto t = torch::ones({2}, device_); }
