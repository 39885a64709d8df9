//===--- Plugin.cpp - torch-tidy as a clang-tidy plugin -------------------===//
//
// `clang-tidy --load=TorchTidy.so`: the whole torchtidy archive is linked in,
// and the static registration in LibTorchTidyModule.cpp adds the module to
// the loading clang-tidy's registry when the library is opened.
//
//===----------------------------------------------------------------------===//

namespace clang::tidy {
extern volatile int LibTorchModuleAnchorSource;
[[maybe_unused]] static int LibTorchModuleAnchorDestination =
    LibTorchModuleAnchorSource;
} // namespace clang::tidy
