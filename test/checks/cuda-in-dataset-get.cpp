// RUN: %check_clang_tidy %s libtorch-cuda-in-dataset-get %t -- -- %mock_torch

#include <torch/torch.h>
#include <cuda_runtime_api.h>

namespace data = torch::data;

// The full message once; the rest of the file matches its start.
struct MovesInGet : data::datasets::Dataset<MovesInGet> {
  data::Example<> get(size_t i) override {
    return {images_[i].to(torch::kCUDA), labels_[i]};
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'to' moves a tensor to a CUDA device in 'MovesInGet::get', which the DataLoader calls on its worker threads: there it runs on the thread's current device (cuda:0, not the model's), adds a synchronous copy per sample and defeats pinned-memory transfers; keep the data on the CPU here and move each batch in the training loop: batch.data.to(device) [libtorch-cuda-in-dataset-get]
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor images_, labels_;
};

// Every spelling of a CUDA device, and a configurable one.
struct Spellings : data::datasets::Dataset<Spellings> {
  explicit Spellings(torch::Device d) : device_(d) {}
  data::Example<> get(size_t i) override {
    auto a = x_.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'cuda' moves a tensor to the GPU in 'Spellings::get'
    auto b = x_.to(torch::Device("cuda:1"));
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'to' moves a tensor to a CUDA device in 'Spellings::get'
    auto c = x_.to(torch::Device(torch::kCUDA, 1), torch::kFloat);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'to' moves a tensor to a CUDA device
    auto d = x_.to(device_);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'to' moves a tensor to a device that is not provably the CPU in 'Spellings::get'
    torch::Device local = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
    auto e = x_.to(local);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'to' moves a tensor to a CUDA device
    auto f = x_.to(torch::TensorOptions().dtype(torch::kFloat).device(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'to' moves a tensor to a CUDA device
    return {a + b + c + d + e + f, x_};
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Device device_;
  torch::Tensor x_;
};

// Factories and options with a CUDA device; CUDA library and runtime calls.
struct Factories : data::datasets::Dataset<Factories> {
  data::Example<> get(size_t i) override {
    auto z = torch::zeros({3}, torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'zeros' creates a tensor on a CUDA device in 'Factories::get'
    auto opts = torch::TensorOptions().device(torch::Device("cuda"));
    auto r = torch::randn({3}, opts);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'randn' creates a tensor on a CUDA device
    auto o = torch::ones({3}, torch::dtype(torch::kFloat).device(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'ones' creates a tensor on a CUDA device
    at::cuda::getCurrentCUDAStream().synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'c10::cuda::getCurrentCUDAStream' works on the current CUDA device in 'Factories::get'
    c10::cuda::CUDAGuard guard(torch::Device(torch::kCUDA, 1));
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'c10::cuda::CUDAGuard::CUDAGuard' works on the current CUDA device
    cudaMemcpy(nullptr, nullptr, 4, cudaMemcpyHostToDevice);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaMemcpy' is a CUDA runtime call in 'Factories::get'
    return {z + r + o, z};
  }
  c10::optional<size_t> size() const override { return 10; }
};

// Batch datasets, stateful datasets and transforms are hooks too.
struct Batches : data::datasets::BatchDataset<Batches, data::Example<>> {
  data::Example<> get_batch(c10::ArrayRef<size_t> request) override {
    return {x_.cuda(), x_};
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'cuda' moves a tensor to the GPU in 'Batches::get_batch'
  }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};

struct Stream : data::datasets::StatefulDataset<Stream, data::Example<>> {
  c10::optional<data::Example<>> get_batch(size_t n) override {
    return data::Example<>{x_.cuda(), x_};
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'cuda' moves a tensor to the GPU in 'Stream::get_batch'
  }
  c10::optional<size_t> size() const override { return {}; }
  void reset() override {}
  torch::Tensor x_;
};

struct ToGpu : data::transforms::Transform<data::Example<>, data::Example<>> {
  data::Example<> apply(data::Example<> e) override {
    return {e.data.cuda(), e.target};
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'cuda' moves a tensor to the GPU in 'ToGpu::apply'
  }
};

struct StackOnGpu
    : data::transforms::BatchTransform<std::vector<data::Example<>>, data::Example<>> {
  data::Example<> apply_batch(std::vector<data::Example<>> b) override {
    return {torch::empty({2}, torch::device(torch::kCUDA)), b[0].target};
    // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'empty' creates a tensor on a CUDA device in 'StackOnGpu::apply_batch'
  }
};

struct Normalise : data::transforms::TensorTransform<> {
  torch::Tensor operator()(torch::Tensor t) override {
    return t.to(torch::kCUDA) * 2.0;
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' moves a tensor to a CUDA device in 'Normalise::operator()'
  }
};

// A lambda written in get() runs there.
struct WithLambda : data::datasets::Dataset<WithLambda> {
  data::Example<> get(size_t i) override {
    auto move = [](const torch::Tensor &t) { return t.cuda(); };
    // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: 'cuda' moves a tensor to the GPU in 'WithLambda::get'
    return {move(x_), x_};
  }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};

// A dataset class template: reported once, in its instantiation.
template <typename T>
struct Templated : data::datasets::Dataset<Templated<T>> {
  data::Example<> get(size_t i) override {
    return {x_.cuda(), x_};
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'cuda' moves a tensor to the GPU in 'Templated<float>::get'
  }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};
template struct Templated<float>;
template struct Templated<int>;

// A hook defined out of line.
struct OutOfLine : data::datasets::Dataset<OutOfLine> {
  data::Example<> get(size_t i) override;
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};
data::Example<> OutOfLine::get(size_t i) { return {x_.cuda(), x_}; }
// CHECK-MESSAGES: :[[@LINE-1]]:55: warning: 'cuda' moves a tensor to the GPU in 'OutOfLine::get'

// A device that a function of the file returns, or that a local is set to.
torch::Device trainingDevice() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}
torch::Device cpuDevice() { return torch::kCPU; }
torch::Device configuredDevice(); // another file's, no project run
struct ChosenDevice : data::datasets::Dataset<ChosenDevice> {
  data::Example<> get(size_t i) override {
    auto x = x_[i].to(trainingDevice());
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'to' moves a tensor to a CUDA device in 'ChosenDevice::get'
    // CHECK-MESSAGES: :[[@LINE-8]]:10: note: the device is CUDA here
    auto y = x_[i].to(cpuDevice());
    auto z = x_[i].to(configuredDevice());
    return {x, y + z};
  }
  torch::Tensor label(size_t i, bool gpu) {
    torch::Device d = torch::kCPU;
    if (gpu)
      d = torch::Device("cuda:1");
    return torch::full({1}, 1.0, d);
  }
  data::Example<> get_labelled(size_t i) { return {x_[i], label(i, true)}; }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};
struct LabelsOnGpu : data::datasets::Dataset<LabelsOnGpu> {
  data::Example<> get(size_t i) override { return inner_.get_labelled(i); }
  // CHECK-MESSAGES: :[[@LINE-1]]:58: warning: 'ChosenDevice::get_labelled' does CUDA work ('full' creates a tensor on a CUDA device) in 'LabelsOnGpu::get'
  // CHECK-MESSAGES: :[[@LINE-7]]:59: note: 'ChosenDevice::get_labelled' calls 'ChosenDevice::label' here
  // CHECK-MESSAGES: :[[@LINE-10]]:12: note: 'full' creates a tensor on a CUDA device here
  // CHECK-MESSAGES: :[[@LINE-12]]:11: note: the device is CUDA here
  c10::optional<size_t> size() const override { return 1; }
  ChosenDevice inner_;
};

//===--- Not CUDA work, or not a hook: no warnings below. ------------------===//

struct CpuOnly : data::datasets::Dataset<CpuOnly> {
  data::Example<> get(size_t i) override {
    auto a = x_.to(torch::kFloat);                  // dtype only
    auto b = x_.to(torch::kCPU);                    // the CPU
    auto c = x_.to(torch::Device("cpu"));
    auto d = x_.pin_memory();                       // for fast transfers later
    auto e = x_.cpu();
    auto f = torch::zeros({3}, torch::kFloat);
    auto g = torch::ones({3}, torch::TensorOptions().dtype(torch::kLong));
    auto h = x_.to(y_);                             // follows another tensor
    auto k = x_.to(x_.device());
    bool gpu = torch::cuda::is_available();         // a query
    auto n = torch::cuda::device_count();
    return {a + b + c + d + e + f + g + h + k, x_};
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor x_, y_;
};

// A get() that calls itself.
struct SelfRecursive : data::datasets::Dataset<SelfRecursive> {
  data::Example<> get(size_t i) override {
    return i ? get(i - 1) : data::Example<>{x_, x_};
  }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};

// A `get` in a class that is not a dataset.
struct Cache {
  virtual ~Cache() = default;
  virtual torch::Tensor get(size_t i) { return x_.cuda(); }
  torch::Tensor x_;
};
struct GpuCache : Cache {
  torch::Tensor get(size_t i) override { return x_.to(torch::kCUDA); }
};
// A transform's other methods, and a non-overriding `get` in a dataset.
struct Helpers : data::datasets::Dataset<Helpers> {
  data::Example<> get(size_t i) override { return {x_[i], x_[i]}; }
  torch::Tensor get(const std::string &key) { return x_.cuda(); }
  c10::optional<size_t> size() const override { return 1; }
  torch::Tensor x_;
};

// The training loop is where data moves: not a hook.
void train(torch::Device device) {
  auto loader = data::make_data_loader(CpuOnly());
  for (auto &batch : *loader) {
    auto x = batch[0].data.to(device);
    auto y = batch[0].target.to(device);
  }
}
