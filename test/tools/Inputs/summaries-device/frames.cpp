#include "devices.h"

// A dataset whose get() moves each sample to the device devices.cpp picks:
// CUDA work on the DataLoader's worker threads.
struct Frames : torch::data::datasets::Dataset<Frames> {
  torch::data::Example<> get(size_t i) override {
    return {frames_[i].to(training_device()), labels_[i]};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor frames_, labels_;
};

// Exported frames stay on the CPU.
struct Exported : torch::data::datasets::Dataset<Exported> {
  torch::data::Example<> get(size_t i) override {
    return {frames_[i].to(export_device()), labels_[i]};
  }
  c10::optional<size_t> size() const override { return 8; }
  torch::Tensor frames_, labels_;
};
