// libtorch-cuda-in-dataset-get on the real LibTorch headers: the real
// Dataset, TensorTransform, Stack and make_data_loader, where
// `x.to(torch::kCUDA)` is `to(TensorOptions)` through an implicit conversion.
// RUN: %check_clang_tidy %s libtorch-cuda-in-dataset-get %t -- -- %torch_includes

#include <torch/torch.h>

torch::Tensor normalise(const torch::Tensor &t) {
  return (t.to(torch::kFloat) / 255.0).to(torch::Device("cuda:0"));
}

class Images : public torch::data::datasets::Dataset<Images> {
public:
  Images(torch::Tensor images, torch::Tensor labels, torch::Device device)
      : images_(std::move(images)), labels_(labels.to(torch::kCUDA)),
        device_(device) {}

  torch::data::Example<> get(size_t index) override {
    auto image = images_[index].to(torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'to' moves a tensor to a CUDA device in 'Images::get', which the DataLoader calls on its worker threads
    auto mask = torch::ones({28, 28}, torch::TensorOptions().dtype(torch::kFloat).device(device_));
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'ones' creates a tensor on a device that is not provably the CPU in 'Images::get'
    auto scaled = normalise(image * mask);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'normalise' does CUDA work ('to' moves a tensor to a CUDA device) in 'Images::get'
    // labels_ went to the GPU once, in the constructor: reading it is not
    // GPU work of each call.
    auto label = labels_[index];
    auto cpu = images_[index].to(torch::kFloat).to(torch::kCPU).pin_memory();
    return {scaled + cpu, label};
  }

  torch::optional<size_t> size() const override { return images_.size(0); }

private:
  torch::Tensor images_, labels_;
  torch::Device device_;
};

struct ToGpu : torch::data::transforms::TensorTransform<> {
  torch::Tensor operator()(torch::Tensor input) override {
    return input.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'cuda' moves a tensor to the GPU in 'ToGpu::operator()'
  }
};

void train(torch::nn::Linear model, torch::Device device) {
  auto dataset = Images(torch::rand({64, 28, 28}), torch::randint(10, {64}),
                        device)
                     .map(ToGpu())
                     .map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(
      std::move(dataset), torch::data::DataLoaderOptions().batch_size(8).workers(2));
  for (auto &batch : *loader) {
    // The right place: the training loop.
    auto x = batch.data.to(device).view({-1, 784});
    auto y = batch.target.to(device);
    model->forward(x).sum().backward();
  }
}
