//===--- TorchTidyMain.cpp - the torch-tidy driver ------------------------===//
//
// clang-tidy with the libtorch module linked in. The force-linker header
// references the anchor of every upstream module; ours is referenced here.
//
//===----------------------------------------------------------------------===//

#include "ClangTidyForceLinker.h"
#include "tool/ClangTidyMain.h"

namespace clang::tidy {
extern volatile int LibTorchModuleAnchorSource;
[[maybe_unused]] static int LibTorchModuleAnchorDestination =
    LibTorchModuleAnchorSource;
} // namespace clang::tidy

int main(int argc, const char **argv) {
  return clang::tidy::clangTidyMain(argc, argv);
}
