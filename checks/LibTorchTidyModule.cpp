//===--- LibTorchTidyModule.cpp - torch-tidy ------------------------------===//

#include "ClangTidyModule.h"
// The header of each check of Checks.def (checks/CMakeLists.txt makes it).
#include "CheckHeaders.inc" // IWYU pragma: keep
#include "torchtidy/analysis/LLVMCompat.h"
// The module registry's header moved between LLVM 19 and 22.
#include TORCHTIDY_TIDY_REGISTRY_HEADER

namespace clang::tidy {
namespace libtorch {

class LibTorchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &CheckFactories) override {
#define TORCHTIDY_CHECK(Class, Name, Finds, Summary)                           \
  CheckFactories.registerCheck<Class>(Name);
#include "Checks.def"
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
