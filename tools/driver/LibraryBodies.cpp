//===--- LibraryBodies.cpp - The headers' bodies the parse leaves out -----===//

#include "LibraryBodies.h"
#include "torchtidy/analysis/UserCode.h"

namespace torchtidy::driver {
namespace {

class LibraryBodySkipper : public clang::ASTConsumer {
public:
  explicit LibraryBodySkipper(unsigned *Skipped) : Skipped(Skipped) {}

  bool shouldSkipFunctionBody(clang::Decl *D) override {
    if (!isSkippableLibraryBody(D))
      return false;
    if (Skipped)
      ++*Skipped;
    return true;
  }

private:
  unsigned *Skipped;
};

} // namespace

std::unique_ptr<clang::ASTConsumer>
libraryBodySkipper(clang::CompilerInstance &CI, unsigned *Skipped) {
  CI.getFrontendOpts().SkipFunctionBodies = true;
  return std::make_unique<LibraryBodySkipper>(Skipped);
}

} // namespace torchtidy::driver
