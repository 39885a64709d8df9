// A small stand-in for <torch/torch.h> with the same declarations, namespaces
// and aliases as LibTorch 1.13 where the checks look: parsing the real
// header takes ~8 s, these tests parse this one in milliseconds. The lit
// tests include it with -isystem, as real projects include LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <tuple>
#include <type_traits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// cudaStream_t is `CUstream_st *` (cuda_runtime_api.h).
struct CUstream_st;

namespace c10 {
struct nullopt_t {};
constexpr nullopt_t nullopt{};
template <typename T> class optional {
public:
  optional() = default;
  optional(nullopt_t) {}
  optional(T v) : v_(std::make_shared<T>(std::move(v))) {}
  template <typename U, typename = std::enable_if_t<
                            std::is_constructible<T, U &&>::value &&
                            !std::is_same<std::decay_t<U>, optional>::value &&
                            !std::is_same<std::decay_t<U>, T>::value>>
  optional(U &&u) : v_(std::make_shared<T>(std::forward<U>(u))) {}
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
  int8_t index() const { return index_; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }

private:
  DeviceType type_;
  int index_;
};
enum class ScalarType : int8_t {
  Long,
  Int,
  Float,
  Bool,
  Byte,
  Char,
  Short,
  Half,
  Double,
  BFloat16,
  ComplexFloat,
  ComplexDouble
};
// Element types of their own (c10/util/Half.h, BFloat16.h, complex.h).
struct alignas(2) Half {
  unsigned short x;
};
struct alignas(2) BFloat16 {
  unsigned short x;
};
template <typename T> struct alignas(sizeof(T) * 2) complex {
  T real_, imag_;
};
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
  const T &operator[](size_t i) const;
  size_t size() const;
};
using IntArrayRef = ArrayRef<int64_t>;
} // namespace c10

namespace caffe2 {
// c10/util/typeid.h
class TypeMeta {
public:
  template <typename T> static TypeMeta Make();
};
} // namespace caffe2
namespace c10 {
// c10/core/DefaultDtype.h
void set_default_dtype(caffe2::TypeMeta dtype);
} // namespace c10

// c10/macros/Macros.h: what host and device code may both call.
#if defined(__CUDA__)
#define C10_HOST_DEVICE __attribute__((host)) __attribute__((device))
#else
#define C10_HOST_DEVICE
#endif

namespace at {
// ATen/core/TensorAccessor.h: what accessor<T, N>() and
// packed_accessor32/64<T, N>() give, holding the tensor's data pointer.
// Their operator[] gives an accessor of one dimension fewer, and the
// element itself in the last dimension (LibTorch specialises N == 1; here
// the element is given for every N, which is what a one-dimensional
// accessor does).
template <typename T> struct DefaultPtrTraits {
  typedef T *PtrType;
};
template <typename T> struct RestrictPtrTraits {
  typedef T *__restrict__ PtrType;
};
template <typename T, size_t N,
          template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessor {
public:
  TensorAccessor(T *data, const int64_t *sizes, const int64_t *strides);
  T *data();
  C10_HOST_DEVICE T &operator[](index_t i) const;
};
template <typename T, size_t N,
          template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessor {
public:
  T *data();
  C10_HOST_DEVICE T &operator[](index_t i) const;
  // What a kernel receives instead of a Tensor.
  typename PtrTraits<T>::PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};
template <typename T, size_t N,
          template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 =
    GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N,
          template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 =
    GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
} // namespace at

namespace c10 {
// c10/util/Exception.h: LibTorch's errors derive from std::exception (not
// std::runtime_error).
class Error : public std::exception {
public:
  Error(std::string msg);
  const char *what() const noexcept override;
  const std::string &msg() const;
};
class IndexError : public Error {
  using Error::Error;
};
class OutOfMemoryError : public Error {
  using Error::Error;
};
namespace detail {
[[noreturn]] void torchCheckFail(const char *func, const char *file,
                                 uint32_t line, const char *msg);
} // namespace detail
// c10/cuda/CUDAException.h
class CUDAError : public c10::Error {
  using Error::Error;
};
namespace cuda {
// c10/cuda/CUDACachingAllocator.h
namespace CUDACachingAllocator {
void emptyCache();
} // namespace CUDACachingAllocator
struct CUDAStream {
  void synchronize() const;
  // cudaStream_t, which the CUDA headers declare.
  operator CUstream_st *() const;
};
CUDAStream getCurrentCUDAStream(int8_t device_index = -1);
// c10/cuda/CUDAStream.h and CUDAGuard.h: work on other streams.
CUDAStream getStreamFromPool(const bool isHighPriority = false,
                             int8_t device = -1);
void setCurrentCUDAStream(CUDAStream stream);
void device_synchronize();
struct CUDAGuard {
  explicit CUDAGuard(c10::Device device);
};
struct CUDAStreamGuard {
  explicit CUDAStreamGuard(CUDAStream stream);
};
} // namespace cuda
} // namespace c10

#define TORCH_CHECK(cond, ...)                                                 \
  if (!(cond)) {                                                               \
    ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, #cond);        \
  }
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond)
// ATen/Dispatch.h: the lambda is expanded once per dtype and called there.
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                            \
  [&] {                                                                        \
    switch (TYPE) {                                                            \
    case ::c10::ScalarType::Float: {                                           \
      using scalar_t = float;                                                  \
      return __VA_ARGS__();                                                    \
    }                                                                          \
    case ::c10::ScalarType::Double: {                                          \
      using scalar_t = double;                                                 \
      return __VA_ARGS__();                                                    \
    }                                                                          \
    default:                                                                   \
      ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, NAME);       \
    }                                                                          \
  }()

// The form of the real ATen/Dispatch.h: the type goes through locals of the
// macro's lambda and ::detail::scalar_type before the switch.
namespace detail {
inline ::c10::ScalarType scalar_type(::c10::ScalarType s) { return s; }
} // namespace detail
#define AT_PRIVATE_CASE_TYPE(enum_type, type, ...)                             \
  case ::c10::ScalarType::enum_type: {                                         \
    using scalar_t = type;                                                     \
    return __VA_ARGS__();                                                      \
  }
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                                 \
  [&] {                                                                        \
    const auto &the_type = TYPE;                                               \
    ::c10::ScalarType _st = ::detail::scalar_type(the_type);                   \
    switch (_st) {                                                             \
      AT_PRIVATE_CASE_TYPE(Byte, unsigned char, __VA_ARGS__)                   \
      AT_PRIVATE_CASE_TYPE(Char, signed char, __VA_ARGS__)                     \
      AT_PRIVATE_CASE_TYPE(Int, int, __VA_ARGS__)                              \
      AT_PRIVATE_CASE_TYPE(Long, long, __VA_ARGS__)                            \
      AT_PRIVATE_CASE_TYPE(Float, float, __VA_ARGS__)                          \
      AT_PRIVATE_CASE_TYPE(Double, double, __VA_ARGS__)                        \
    default:                                                                   \
      ::c10::detail::torchCheckFail(__func__, __FILE__, __LINE__, NAME);       \
    }                                                                          \
  }()

namespace at {
namespace cuda {
// c10/macros/Macros.h: `using namespace c10::cuda;`.
using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getStreamFromPool;
void device_synchronize();
} // namespace cuda
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
  // A device by its name, as LibTorch's constructor template of anything a
  // Device is made from takes it (here for std::string alone).
  template <typename T,
            typename std::enable_if<
                std::is_same<typename std::decay<T>::type, std::string>::value,
                int>::type = 0>
  TensorOptions(T &&) {}
  TensorOptions device(c10::Device) const { return *this; }
  TensorOptions dtype(c10::ScalarType) const { return *this; }
  TensorOptions requires_grad(bool = true) const { return *this; }
};
class Tensor;
namespace indexing {
constexpr c10::nullopt_t None = c10::nullopt;
struct Slice {
  Slice(c10::optional<int64_t> start = {}, c10::optional<int64_t> stop = {},
        c10::optional<int64_t> step = {});
};
struct TensorIndex {
  TensorIndex(Slice);
  TensorIndex(const Tensor &);
  TensorIndex(int64_t);
};
} // namespace indexing
class TensorBase {
public:
  int64_t dim() const;
  int64_t numel() const;
  int64_t size(int64_t dim) const;
  IntArrayRef sizes() const;
  bool defined() const;
  c10::Device device() const;
  bool is_cuda() const;
  TensorOptions options() const;
  // Raw memory: valid while the storage lives. The accessors of an rvalue
  // are deleted, as in LibTorch 1.13.
  void *data_ptr() const;
  template <typename T> T *data_ptr() const;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() const &;
  template <typename T, size_t N> TensorAccessor<T, N> accessor() && = delete;
  bool is_contiguous() const;
  template <typename T, size_t N,
            template <typename U> class PtrTraits = DefaultPtrTraits,
            typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t>
  generic_packed_accessor() const &;
  template <typename T, size_t N,
            template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const &;
  template <typename T, size_t N,
            template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() && = delete;
  template <typename T, size_t N,
            template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const &;
  template <typename T, size_t N,
            template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() && = delete;
  // LibTorch 2.1+.
  template <typename T> T *mutable_data_ptr() const;
  template <typename T> const T *const_data_ptr() const;
};
class Tensor : public TensorBase {
public:
  Tensor() = default;
  Tensor(const Tensor &) = default;
  Tensor(Tensor &&) = default;
  Tensor &operator=(const Tensor &) & = default;
  Tensor &operator=(Tensor &&) & = default;
  Tensor &operator=(const Scalar &) &;
  // Moves and conversions.
  Tensor to(c10::Device, c10::ScalarType, bool non_blocking = false,
            bool copy = false) const;
  // No to(Device): as in LibTorch, `t.to(kCUDA)` and `t.to(device)` go
  // through TensorOptions' implicit constructors (else kCUDA is ambiguous).
  Tensor to(c10::ScalarType, bool non_blocking = false) const;
  Tensor to(TensorOptions, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor &other, bool non_blocking = false) const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor pin_memory() const;
  c10::ScalarType scalar_type() const;
  // Tensor::data() is the tensor's data (autograd); data<T>() its pointer.
  Tensor data() const;
  template <typename T> T *data() const;
  Tensor permute(IntArrayRef dims) const;
  Tensor masked_select(const Tensor &mask) const;
  Tensor softmax(int64_t dim) const;
  Tensor &copy_(const Tensor &src, bool non_blocking = false);
  // Ops that keep their input's device.
  Tensor clone() const;
  Tensor detach() const;
  Tensor contiguous() const;
  Tensor view(IntArrayRef) const;
  Tensor reshape(IntArrayRef) const;
  Tensor flatten(int64_t start = 0, int64_t end = -1) const;
  Tensor unsqueeze(int64_t) const;
  Tensor squeeze(int64_t) const;
  Tensor expand(IntArrayRef) const;
  Tensor t() const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor long_() const;
  Tensor sum() const;
  Tensor mean() const;
  Tensor abs() const;
  Tensor add(const Tensor &) const;
  Tensor mul(const Tensor &) const;
  Tensor sub(const Tensor &) const;
  Tensor matmul(const Tensor &) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor max() const;
  Tensor min() const;
  Tensor max(const Tensor &other) const;
  Tensor min(const Tensor &other) const;
  Tensor all() const;
  Tensor any() const;
  Tensor clamp(c10::optional<Scalar> min, c10::optional<Scalar> max = {}) const;
  Tensor &clamp_(c10::optional<Scalar> min, c10::optional<Scalar> max = {});
  Tensor remainder(const Scalar &) const;
  Tensor fmod(const Scalar &) const;
  Tensor where(const Tensor &condition, const Tensor &other) const;
  // Index producers.
  Tensor argmax(c10::optional<int64_t> dim = {}, bool keepdim = false) const;
  Tensor argmin(c10::optional<int64_t> dim = {}, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1) const;
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  Tensor nonzero() const;
  // Index ops.
  Tensor index_select(int64_t dim, const Tensor &index) const;
  Tensor gather(int64_t dim, const Tensor &index, bool sparse_grad = false) const;
  Tensor scatter(int64_t dim, const Tensor &index, const Tensor &src) const;
  Tensor &scatter_(int64_t dim, const Tensor &index, const Tensor &src);
  Tensor scatter_add(int64_t dim, const Tensor &index, const Tensor &src) const;
  Tensor &scatter_add_(int64_t dim, const Tensor &index, const Tensor &src);
  Tensor index_add(int64_t dim, const Tensor &index, const Tensor &source) const;
  Tensor &index_add_(int64_t dim, const Tensor &index, const Tensor &source);
  Tensor index_copy(int64_t dim, const Tensor &index, const Tensor &source) const;
  Tensor &index_copy_(int64_t dim, const Tensor &index, const Tensor &source);
  Tensor index_fill(int64_t dim, const Tensor &index, const Scalar &value) const;
  Tensor &index_fill_(int64_t dim, const Tensor &index, const Scalar &value);
  Tensor &index_put_(std::initializer_list<Tensor> indices, const Tensor &values);
  Tensor &index_put_(std::initializer_list<Tensor> indices, const Scalar &value);
  Tensor take(const Tensor &index) const;
  Tensor take_along_dim(const Tensor &indices, c10::optional<int64_t> dim = {}) const;
  Tensor index(std::initializer_list<Tensor> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  // Sub-ranges and fills.
  Tensor slice(int64_t dim = 0, c10::optional<int64_t> start = {},
               c10::optional<int64_t> end = {}, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes,
                                       int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor &fill_(const Scalar &value);
  Tensor &set_(const Tensor &source) const;
  Tensor masked_fill(const Tensor &mask, const Scalar &value) const;
  Tensor &masked_fill_(const Tensor &mask, const Scalar &value);
  Tensor cumprod(int64_t dim) const;
  Tensor operator-(const Scalar &) const;
  Tensor operator[](int64_t) const;
  Tensor operator[](const Tensor &) const;
  template <typename T> T item() const;
  Tensor &set_requires_grad(bool);
  void backward() const;
  // Arithmetic and comparisons.
  Tensor operator-() const;
  Tensor operator<(const Scalar &) const;
  Tensor operator<=(const Scalar &) const;
  Tensor operator>(const Scalar &) const;
  Tensor operator>=(const Scalar &) const;
  Tensor operator<(const Tensor &) const;
  Tensor operator>=(const Tensor &) const;
  Tensor operator&(const Tensor &) const;
  Tensor operator+(const Tensor &) const;
  Tensor operator-(const Tensor &) const;
  Tensor operator*(const Tensor &) const;
  Tensor operator/(const Tensor &) const;
  Tensor operator+(const Scalar &) const;
  Tensor operator*(const Scalar &) const;
  Tensor &operator+=(const Tensor &);
  explicit operator bool() const;
};
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, const Scalar &value, TensorOptions options = {});
Tensor full_like(const Tensor &self, const Scalar &value,
                 TensorOptions options = {});
Tensor linspace(const Scalar &start, const Scalar &end, int64_t steps,
                TensorOptions options = {});
Tensor cumprod(const Tensor &self, int64_t dim);
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor randint(int64_t high, IntArrayRef size, TensorOptions options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size,
               TensorOptions options = {});
Tensor randperm(int64_t n, TensorOptions options = {});
Tensor arange(const Scalar &end, TensorOptions options = {});
Tensor arange(const Scalar &start, const Scalar &end, TensorOptions options = {});
Tensor tensor(std::initializer_list<int64_t> values, TensorOptions options = {});
Tensor tensor(double value, TensorOptions options = {});
Tensor tensor(const std::vector<int64_t> &values, TensorOptions options = {});
Tensor from_blob(void *data, IntArrayRef sizes, TensorOptions options = {});
Tensor from_blob(void *data, IntArrayRef sizes, IntArrayRef strides,
                 const TensorOptions &options = {});
Tensor from_blob(void *data, IntArrayRef sizes,
                 const std::function<void(void *)> &deleter,
                 const TensorOptions &options = {});
Tensor from_blob(void *data, IntArrayRef sizes, IntArrayRef strides,
                 const std::function<void(void *)> &deleter,
                 const TensorOptions &options = {});
Tensor softmax(const Tensor &self, int64_t dim);
Tensor add(const Tensor &self, const Tensor &other);
Tensor scalar_tensor(const Scalar &s, TensorOptions options = {});
Tensor zeros_like(const Tensor &self, TensorOptions options = {});
Tensor empty_like(const Tensor &self, TensorOptions options = {});
Tensor cat(std::initializer_list<Tensor> tensors, int64_t dim = 0);
Tensor stack(std::initializer_list<Tensor> tensors, int64_t dim = 0);
Tensor matmul(const Tensor &a, const Tensor &b);
Tensor max(const Tensor &self, const Tensor &other);
Tensor min(const Tensor &self, const Tensor &other);
Tensor relu(const Tensor &a);
Tensor argmax(const Tensor &self, c10::optional<int64_t> dim = {}, bool keepdim = false);
Tensor argmin(const Tensor &self, c10::optional<int64_t> dim = {}, bool keepdim = false);
std::tuple<Tensor, Tensor> topk(const Tensor &self, int64_t k, int64_t dim = -1);
std::tuple<Tensor, Tensor> sort(const Tensor &self, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor &self, int64_t dim = -1, bool descending = false);
Tensor nonzero(const Tensor &self);
Tensor multinomial(const Tensor &self, int64_t num_samples, bool replacement = false);
Tensor clamp(const Tensor &self, c10::optional<Scalar> min, c10::optional<Scalar> max = {});
Tensor remainder(const Tensor &self, const Scalar &other);
Tensor fmod(const Tensor &self, const Scalar &other);
Tensor where(const Tensor &condition, const Tensor &self, const Tensor &other);
Tensor searchsorted(const Tensor &sorted_sequence, const Tensor &self,
                    bool out_int32 = false, bool right = false);
Tensor bucketize(const Tensor &self, const Tensor &boundaries,
                 bool out_int32 = false, bool right = false);
Tensor index_select(const Tensor &self, int64_t dim, const Tensor &index);
Tensor gather(const Tensor &self, int64_t dim, const Tensor &index, bool sparse_grad = false);
Tensor scatter(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &src);
Tensor scatter_add(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &src);
Tensor index_add(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &source);
Tensor index_copy(const Tensor &self, int64_t dim, const Tensor &index, const Tensor &source);
Tensor index_fill(const Tensor &self, int64_t dim, const Tensor &index, const Scalar &value);
Tensor take(const Tensor &self, const Tensor &index);
Tensor take_along_dim(const Tensor &self, const Tensor &indices, c10::optional<int64_t> dim = {});
Tensor embedding(const Tensor &weight, const Tensor &indices, int64_t padding_idx = -1,
                 bool scale_grad_by_freq = false, bool sparse = false);
std::tuple<Tensor, Tensor, Tensor, Tensor>
embedding_bag(const Tensor &weight, const Tensor &indices, const Tensor &offsets);
Tensor nll_loss(const Tensor &self, const Tensor &target);
Tensor cross_entropy_loss(const Tensor &self, const Tensor &target);
Tensor mse_loss(const Tensor &self, const Tensor &target);
} // namespace at

namespace torch {
// LibTorch brings ATen's functions into torch:: with `using namespace at;`.
using namespace at;
using at::Tensor;
using at::TensorOptions;
using c10::Device;
using c10::DeviceType;
using c10::kCPU;
using c10::kCUDA;
constexpr auto kLong = c10::ScalarType::Long;
constexpr auto kInt = c10::ScalarType::Int;
constexpr auto kFloat = c10::ScalarType::Float;
constexpr auto kBool = c10::ScalarType::Bool;
constexpr auto kByte = c10::ScalarType::Byte;
constexpr auto kChar = c10::ScalarType::Char;
constexpr auto kShort = c10::ScalarType::Short;
constexpr auto kHalf = c10::ScalarType::Half;
constexpr auto kDouble = c10::ScalarType::Double;
constexpr auto kBFloat16 = c10::ScalarType::BFloat16;
constexpr auto kComplexFloat = c10::ScalarType::ComplexFloat;
constexpr auto kComplexDouble = c10::ScalarType::ComplexDouble;
// torch/types.h: fixed-width names.
constexpr auto kUInt8 = kByte;
constexpr auto kInt8 = kChar;
constexpr auto kInt16 = kShort;
constexpr auto kInt32 = kInt;
constexpr auto kInt64 = kLong;
constexpr auto kFloat16 = kHalf;
constexpr auto kFloat32 = kFloat;
constexpr auto kFloat64 = kDouble;
constexpr auto kF32 = kFloat32;
constexpr auto kF64 = kFloat64;
inline TensorOptions dtype(c10::ScalarType t) { return TensorOptions(t); }
inline TensorOptions device(c10::Device d) { return TensorOptions(d); }
// torch/serialize.h
template <typename Value> void load(Value &value, const std::string &path);
namespace autograd {
using Variable = at::Tensor;
using variable_list = std::vector<Variable>;
struct AutogradContext {
  void save_for_backward(variable_list to_save);
  variable_list get_saved_variables() const;
};
// torch/csrc/autograd/custom_function.h: apply(args...) runs
// T::forward(ctx, args...) and records T::backward.
template <class T> struct Function {
  template <typename X = T, typename... Args>
  static auto apply(Args &&...args)
      -> decltype(X::forward(static_cast<AutogradContext *>(nullptr),
                             static_cast<Args &&>(args)...));
};
} // namespace autograd
namespace cuda {
bool is_available();
int64_t device_count();
void synchronize(int64_t device_index = -1);
} // namespace cuda
struct NoGradGuard {
  NoGradGuard();
  ~NoGradGuard();
};
using Error = c10::Error;
// torch/library.h: operator registration (`m.impl("mul", torch::kCUDA, f)`).
class Library {
public:
  template <typename Func> Library &impl(const char *name, Func &&raw_f) &;
  template <typename Dispatch, typename Func>
  Library &impl(const char *name, Dispatch &&key, Func &&raw_f) &;
};

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
  virtual bool is_training() const noexcept;
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
  virtual void to(c10::Device device, c10::ScalarType dtype,
                  bool non_blocking = false);
  virtual void to(c10::ScalarType dtype, bool non_blocking = false);
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

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num, int64_t dim) : num_(num), dim_(dim) {}
  int64_t num_embeddings() const { return num_; }
  int64_t num_, dim_;
};
class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
public:
  EmbeddingBagImpl(int64_t num, int64_t dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num, dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);
  void reset() override;
  Tensor forward(const Tensor &input, const Tensor &offsets = {},
                 const Tensor &per_sample_weights = {});
  EmbeddingBagOptions options;
  Tensor weight;
};
TORCH_MODULE(EmbeddingBag);

namespace functional {
struct EmbeddingFuncOptions {
  EmbeddingFuncOptions() = default;
};
struct EmbeddingBagFuncOptions {
  EmbeddingBagFuncOptions() = default;
};
struct NLLLossFuncOptions {
  NLLLossFuncOptions() = default;
  NLLLossFuncOptions &ignore_index(int64_t v) { return *this; }
};
struct CrossEntropyFuncOptions {
  CrossEntropyFuncOptions() = default;
  CrossEntropyFuncOptions &ignore_index(int64_t v) { return *this; }
};
struct PadFuncOptions {
  PadFuncOptions(std::vector<int64_t> pad);
  PadFuncOptions &value(double v) { return *this; }
};
Tensor pad(const Tensor &input, const PadFuncOptions &options);
namespace detail {
// Indices first, as F::embedding takes them (not ATen's weight first).
Tensor embedding(const Tensor &input, const Tensor &weight,
                 c10::optional<int64_t> padding_idx,
                 c10::optional<double> max_norm, double norm_type,
                 bool scale_grad_by_freq, bool sparse);
} // namespace detail
inline Tensor embedding(const Tensor &input, const Tensor &weight,
                        const EmbeddingFuncOptions &options = {}) {
  return at::embedding(weight, input);
}
Tensor embedding_bag(const Tensor &input, const Tensor &weight,
                     const EmbeddingBagFuncOptions &options = {});
Tensor nll_loss(const Tensor &input, const Tensor &target,
                const NLLLossFuncOptions &options = {});
Tensor cross_entropy(const Tensor &input, const Tensor &target,
                     const CrossEntropyFuncOptions &options = {});
} // namespace functional
} // namespace nn

namespace optim {
class Optimizer {
public:
  void zero_grad();
  void step();
};
struct AdamOptions {
  AdamOptions(double lr = 1e-3) {}
};
class Adam : public Optimizer {
public:
  Adam(std::vector<Tensor> params, AdamOptions options = {});
};
} // namespace optim

namespace data {
namespace example {
using NoTarget = void;
} // namespace example
template <typename Data = Tensor, typename Target = Tensor> struct Example {
  Example() = default;
  Example(Data data, Target target)
      : data(std::move(data)), target(std::move(target)) {}
  Data data;
  Target target;
};
using TensorExample = Example<Tensor, example::NoTarget>;

namespace datasets {
template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = c10::ArrayRef<size_t>>
class BatchDataset {
public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  virtual c10::optional<size_t> size() const = 0;
  template <typename TransformType> Self &map(TransformType transform) &;
};

template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
public:
  using ExampleType = SingleExample;
  virtual ExampleType get(size_t index) = 0;
  std::vector<ExampleType> get_batch(c10::ArrayRef<size_t> indices) override;
};

template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = size_t>
class StatefulDataset
    : public BatchDataset<Self, c10::optional<Batch>, BatchRequest> {
public:
  virtual void reset() = 0;
};
} // namespace datasets

namespace transforms {
template <typename InputBatch, typename OutputBatch> class BatchTransform {
public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};
template <typename Input, typename Output>
class Transform
    : public BatchTransform<std::vector<Input>, std::vector<Output>> {
public:
  using InputType = Input;
  using OutputType = Output;
  virtual OutputType apply(InputType input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override;
};
template <typename Target = Tensor>
class TensorTransform
    : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
public:
  virtual Tensor operator()(Tensor input) = 0;
  Example<Tensor, Target> apply(Example<Tensor, Target> input) override;
};
template <typename T = Example<>> struct Stack;
template <>
struct Stack<Example<>> : public BatchTransform<std::vector<Example<>>, Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override;
};
} // namespace transforms

struct DataLoaderOptions {
  DataLoaderOptions(size_t batch_size = 1) {}
  DataLoaderOptions &workers(size_t n) { return *this; }
};
template <typename Batch> class DataLoader {
public:
  struct iterator {
    Batch &operator*();
    iterator &operator++();
    bool operator!=(const iterator &) const;
  };
  iterator begin();
  iterator end();
};
template <typename Sampler = void, typename Dataset>
std::unique_ptr<DataLoader<typename Dataset::BatchType>>
make_data_loader(Dataset dataset, DataLoaderOptions options = {});
} // namespace data
} // namespace torch
