#pragma once
#include <torch/torch.h>

// Keeps the device it is constructed with; defined in jobs.cpp.
class Smoother {
public:
  Smoother(const torch::Device &device, int64_t width);
  void run();
  void report() const;

private:
  void fill();
  torch::Device device_;
  int64_t width_;
  torch::Tensor state_;
};

// Allocates on the device it is given as it is constructed.
class Arena {
public:
  Arena(torch::Device device, int64_t n);

private:
  torch::Device device_;
  torch::Tensor block_;
};

// Its device can change after construction: what a construction gives it
// says nothing of a later call.
class Mover {
public:
  explicit Mover(torch::Device device);
  void retarget(torch::Device device);
  void run();

private:
  torch::Device device_;
};
