//===--- Sarif.h - diagnostics as SARIF 2.1.0 -------------------*- C++ -*-===//
//
// Writes clang-tidy diagnostics (as exported with --export-fixes) as one
// SARIF 2.1.0 log, with llvm::json: one rule per check with its help text
// and documentation link, results with locations, notes as related
// locations, fix-its as fixes. GitHub code scanning and CodeChecker read it.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_TOOLS_DRIVER_SARIF_H
#define TORCHTIDY_TOOLS_DRIVER_SARIF_H

#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace torchtidy::driver {

struct SarifOptions {
  /// Paths under this directory are written relative to it, with the
  /// uriBaseId %SRCROOT% (what GitHub code scanning expects); others as
  /// absolute file: URIs.
  std::string SourceRoot;
  /// Base URL of the libtorch checks' documentation pages
  /// (`<base><check-without-libtorch->.md`).
  std::string LibTorchDocsBase;
  std::string ToolVersion;
};

/// One SARIF log with one run. Diagnostics are taken in the given order.
llvm::json::Value
buildSarif(llvm::ArrayRef<clang::tooling::Diagnostic> Diagnostics,
           const SarifOptions &Options);

/// The one-sentence summary of a libtorch check, or "" for other checks.
llvm::StringRef libtorchCheckSummary(llvm::StringRef Check);

/// What the libtorch checks find, as one sentence ("Finds a, b and c in
/// LibTorch code.") from the "finds" phrases of checks/Checks.def: the
/// sentence of --version, the Debian package, the pre-commit hook and the
/// GitHub Action (tools/descriptions.py joins the phrases the same way).
std::string libtorchFindsSentence();

} // namespace torchtidy::driver

#endif
