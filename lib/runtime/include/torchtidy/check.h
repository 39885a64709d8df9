// torch-tidy runtime shim: checks that validate, at run time, the sites that
// the static checks flag (libtorch-unchecked-index and the device checks).
//
//   #include <torchtidy/check.h>
//   TORCHTIDY_CHECK_INDEX(ids, table.size(0));   // every id in [0, size)
//   TORCHTIDY_CHECK_SAME_DEVICE(x, weight);
//   TORCHTIDY_CHECK_ON_CPU(example);              // what Dataset::get returns
//   TORCHTIDY_CHECK_MODULE_DEVICE(model, batch);  // batch on the model's
//   device
//   TORCHTIDY_CHECK_KERNEL_ARG(x, torch::kFloat); // before x.data_ptr<float>()
//   kernel<<<grid, block, 0, stream>>>(...);
//   TORCHTIDY_CHECK_LAUNCH();                     // in a .cu file
//
// Like assert(), the macros check in debug builds and vanish under NDEBUG:
// with NDEBUG and without TORCHTIDY_ENABLE_CHECKS they expand to an
// unevaluated operand, so their arguments are never evaluated (zero cost) but
// still have to compile. At run time TORCHTIDY_MODE=sync|deferred|off picks
// how failures are reported; see docs/runtime.md.
#pragma once

#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace at {
class Tensor;
} // namespace at

namespace torch::nn {
class Module;
} // namespace torch::nn

namespace torchtidy {

/// Where a check was written: the macro, its argument texts, and the user's
/// file, line and function. All pointers refer to string literals or to
/// __func__, so a Site may be copied and kept for the life of the program.
struct Site {
  const char *file = "<unknown>";
  int line = 0;
  const char *function = "<unknown>";
  const char *macro = "torchtidy::checkIndex";
  const char *firstArg = "index";
  const char *secondArg = "size";
};

/// How failures are reported; the TORCHTIDY_MODE environment variable sets
/// the initial value ("sync" when unset).
enum class Mode {
  /// Report at the macro. A CUDA check waits for its own stream.
  Sync,
  /// Never wait for the GPU: a CUDA check only launches its kernel, which
  /// posts failures to a device-side mailbox; they are thrown, with their
  /// sites, at the next check, at flush(), or printed at exit. CPU checks
  /// still report at the macro (they have nothing to wait for).
  Deferred,
  /// Check nothing (the arguments are still evaluated, unlike under NDEBUG).
  Off,
};

/// The current mode.
Mode mode();
/// Overrides TORCHTIDY_MODE for the rest of the process (all threads).
void setMode(Mode mode);
/// Parses "sync", "deferred" or "off"; throws c10::ValueError otherwise.
Mode parseMode(const std::string &text);
/// "sync", "deferred" or "off".
const char *modeName(Mode mode);

/// Waits for every device that ran a deferred check, then throws the first
/// failure found (IndexOutOfRangeError, naming the original site and listing
/// the others). Returns normally when there is none.
void flush();

/// True when the CUDA kernels were compiled in (TORCHTIDY_RUNTIME_CUDA).
bool builtWithCudaKernels();
/// True when CUDA tensors are checked by those kernels (LibTorch had CUDA).
bool builtWithTorchCuda();

/// An index outside [0, size). A c10::IndexError, so it turns into Python's
/// IndexError like ATen's own "index out of bounds" errors.
class IndexOutOfRangeError : public c10::IndexError {
public:
  IndexOutOfRangeError(const Site &site, std::string message, int64_t position,
                       int64_t value, int64_t bound, uint64_t badCount,
                       bool deferred);

  const Site &site() const { return site_; }
  /// Flat (row-major) position of the first out-of-range value.
  int64_t position() const { return position_; }
  int64_t value() const { return value_; }
  int64_t bound() const { return bound_; }
  /// How many values were out of range.
  uint64_t badCount() const { return badCount_; }
  /// True when found by a deferred CUDA check and reported later.
  bool deferred() const { return deferred_; }

private:
  Site site_;
  int64_t position_;
  int64_t value_;
  int64_t bound_;
  uint64_t badCount_;
  bool deferred_;
};

/// Two tensors that must share a device do not, or a tensor is not where it
/// has to be (on the CPU, on the module's device).
class DeviceMismatchError : public c10::Error {
public:
  DeviceMismatchError(const Site &site, std::string message);
  const Site &site() const { return site_; }

private:
  Site site_;
};

/// A tensor whose storage a custom kernel receives is not on CUDA, not
/// contiguous, or not of the kernel's dtype.
class KernelArgError : public c10::Error {
public:
  KernelArgError(const Site &site, std::string message);
  const Site &site() const { return site_; }

private:
  Site site_;
};

/// A kernel launch failed (an invalid configuration, no kernel image for the
/// device...), or, with TORCHTIDY_SYNC=1, the kernel failed while it ran (an
/// illegal memory access, a device-side assert).
class LaunchError : public c10::Error {
public:
  LaunchError(const Site &site, std::string message, int code,
              bool whileRunning);
  const Site &site() const { return site_; }
  /// The cudaError_t value.
  int code() const { return code_; }
  /// Found by the synchronisation after the launch, not by the launch.
  bool whileRunning() const { return whileRunning_; }

private:
  Site site_;
  int code_;
  bool whileRunning_;
};

/// Whether TORCHTIDY_CHECK_LAUNCH() waits for the device after a launch
/// (TORCHTIDY_SYNC=1 in the environment: 1, true, yes or on).
bool syncAfterLaunches();
/// Overrides TORCHTIDY_SYNC for the rest of the process.
void setSyncAfterLaunches(bool sync);

/// The functions behind the macros. They check regardless of NDEBUG (the
/// mode still applies), for code that wants the check in release builds.
void checkIndex(const at::Tensor &index, int64_t size, const Site &site = {});
void checkSameDevice(const at::Tensor &a, const at::Tensor &b,
                     const Site &site = {});
void checkOnCpu(const at::Tensor &tensor, const Site &site = {});
void checkModuleDevice(const torch::nn::Module &module,
                       const at::Tensor &tensor, const Site &site = {});
/// `tensor` is on CUDA, contiguous and of `dtype`: a custom kernel can take
/// its data_ptr<T>() for T of that dtype.
void checkKernelArg(const at::Tensor &tensor, c10::ScalarType dtype,
                    const Site &site = {});

namespace detail {

template <int N> struct Priority : Priority<N - 1> {};
template <> struct Priority<0> {};

/// Accepts any integer type for the size; an unsigned size beyond int64_t's
/// range bounds nothing an int64 index can hold.
template <typename S> int64_t sizeAsInt64(S size) {
  static_assert(std::is_integral<S>::value,
                "TORCHTIDY_CHECK_INDEX: the size must be an integer");
  if (std::is_unsigned<S>::value &&
      static_cast<uint64_t>(size) >
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(size);
}

// A ModuleHolder (torch::nn::Linear), a shared_ptr or a pointer to a module.
template <typename M>
auto asModule(const M &m, Priority<1>)
    -> decltype(static_cast<const torch::nn::Module &>(*m)) {
  return static_cast<const torch::nn::Module &>(*m);
}
// A module itself.
template <typename M>
auto asModule(const M &m, Priority<0>)
    -> decltype(static_cast<const torch::nn::Module &>(m)) {
  return static_cast<const torch::nn::Module &>(m);
}
template <typename M> const torch::nn::Module &asModule(const M &m) {
  return asModule(m, Priority<1>{});
}

void checkOnCpuNamed(const at::Tensor &tensor, const Site &site,
                     const char *member);

[[noreturn]] void throwLaunchError(const Site &site, int code, const char *text,
                                   bool whileRunning);

/// TORCHTIDY_CHECK_LAUNCH(): the CUDA runtime's functions come from the
/// user's file (a .cu file has them), so the runtime library itself needs no
/// CUDA to build.
template <typename GetLastError, typename Synchronize, typename ErrorString>
void checkLaunchWith(const Site &site, GetLastError getLastError,
                     Synchronize synchronize, ErrorString errorString) {
  if (mode() == Mode::Off)
    return;
  int code = getLastError();
  if (code != 0)
    throwLaunchError(site, code, errorString(code), false);
  if (!syncAfterLaunches())
    return;
  code = synchronize();
  if (code != 0)
    throwLaunchError(site, code, errorString(code), true);
}

// torch::data::Example<Tensor, Tensor>: both halves must be on the CPU.
template <typename E>
auto checkOnCpuAny(const E &example, const Site &site, Priority<2>)
    -> decltype((void)example.data, (void)example.target, void()) {
  checkOnCpuNamed(example.data, site, "data");
  checkOnCpuNamed(example.target, site, "target");
}
// torch::data::TensorExample: data only.
template <typename E>
auto checkOnCpuAny(const E &example, const Site &site, Priority<1>)
    -> decltype((void)example.data, void()) {
  checkOnCpuNamed(example.data, site, "data");
}
// A tensor.
template <typename T>
void checkOnCpuAny(const T &tensor, const Site &site, Priority<0>) {
  checkOnCpu(tensor, site);
}

} // namespace detail
} // namespace torchtidy

#define TORCHTIDY_SITE_(macro, first, second)                                  \
  ::torchtidy::Site { __FILE__, __LINE__, __func__, macro, first, second }

#if defined(NDEBUG) && !defined(TORCHTIDY_ENABLE_CHECKS)
#define TORCHTIDY_CHECKS_ENABLED 0
// The arguments are an unevaluated operand: they must compile (so a check
// does not rot in release builds) but generate no code.
#define TORCHTIDY_UNEVALUATED_(a, b)                                           \
  static_cast<void>(sizeof((static_cast<void>(a), static_cast<void>(b), 0)))
#define TORCHTIDY_CHECK_INDEX(index, size) TORCHTIDY_UNEVALUATED_(index, size)
#define TORCHTIDY_CHECK_SAME_DEVICE(a, b) TORCHTIDY_UNEVALUATED_(a, b)
#define TORCHTIDY_CHECK_ON_CPU(t) TORCHTIDY_UNEVALUATED_(t, 0)
#define TORCHTIDY_CHECK_MODULE_DEVICE(module, t)                               \
  TORCHTIDY_UNEVALUATED_(module, t)
#define TORCHTIDY_CHECK_KERNEL_ARG(t, dtype) TORCHTIDY_UNEVALUATED_(t, dtype)
#define TORCHTIDY_CHECK_LAUNCH() static_cast<void>(0)
#else
#define TORCHTIDY_CHECKS_ENABLED 1
/// Every element of the int32/int64 tensor `index` is in [0, size).
#define TORCHTIDY_CHECK_INDEX(index, size)                                     \
  ::torchtidy::checkIndex(                                                     \
      (index), ::torchtidy::detail::sizeAsInt64(size),                         \
      TORCHTIDY_SITE_("TORCHTIDY_CHECK_INDEX", #index, #size))
/// `a` and `b` are on the same device.
#define TORCHTIDY_CHECK_SAME_DEVICE(a, b)                                      \
  ::torchtidy::checkSameDevice(                                                \
      (a), (b), TORCHTIDY_SITE_("TORCHTIDY_CHECK_SAME_DEVICE", #a, #b))
/// `t` (a tensor, or an Example's data and target) is on the CPU.
#define TORCHTIDY_CHECK_ON_CPU(t)                                              \
  ::torchtidy::detail::checkOnCpuAny(                                          \
      (t), TORCHTIDY_SITE_("TORCHTIDY_CHECK_ON_CPU", #t, ""),                  \
      ::torchtidy::detail::Priority<2>{})
/// `t` is on the device of `module`'s parameters (a module, a ModuleHolder
/// such as torch::nn::Linear, or a pointer to a module).
#define TORCHTIDY_CHECK_MODULE_DEVICE(module, t)                               \
  ::torchtidy::checkModuleDevice(                                              \
      ::torchtidy::detail::asModule(module), (t),                              \
      TORCHTIDY_SITE_("TORCHTIDY_CHECK_MODULE_DEVICE", #module, #t))
/// `t` is on CUDA, contiguous and of `dtype` (a c10::ScalarType such as
/// torch::kFloat): what a kernel given `t.data_ptr<T>()` assumes.
#define TORCHTIDY_CHECK_KERNEL_ARG(t, dtype)                                   \
  ::torchtidy::checkKernelArg(                                                 \
      (t), (dtype), TORCHTIDY_SITE_("TORCHTIDY_CHECK_KERNEL_ARG", #t, #dtype))
/// The kernel launch just before succeeded (cudaGetLastError); with
/// TORCHTIDY_SYNC=1, also that it ran without error (cudaDeviceSynchronize),
/// reported here instead of at a later, unrelated CUDA call. Use it where
/// the CUDA runtime API is declared (a .cu file).
#define TORCHTIDY_CHECK_LAUNCH()                                               \
  ::torchtidy::detail::checkLaunchWith(                                        \
      TORCHTIDY_SITE_("TORCHTIDY_CHECK_LAUNCH", "", ""),                       \
      [] { return static_cast<int>(::cudaGetLastError()); },                   \
      [] { return static_cast<int>(::cudaDeviceSynchronize()); },              \
      [](int code) {                                                           \
        return ::cudaGetErrorString(static_cast<::cudaError_t>(code));         \
      })
#endif
