// TORCHTIDY_CHECK_MODULE_DEVICE. The only source that needs torch::nn.
#include "internal.h"

#include <torch/nn/module.h>

namespace torchtidy {

void checkModuleDevice(const torch::nn::Module &module,
                       const at::Tensor &tensor, const Site &site) {
  if (!detail::beginCheck(site))
    return;
  if (!tensor.defined())
    throw c10::Error(detail::sourceLocation(site),
                     detail::describeSite(site) + ": `" + site.secondArg +
                         "` is an undefined tensor");
  // A module's device is that of its parameters; a parameterless module
  // (say, only running statistics) is placed by its buffers.
  auto named = module.named_parameters(/*recurse=*/true);
  const char *kind = "parameters";
  if (named.is_empty()) {
    named = module.named_buffers(/*recurse=*/true);
    kind = "buffers";
  }
  const std::string *firstName = nullptr;
  c10::optional<c10::Device> device;
  for (const auto &item : named) {
    if (!item.value().defined())
      continue;
    if (!device) {
      device = item.value().device();
      firstName = &item.key();
      continue;
    }
    if (item.value().device() != *device)
      throw DeviceMismatchError(
          site, detail::describeSite(site) + ": the " + kind + " of `" +
                    site.firstArg + "` are on more than one device: `" +
                    *firstName + "` is on " + device->str() + " but `" +
                    item.key() + "` is on " + item.value().device().str() +
                    ". Move the whole module with ->to(device).");
  }
  if (!device || tensor.device() == *device)
    return;
  throw DeviceMismatchError(
      site, detail::describeSite(site) + ": `" + site.secondArg + "` is on " +
                detail::deviceName(tensor) + " but the " + kind + " of `" +
                site.firstArg + "` are on " + device->str() + " (`" +
                *firstName +
                "`). The forward call fails with a device mismatch; move the "
                "input with .to(device) or the module with ->to(device).");
}

} // namespace torchtidy
