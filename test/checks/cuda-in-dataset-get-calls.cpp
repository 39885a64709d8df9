// RUN: %check_clang_tidy %s libtorch-cuda-in-dataset-get %t -- -- %mock_torch

#include <torch/torch.h>

namespace data = torch::data;

// CUDA work reached through calls is reported at the call in get(), with a
// note at each call down the chain and at the operation.
torch::Tensor toGpu(const torch::Tensor &t) { return t.cuda(); }
torch::Tensor normalise(const torch::Tensor &t) { return toGpu(t) * 0.5; }
torch::Tensor cpuOnly(const torch::Tensor &t) { return t.to(torch::kFloat); }

struct Images : data::datasets::Dataset<Images> {
  data::Example<> get(size_t i) override {
    auto x = normalise(images_[i]);
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'normalise' does CUDA work ('cuda' moves a tensor to the GPU) in 'Images::get', which the DataLoader calls on its worker threads
    // CHECK-NOTES: :[[@LINE-7]]:58: note: 'normalise' calls 'toGpu' here
    // CHECK-NOTES: :[[@LINE-9]]:56: note: 'cuda' moves a tensor to the GPU here
    auto y = cpuOnly(labels_[i]);
    return {x, load(i)};
    // CHECK-NOTES: :[[@LINE-1]]:16: warning: 'Images::load' does CUDA work ('zeros' creates a tensor on a CUDA device) in 'Images::get'
    // CHECK-NOTES: :[[@LINE+4]]:12: note: 'zeros' creates a tensor on a CUDA device here
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor load(size_t i) {
    return torch::zeros({3}, torch::kCUDA);
  }
  torch::Tensor images_, labels_;
};

// Recursion and mutual recursion end; the chain reported is a shortest one.
torch::Tensor odd(const torch::Tensor &t, int n);
torch::Tensor even(const torch::Tensor &t, int n) {
  return n == 0 ? t : odd(t, n - 1);
}
torch::Tensor odd(const torch::Tensor &t, int n) {
  return n == 0 ? t.to(torch::kCUDA) : even(t, n - 1);
}
int countdown(int n) { return n == 0 ? 0 : countdown(n - 1); }
torch::Tensor selfish(const torch::Tensor &t, int n) {
  return n == 0 ? t : selfish(t, n - 1);
}

struct Recursive : data::datasets::Dataset<Recursive> {
  data::Example<> get(size_t i) override {
    auto a = even(x_, countdown(3));
    // CHECK-NOTES: :[[@LINE-1]]:14: warning: 'even' does CUDA work ('to' moves a tensor to a CUDA device) in 'Recursive::get'
    // CHECK-NOTES: :[[@LINE-14]]:23: note: 'even' calls 'odd' here
    // CHECK-NOTES: :[[@LINE-12]]:21: note: 'to' moves a tensor to a CUDA device here
    auto b = selfish(x_, 3);
    return {a + b, x_};
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor x_;
};

// A member put on the GPU once, by the constructor or by a method that the
// training loop calls on the main thread: get() only reads it, and each
// call does no GPU work of its own. Silent.
struct OnGpu : data::datasets::Dataset<OnGpu> {
  explicit OnGpu(torch::Tensor x)
      : x_(x.to(torch::kCUDA)), y_(std::move(x)) {}
  data::Example<> get(size_t i) override { return {x_[i], y_[i] + x_[i]}; }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor x_, y_;
};
struct MovedLater : data::datasets::Dataset<MovedLater> {
  void toDevice(torch::Device d) { table_ = table_.to(d).contiguous(); }
  torch::Tensor row(size_t i) { return table_[i]; }
  data::Example<> get(size_t i) override { return {row(i), labels_[i]}; }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor table_, labels_;
};

// A member moved by code that runs on the worker threads (a helper that
// get() calls), and read through another helper.
struct MovedOnWorker : data::datasets::Dataset<MovedOnWorker> {
  void ensureOnGpu() { table_ = table_.cuda(); }
  torch::Tensor row(size_t i) { return table_[i]; }
  data::Example<> get(size_t i) override {
    ensureOnGpu();
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'MovedOnWorker::ensureOnGpu' does CUDA work ('cuda' moves a tensor to the GPU) in 'MovedOnWorker::get'
    // CHECK-NOTES: :[[@LINE-5]]:40: note: 'cuda' moves a tensor to the GPU here
    return {row(i), labels_[i]};
    // CHECK-NOTES: :[[@LINE-1]]:13: warning: 'MovedOnWorker::row' does CUDA work (reading 'table_', a tensor member the class moved to CUDA) in 'MovedOnWorker::get'
    // CHECK-NOTES: :[[@LINE-7]]:40: note: 'table_' is read here
    // CHECK-NOTES: :[[@LINE-9]]:33: note: 'table_' is made a CUDA tensor here
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor table_, labels_;
};

// A member that the worker's helper moves through the GPU and back to the
// CPU: the helper's move is CUDA work, reading the member afterwards is not.
struct BackOnCpu : data::datasets::Dataset<BackOnCpu> {
  void roundTrip() {
    table_ = table_.cuda().to(torch::kCPU);
    labels_ = labels_.cuda().to(torch::Device("cpu"));
  }
  torch::Tensor row(size_t i) { return table_[i] + labels_[i]; }
  data::Example<> get(size_t i) override {
    roundTrip();
    // CHECK-NOTES: :[[@LINE-1]]:5: warning: 'BackOnCpu::roundTrip' does CUDA work ('cuda' moves a tensor to the GPU) in 'BackOnCpu::get'
    // CHECK-NOTES: :[[@LINE-7]]:21: note: 'cuda' moves a tensor to the GPU here
    return {row(i), labels_[i]};
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor table_, labels_;
};

// A virtual call follows the method it names.
struct Loader {
  virtual ~Loader() = default;
  virtual torch::Tensor load(size_t i) { return torch::ones({2}).cuda(); }
};
struct Virtual : data::datasets::Dataset<Virtual> {
  explicit Virtual(Loader *l) : loader_(l) {}
  data::Example<> get(size_t i) override {
    auto x = loader_->load(i);
    // CHECK-NOTES: :[[@LINE-1]]:23: warning: 'Loader::load' does CUDA work ('cuda' moves a tensor to the GPU) in 'Virtual::get'
    // CHECK-NOTES: :[[@LINE-7]]:66: note: 'cuda' moves a tensor to the GPU here
    return {x, x};
  }
  c10::optional<size_t> size() const override { return 10; }
  Loader *loader_;
};

//===--- No warnings below. -------------------------------------------------===//

// Members moved back to the CPU, or kept there.
struct CpuMembers : data::datasets::Dataset<CpuMembers> {
  explicit CpuMembers(torch::Tensor x)
      : x_(x.to(torch::kCUDA).cpu()), y_(x.to(torch::kCPU)) {}
  data::Example<> get(size_t i) override { return {x_[i], y_[i]}; }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor x_, y_;
};

// A helper that does CUDA work but is not called from get().
torch::Tensor unused(const torch::Tensor &t) { return t.cuda(); }
struct CallsCpuHelpers : data::datasets::Dataset<CallsCpuHelpers> {
  data::Example<> get(size_t i) override {
    return {cpuOnly(x_), countdown(2) > 0 ? x_ : x_};
  }
  c10::optional<size_t> size() const override { return 10; }
  torch::Tensor x_;
};
