// A small stand-in for <torch/torch.h> with the same declarations, namespaces
// and aliases as LibTorch 1.13 where the checks look: parsing the real
// header takes ~8 s, these tests parse this one in milliseconds. The lit
// tests include it with -isystem, as real projects include LibTorch.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace c10 {
template <typename T> class optional {
public:
  optional() = default;
  optional(T v) : v_(std::make_shared<T>(std::move(v))) {}
  T &value() { return *v_; }
  bool has_value() const { return v_ != nullptr; }

private:
  std::shared_ptr<T> v_;
};
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
struct Device {
  Device(DeviceType t, int index = -1) : type_(t), index_(index) {}
  Device(const std::string &s);
  DeviceType type() const { return type_; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }

private:
  DeviceType type_;
  int index_;
};
enum class ScalarType : int8_t { Long, Int, Float, Bool };
class Scalar {
public:
  Scalar(int64_t) {}
  Scalar(int) {}
  Scalar(double) {}
};
template <typename T> class ArrayRef {
public:
  ArrayRef(std::initializer_list<T>) {}
  ArrayRef(const std::vector<T> &) {}
  ArrayRef(const T &) {}
};
using IntArrayRef = ArrayRef<int64_t>;
} // namespace c10

namespace at {
using c10::Device;
using c10::DeviceType;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
class TensorOptions {
public:
  TensorOptions() = default;
  TensorOptions(c10::DeviceType) {}
  TensorOptions(c10::Device) {}
  TensorOptions(c10::ScalarType) {}
  TensorOptions device(c10::Device) const { return *this; }
  TensorOptions dtype(c10::ScalarType) const { return *this; }
  TensorOptions requires_grad(bool = true) const { return *this; }
};
class TensorBase {
public:
  int64_t dim() const;
  int64_t numel() const;
  int64_t size(int64_t dim) const;
  bool defined() const;
  c10::Device device() const;
  bool is_cuda() const;
  TensorOptions options() const;
};
class Tensor : public TensorBase {
public:
  Tensor() = default;
  Tensor(const Tensor &) = default;
  Tensor(Tensor &&) = default;
  Tensor &operator=(const Tensor &) & = default;
  Tensor &operator=(Tensor &&) & = default;
  Tensor to(c10::Device, bool non_blocking = false, bool copy = false) const;
  Tensor to(c10::ScalarType, bool non_blocking = false) const;
  Tensor to(const TensorOptions &, bool non_blocking = false) const;
  Tensor to(const Tensor &other) const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor clone() const;
  Tensor detach() const;
  Tensor contiguous() const;
  Tensor max() const;
  Tensor min() const;
  Tensor all() const;
  Tensor view(IntArrayRef) const;
  Tensor t() const;
  Tensor index_select(int64_t dim, const Tensor &index) const;
  Tensor gather(int64_t dim, const Tensor &index) const;
  Tensor clamp(c10::optional<Scalar> min, c10::optional<Scalar> max = {}) const;
  Tensor &set_requires_grad(bool) ;
  template <typename T> T item() const;
  Tensor operator[](int64_t) const;
  Tensor operator<(const Scalar &) const;
  Tensor operator+(const Tensor &) const;
  Tensor operator*(const Tensor &) const;
};
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor arange(Scalar end, TensorOptions options = {});
Tensor tensor(std::initializer_list<int64_t> values, TensorOptions options = {});
Tensor matmul(const Tensor &a, const Tensor &b);
} // namespace at

namespace torch {
using at::Tensor;
using at::TensorOptions;
using c10::Device;
using c10::kCPU;
using c10::kCUDA;
using at::arange;
using at::empty;
using at::matmul;
using at::ones;
using at::randn;
using at::tensor;
using at::zeros;
constexpr auto kLong = c10::ScalarType::Long;
constexpr auto kFloat = c10::ScalarType::Float;
namespace autograd {
using Variable = at::Tensor;
}
namespace cuda {
bool is_available();
}

template <typename Key, typename Value> class OrderedDict {
public:
  Value &operator[](const Key &);
  void insert(Key k, Value v);
};

namespace nn {
template <typename Contained> class ModuleHolder;
class Module : public std::enable_shared_from_this<Module> {
public:
  explicit Module(std::string name);
  Module();
  virtual ~Module() = default;
  Tensor &register_parameter(std::string name, Tensor tensor,
                             bool requires_grad = true);
  Tensor &register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType>
  register_module(std::string name, std::shared_ptr<ModuleType> module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType>
  register_module(std::string name, ModuleHolder<ModuleType> module_holder);
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  virtual void to(c10::Device device, bool non_blocking = false);
  void train(bool on = true);
  void eval();
};

template <typename Derived> class Cloneable : public virtual Module {
public:
  using Module::Module;
  virtual void reset() = 0;
};

namespace detail {
struct ModuleHolderIndicator {};
} // namespace detail

template <typename Contained>
class ModuleHolder : detail::ModuleHolderIndicator {
protected:
  std::shared_ptr<Contained> impl_;

public:
  ModuleHolder() : impl_(std::make_shared<Contained>()) {}
  ModuleHolder(std::nullptr_t) : impl_(nullptr) {}
  template <typename Head, typename... Tail,
            typename = typename std::enable_if<
                !std::is_same<typename std::decay<Head>::type,
                              std::nullptr_t>::value>::type>
  explicit ModuleHolder(Head &&head, Tail &&...tail)
      : impl_(new Contained(std::forward<Head>(head),
                            std::forward<Tail>(tail)...)) {}
  ModuleHolder(std::shared_ptr<Contained> module) : impl_(std::move(module)) {}
  Contained *operator->() { return impl_.get(); }
  const Contained *operator->() const { return impl_.get(); }
  Contained &operator*() { return *impl_; }
  const std::shared_ptr<Contained> &ptr() const { return impl_; }
  Contained *get() { return impl_.get(); }
  bool is_empty() const noexcept { return impl_ == nullptr; }
  template <typename... Args> auto operator()(Args &&...args) {
    return impl_->forward(std::forward<Args>(args)...);
  }
};

#define TORCH_MODULE_IMPL(Name, ImplType)                                      \
  class Name : public torch::nn::ModuleHolder<ImplType> { /* NOLINT */         \
  public:                                                                      \
    using torch::nn::ModuleHolder<ImplType>::ModuleHolder;                     \
  }
#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)

struct LinearOptions {
  LinearOptions(int64_t in, int64_t out) : in_(in), out_(out) {}
  int64_t in_, out_;
};
class LinearImpl : public Cloneable<LinearImpl> {
public:
  LinearImpl(int64_t in, int64_t out) : LinearImpl(LinearOptions(in, out)) {}
  explicit LinearImpl(const LinearOptions &options);
  void reset() override;
  Tensor forward(const Tensor &input);
  Tensor weight, bias;
};
TORCH_MODULE(Linear);

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num, int64_t dim) : num_(num), dim_(dim) {}
  int64_t num_embeddings() const { return num_; }
  int64_t num_, dim_;
};
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
public:
  EmbeddingImpl(int64_t num, int64_t dim)
      : EmbeddingImpl(EmbeddingOptions(num, dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);
  void reset() override;
  Tensor forward(const Tensor &indices);
  EmbeddingOptions options;
  Tensor weight;
};
TORCH_MODULE(Embedding);

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}
  double p_;
};
class DropoutImpl : public Cloneable<DropoutImpl> {
public:
  explicit DropoutImpl(const DropoutOptions &options = {});
  explicit DropoutImpl(double p) : DropoutImpl(DropoutOptions(p)) {}
  void reset() override;
  Tensor forward(Tensor input);
};
TORCH_MODULE(Dropout);

class ReLUImpl : public Cloneable<ReLUImpl> {
public:
  ReLUImpl();
  void reset() override;
  Tensor forward(Tensor input);
};
TORCH_MODULE(ReLU);

template <size_t D, typename Derived>
class MaxPoolImpl : public Cloneable<Derived> {
public:
  explicit MaxPoolImpl(int64_t kernel);
  void reset() override;
};
class MaxPool2dImpl : public MaxPoolImpl<2, MaxPool2dImpl> {
public:
  using MaxPoolImpl<2, MaxPool2dImpl>::MaxPoolImpl;
  Tensor forward(const Tensor &input);
};
TORCH_MODULE(MaxPool2d);

class SequentialImpl : public Cloneable<SequentialImpl> {
public:
  SequentialImpl();
  template <typename... Modules> explicit SequentialImpl(Modules &&...modules);
  void reset() override;
  template <typename M> void push_back(M module);
  Tensor forward(Tensor input);
};
TORCH_MODULE(Sequential);

class ModuleListImpl : public Cloneable<ModuleListImpl> {
public:
  ModuleListImpl();
  void reset() override;
  template <typename M> void push_back(M module);
};
TORCH_MODULE(ModuleList);

namespace functional {
Tensor embedding(const Tensor &input, const Tensor &weight);
} // namespace functional
} // namespace nn
} // namespace torch
