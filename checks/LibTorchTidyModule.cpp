//===--- LibTorchTidyModule.cpp - torch-tidy ------------------------------===//

#include "ClangTidyModule.h"
#include "CrossDeviceIndexCheck.h"
#include "CudaErrorRecoveryCheck.h"
#include "CudaInDatasetGetCheck.h"
#include "DanglingDataPtrCheck.h"
#include "FromBlobDtypeCheck.h"
#include "FromBlobLifetimeCheck.h"
#include "HardcodedDeviceCheck.h"
#include "UncheckedIndexCheck.h"
#include "UncheckedKernelLaunchCheck.h"
#include "UnregisteredBufferCheck.h"
#include "UnregisteredSubmoduleCheck.h"
#include "torchtidy/analysis/LLVMCompat.h"
// The module registry's header moved between LLVM 19 and 22.
#include TORCHTIDY_TIDY_REGISTRY_HEADER

namespace clang::tidy {
namespace libtorch {

class LibTorchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &CheckFactories) override {
    CheckFactories.registerCheck<CrossDeviceIndexCheck>(
        "libtorch-cross-device-index");
    CheckFactories.registerCheck<CudaErrorRecoveryCheck>(
        "libtorch-cuda-error-recovery");
    CheckFactories.registerCheck<CudaInDatasetGetCheck>(
        "libtorch-cuda-in-dataset-get");
    CheckFactories.registerCheck<DanglingDataPtrCheck>(
        "libtorch-dangling-data-ptr");
    CheckFactories.registerCheck<FromBlobDtypeCheck>(
        "libtorch-from-blob-dtype");
    CheckFactories.registerCheck<FromBlobLifetimeCheck>(
        "libtorch-from-blob-lifetime");
    CheckFactories.registerCheck<HardcodedDeviceCheck>(
        "libtorch-hardcoded-device");
    CheckFactories.registerCheck<UncheckedIndexCheck>(
        "libtorch-unchecked-index");
    CheckFactories.registerCheck<UncheckedKernelLaunchCheck>(
        "libtorch-unchecked-kernel-launch");
    CheckFactories.registerCheck<UnregisteredBufferCheck>(
        "libtorch-unregistered-buffer");
    CheckFactories.registerCheck<UnregisteredSubmoduleCheck>(
        "libtorch-unregistered-submodule");
  }
};

} // namespace libtorch

// Register the module using this statically initialized variable.
static ClangTidyModuleRegistry::Add<libtorch::LibTorchModule>
    X("libtorch-module", "Adds checks for LibTorch (PyTorch C++) code.");

// This anchor is used to force the linker to link in the generated object
// file and thus register the LibTorchModule.
volatile int LibTorchModuleAnchorSource =
    0; // NOLINT(misc-use-internal-linkage)

} // namespace clang::tidy
