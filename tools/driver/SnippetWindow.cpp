//===--- SnippetWindow.cpp - correct line numbers in printed snippets -----===//

#include "SnippetWindow.h"

#include "ClangTidy.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <optional>
#include <type_traits>

using clang::tidy::ClangTidyError;
using clang::tooling::DiagnosticMessage;
using clang::tooling::Replacement;
using clang::tooling::Replacements;

namespace torchtidy::driver {
namespace {

/// Line numbers of byte offsets, per file, read once.
class LineTable {
public:
  explicit LineTable(llvm::vfs::FileSystem &FS) : FS(FS) {}

  std::string key(llvm::StringRef Path) {
    llvm::SmallString<256> P(Path);
    if (FS.makeAbsolute(P))
      P = Path;
    llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
    return std::string(P);
  }

  /// The 1-based line of \p Offset in \p Path, or nothing if the file
  /// cannot be read.
  std::optional<unsigned> line(llvm::StringRef Path, unsigned Offset) {
    auto [It, Inserted] = Starts.try_emplace(key(Path));
    if (Inserted) {
      if (auto Buf = FS.getBufferForFile(Path)) {
        const llvm::StringRef Text = (*Buf)->getBuffer();
        It->second.push_back(0);
        for (size_t I = 0; I < Text.size(); ++I)
          if (Text[I] == '\n')
            It->second.push_back(I + 1);
      }
    }
    const std::vector<size_t> &S = It->second;
    if (S.empty())
      return std::nullopt;
    return std::upper_bound(S.begin(), S.end(), Offset) - S.begin();
  }

private:
  llvm::vfs::FileSystem &FS;
  llvm::StringMap<std::vector<size_t>> Starts;
};

/// What a snippet of at most LineLimit lines that shows \p M's line can
/// show.
class Window {
public:
  Window(LineTable &Lines, const DiagnosticMessage &M, unsigned LineLimit)
      : Lines(Lines), File(Lines.key(M.FilePath)) {
    if (std::optional<unsigned> L = Lines.line(M.FilePath, M.FileOffset)) {
      First = *L > LineLimit - 1 ? *L - (LineLimit - 1) : 1;
      Last = *L + (LineLimit - 1);
      Known = true;
    }
  }

  /// Whether bytes [Offset, Offset + Length] of \p Path may be printed.
  bool mayShow(llvm::StringRef Path, unsigned Offset, unsigned Length) {
    if (!Known)
      return true;
    if (Lines.key(Path) != File)
      return false;
    std::optional<unsigned> Begin = Lines.line(Path, Offset);
    std::optional<unsigned> End = Lines.line(Path, Offset + Length);
    if (!Begin || !End)
      return true;
    return *End >= First && *Begin <= Last;
  }

private:
  LineTable &Lines;
  std::string File;
  unsigned First = 0, Last = 0;
  bool Known = false;
};

void trim(DiagnosticMessage &M, LineTable &Lines, unsigned LineLimit) {
  if (M.FilePath.empty())
    return;
  Window W(Lines, M, LineLimit);
  llvm::erase_if(M.Ranges, [&](const clang::tooling::FileByteRange &R) {
    return !W.mayShow(R.FilePath, R.FileOffset, R.Length);
  });
  llvm::StringMap<Replacements> Kept;
  for (const auto &[File, Repls] : M.Fix) {
    Replacements Shown;
    for (const Replacement &R : Repls)
      if (W.mayShow(R.getFilePath(), R.getOffset(), R.getLength()))
        // A subset of a valid set of replacements: no conflict.
        llvm::consumeError(Shown.add(R));
    if (!Shown.empty())
      Kept[File] = std::move(Shown);
  }
  M.Fix = std::move(Kept);
}

} // namespace

std::vector<ClangTidyError>
withoutUnprintableRanges(llvm::ArrayRef<ClangTidyError> Errors,
                         llvm::vfs::FileSystem &FS, unsigned LineLimit) {
  LineTable Lines(FS);
  std::vector<ClangTidyError> Out(Errors.begin(), Errors.end());
  for (ClangTidyError &E : Out) {
    trim(E.Message, Lines, LineLimit);
    for (DiagnosticMessage &Note : E.Notes)
      trim(Note, Lines, LineLimit);
  }
  return Out;
}

} // namespace torchtidy::driver

// The replacement of clang::tidy::handleErrors (see SnippetWindow.h); the
// real one is reached as __real_<mangled name>, the name read from the
// clang-tidy library at configure time (torchtidy_wrap_function,
// tools/CMakeLists.txt). Same signature in LLVM 19 and 22.
void torchtidyRealHandleErrors(
    llvm::ArrayRef<ClangTidyError> Errors, clang::tidy::ClangTidyContext &Ctx,
    clang::tidy::FixBehaviour Fix, unsigned &WarningsAsErrorsCount,
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
        BaseFS) asm("__real_" TORCHTIDY_HANDLE_ERRORS_SYMBOL);
void torchtidyHandleErrors(
    llvm::ArrayRef<ClangTidyError> Errors, clang::tidy::ClangTidyContext &Ctx,
    clang::tidy::FixBehaviour Fix, unsigned &WarningsAsErrorsCount,
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
        BaseFS) asm("__wrap_" TORCHTIDY_HANDLE_ERRORS_SYMBOL);
// The wrapped symbol is the one handleErrors the library defines; this is
// its declared type, or the build stops here.
static_assert(std::is_same_v<decltype(&clang::tidy::handleErrors),
                             decltype(&torchtidyHandleErrors)>,
              "clang::tidy::handleErrors changed: update its replacement");
void torchtidyHandleErrors(
    llvm::ArrayRef<ClangTidyError> Errors, clang::tidy::ClangTidyContext &Ctx,
    clang::tidy::FixBehaviour Fix, unsigned &WarningsAsErrorsCount,
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> BaseFS) {
  if (Fix != clang::tidy::FB_NoFix || !BaseFS) {
    torchtidyRealHandleErrors(Errors, Ctx, Fix, WarningsAsErrorsCount,
                              std::move(BaseFS));
    return;
  }
  // clang-tidy prints with default DiagnosticOptions.
  const std::vector<ClangTidyError> Shown =
      torchtidy::driver::withoutUnprintableRanges(
          Errors, *BaseFS, clang::DiagnosticOptions::DefaultSnippetLineLimit);
  torchtidyRealHandleErrors(Shown, Ctx, Fix, WarningsAsErrorsCount,
                            std::move(BaseFS));
}
