// TORCHTIDY_CHECK_KERNEL_ARG and TORCHTIDY_CHECK_LAUNCH.
#include "internal.h"

#include <ATen/core/Tensor.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace torchtidy {

namespace {

/// -1: not read yet; 0 or 1 afterwards.
std::atomic<int> &syncSetting() {
  static std::atomic<int> setting{-1};
  return setting;
}

bool parseSync(const char *text) {
  if (!text)
    return false;
  std::string v(text);
  for (char &c : v)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

} // namespace

KernelArgError::KernelArgError(const Site &site, std::string message)
    : c10::Error(detail::sourceLocation(site), std::move(message)),
      site_(site) {}

LaunchError::LaunchError(const Site &site, std::string message, int code,
                         bool whileRunning)
    : c10::Error(detail::sourceLocation(site), std::move(message)), site_(site),
      code_(code), whileRunning_(whileRunning) {}

bool syncAfterLaunches() {
  int v = syncSetting().load(std::memory_order_relaxed);
  if (v < 0) {
    v = parseSync(std::getenv("TORCHTIDY_SYNC")) ? 1 : 0;
    syncSetting().store(v, std::memory_order_relaxed);
  }
  return v == 1;
}

void setSyncAfterLaunches(bool sync) {
  syncSetting().store(sync ? 1 : 0, std::memory_order_relaxed);
}

void checkKernelArg(const at::Tensor &tensor, c10::ScalarType dtype,
                    const Site &site) {
  if (!detail::beginCheck(site))
    return;
  if (!tensor.defined())
    throw KernelArgError(site, detail::describeSite(site) + ": `" +
                                   site.firstArg +
                                   "` is an undefined tensor; a kernel given "
                                   "its data_ptr() gets a null pointer.");
  std::ostringstream problems;
  const char *sep = "";
  if (!tensor.is_cuda()) {
    problems << sep << "is on " << detail::deviceName(tensor)
             << ", not on a CUDA device: a kernel that dereferences its "
                "pointer makes an illegal memory access";
    sep = "; it ";
  }
  if (!tensor.is_contiguous()) {
    problems << sep << "is not contiguous (sizes " << tensor.sizes()
             << ", strides " << tensor.strides()
             << "): a kernel that reads it as a dense array gets the wrong "
                "elements";
    sep = "; it ";
  }
  if (tensor.scalar_type() != dtype) {
    problems << sep << "holds " << c10::toString(tensor.scalar_type())
             << ", not " << c10::toString(dtype)
             << ": a kernel that reads it as the other type reinterprets its "
                "bytes";
    sep = "; it ";
  }
  if (!*sep)
    return;
  throw KernelArgError(site, detail::describeSite(site) + ": `" +
                                 site.firstArg + "` " + problems.str() +
                                 ". Pass t.to(device, dtype).contiguous(), "
                                 "kept in a named tensor, to the kernel.");
}

void detail::throwLaunchError(const Site &site, int code, const char *text,
                              bool whileRunning) {
  std::ostringstream os;
  os << describeSite(site) << ": "
     << (whileRunning ? "the device failed while running the kernel launched "
                        "before it (or earlier work)"
                      : "the kernel launch before it failed")
     << ": CUDA error " << code << " (" << (text ? text : "unknown error")
     << ")";
  if (whileRunning)
    os << ". TORCHTIDY_SYNC=1 waited for the device after the launch; the "
          "CUDA context is now unusable, so end the program.";
  else
    os << ". Nothing ran; check the grid and block sizes (a grid of 0 blocks, "
          "more than 1024 threads per block) and the shared memory.";
  throw LaunchError(site, os.str(), code, whileRunning);
}

} // namespace torchtidy
