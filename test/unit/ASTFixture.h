//===--- ASTFixture.h - ASTs from snippets for analysis tests ---*- C++ -*-===//

#ifndef TORCHTIDY_TEST_UNIT_ASTFIXTURE_H
#define TORCHTIDY_TEST_UNIT_ASTFIXTURE_H

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

#include <memory>
#include <string>

namespace torchtidy::test {

/// Parses \p Code (after `#include <torch/torch.h>` from the mock headers).
inline std::unique_ptr<clang::ASTUnit> parse(const std::string &Code) {
  std::string Source = "#include <torch/torch.h>\n" + Code;
  auto AST = clang::tooling::buildASTFromCodeWithArgs(
      Source, {"-std=c++17", "-isystem", TORCHTIDY_MOCK_TORCH_DIR},
      "input.cpp");
  EXPECT_TRUE(AST);
  EXPECT_FALSE(AST->getDiagnostics().hasErrorOccurred()) << Code;
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
