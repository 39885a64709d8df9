//===--- ASTFixture.h - ASTs from snippets for analysis tests ---*- C++ -*-===//

#ifndef TORCHTIDY_TEST_UNIT_ASTFIXTURE_H
#define TORCHTIDY_TEST_UNIT_ASTFIXTURE_H

#include "torchtidy/analysis/UserCode.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <memory>
#include <string>
#include <vector>

namespace torchtidy::test {

/// \p Flags with `-include-pch` of the mock `<torch/torch.h>` precompiled
/// for them as \p Language (`c++`, `cuda`), once per test process: most of a
/// snippet's parse is the mock and the C++ library headers it includes
/// (0.7 s; 0.1 s with the PCH), and the suites parse some hundreds of
/// snippets. A snippet's own `#include <torch/torch.h>` is then skipped by
/// the mock's `#pragma once`, as the driver's preamble cache skips a
/// project's (tools/driver/PreambleCache.h). The PCH files are removed at
/// exit. A PCH that cannot be built fails the test that asked for it, and
/// that test parses the mock itself.
inline std::vector<std::string>
withMockPCH(const std::string &Language,
            const std::vector<std::string> &Flags) {
  struct Entry {
    std::string Language;
    std::vector<std::string> Flags;
    std::string Pch; ///< empty: it could not be built
  };
  struct Cache {
    std::vector<Entry> Entries;
    std::vector<std::string> Files;
    ~Cache() {
      for (const std::string &F : Files)
        llvm::sys::fs::remove(F);
    }
  };
  static Cache C;
  const Entry *Found = nullptr;
  for (const Entry &E : C.Entries)
    if (E.Language == Language && E.Flags == Flags)
      Found = &E;
  if (!Found) {
    Entry E{Language, Flags, ""};
    llvm::SmallString<128> Header;
    llvm::SmallString<128> Pch;
    int FD = -1;
    if (!llvm::sys::fs::createTemporaryFile("torchtidy-unit-mock", "h", FD,
                                            Header) &&
        !llvm::sys::fs::createTemporaryFile("torchtidy-unit-mock", "pch",
                                            Pch)) {
      C.Files.push_back(std::string(Header));
      C.Files.push_back(std::string(Pch));
      {
        llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
        OS << "#include <torch/torch.h>\n";
      }
      std::vector<std::string> Args = {
          "clang-tool", "-x", Language == "c++" ? "c++-header" : Language};
      Args.insert(Args.end(), Flags.begin(), Flags.end());
      // -c: the one compile job writes -o (a CUDA input has no header
      // kind whose job would be a precompile).
      Args.insert(Args.end(),
                  {"-c", std::string(Header), "-o", std::string(Pch)});
      const llvm::IntrusiveRefCntPtr<clang::FileManager> Files(
          new clang::FileManager(clang::FileSystemOptions()));
      clang::tooling::ToolInvocation Invocation(
          Args, std::make_unique<clang::GeneratePCHAction>(), Files.get());
      if (Invocation.run())
        E.Pch = std::string(Pch);
    }
    C.Entries.push_back(std::move(E));
    Found = &C.Entries.back();
  }
  EXPECT_FALSE(Found->Pch.empty())
      << "the mock <torch/torch.h> did not precompile";
  std::vector<std::string> Args = Flags;
  if (!Found->Pch.empty())
    Args.insert(Args.end(), {"-include-pch", Found->Pch});
  return Args;
}

/// Limits whole-AST traversals of \p AST (matchers, RecursiveASTVisitor's
/// TraverseAST) to the snippet's own top-level declarations, as the
/// driver's traversal scope limits them to user code: a walk of the whole
/// translation unit would deserialise all of the mock's PCH for each
/// snippet (the suite took 169 s so, 46 to 52 s with it). Implicit
/// instantiations stay out, as in the driver (isImplicitInstantiation). A
/// test about the mock's own declarations calls
/// wholeTranslationUnit.
inline void snippetScope(clang::ASTUnit &AST) {
  std::vector<clang::Decl *> Scope;
  for (auto It = AST.top_level_begin(); It != AST.top_level_end(); ++It)
    if (!isImplicitInstantiation(*It))
      Scope.push_back(*It);
  AST.getASTContext().setTraversalScope(Scope);
}

/// Whole-AST traversals of \p AST see the whole translation unit again.
inline void wholeTranslationUnit(clang::ASTUnit &AST) {
  clang::ASTContext &Ctx = AST.getASTContext();
  Ctx.setTraversalScope({Ctx.getTranslationUnitDecl()});
}

/// Parses \p Code (after `#include <torch/torch.h>` from the mock headers),
/// its traversals limited to the snippet's declarations (snippetScope).
inline std::unique_ptr<clang::ASTUnit> parse(const std::string &Code) {
  const std::string Source = "#include <torch/torch.h>\n" + Code;
  auto AST = clang::tooling::buildASTFromCodeWithArgs(
      Source,
      withMockPCH("c++", {"-std=c++17", "-isystem", TORCHTIDY_MOCK_TORCH_DIR}),
      "input.cpp");
  EXPECT_TRUE(AST);
  EXPECT_FALSE(AST->getDiagnostics().hasErrorOccurred()) << Code;
  if (AST)
    snippetScope(*AST);
  return AST;
}

/// The definition of the class named \p Name written in the snippet.
inline const clang::CXXRecordDecl *findClass(clang::ASTUnit &AST,
                                             llvm::StringRef Name) {
  using namespace clang::ast_matchers;
  auto Matches = match(cxxRecordDecl(hasName(Name), isDefinition()).bind("c"),
                       AST.getASTContext());
  return Matches.empty() ? nullptr
                         : Matches.front().getNodeAs<clang::CXXRecordDecl>("c");
}

/// The value the first return statement of the function named \p Name
/// returns (what the tests ask about: `... f(...) { return e; }`), else
/// null.
inline const clang::Expr *returnedBy(clang::ASTUnit &AST,
                                     llvm::StringRef Name = "f") {
  using namespace clang::ast_matchers;
  auto Rets =
      match(returnStmt(forCallable(functionDecl(hasName(Name)))).bind("r"),
            AST.getASTContext());
  return Rets.empty()
             ? nullptr
             : Rets.front().getNodeAs<clang::ReturnStmt>("r")->getRetValue();
}

inline const clang::FieldDecl *findField(const clang::CXXRecordDecl *RD,
                                         llvm::StringRef Name) {
  for (const clang::FieldDecl *FD : RD->fields())
    if (FD->getName() == Name)
      return FD;
  return nullptr;
}

} // namespace torchtidy::test

#endif
