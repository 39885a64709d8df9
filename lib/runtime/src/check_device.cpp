// TORCHTIDY_CHECK_SAME_DEVICE and TORCHTIDY_CHECK_ON_CPU.
#include "internal.h"

#include <ATen/core/Tensor.h>

namespace torchtidy {

namespace {

void requireDefined(const at::Tensor &tensor, const Site &site,
                    const std::string &name) {
  if (!tensor.defined())
    throw c10::Error(detail::sourceLocation(site),
                     detail::describeSite(site) + ": `" + name +
                         "` is an undefined tensor");
}

} // namespace

std::string detail::deviceName(const at::Tensor &tensor) {
  return tensor.device().str();
}

void checkSameDevice(const at::Tensor &a, const at::Tensor &b,
                     const Site &site) {
  if (!detail::beginCheck(site))
    return;
  requireDefined(a, site, site.firstArg);
  requireDefined(b, site, site.secondArg);
  if (a.device() == b.device())
    return;
  throw DeviceMismatchError(
      site, detail::describeSite(site) + ": `" + site.firstArg + "` is on " +
                detail::deviceName(a) + " but `" + site.secondArg + "` is on " +
                detail::deviceName(b) +
                ". An op that combines them fails with a device mismatch; "
                "create both on one device, or move one with "
                ".to(other.device()).");
}

void checkOnCpu(const at::Tensor &tensor, const Site &site) {
  detail::checkOnCpuNamed(tensor, site, nullptr);
}

void detail::checkOnCpuNamed(const at::Tensor &tensor, const Site &site,
                             const char *member) {
  if (!detail::beginCheck(site))
    return;
  const std::string name =
      member ? std::string(site.firstArg) + "." + member : site.firstArg;
  requireDefined(tensor, site, name);
  if (tensor.device().is_cpu())
    return;
  throw DeviceMismatchError(
      site, detail::describeSite(site) + ": `" + name + "` is on " +
                detail::deviceName(tensor) +
                " but must be on the CPU: a Dataset's get() runs in the data "
                "loader (possibly in worker threads) and its examples are "
                "stacked on the CPU. Return CPU tensors and move each batch to "
                "the device in the training loop.");
}

} // namespace torchtidy
