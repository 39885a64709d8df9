//===--- UserCodeTest.cpp - what is the user's code -----------------------===//

#include "torchtidy/analysis/UserCode.h"
#include "torchtidy/analysis/FunctionContext.h"

#include "clang/AST/Expr.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace clang;
using namespace torchtidy;

namespace {

// A system header (-isystem) with a macro the user expands, a function, and
// the expansion of a macro the user defined before including it.
const char *SystemHeader = R"cpp(
#define SYS_DEFINE_FN(name) inline int name() { return 1; }
#define SYS_CALL(x) (x)
inline int sysFn() { return 2; }
USER_FN(sysFromUserMacro)
template <typename T> int sysTemplate(T t) { return t; }
)cpp";

const char *UserCode = R"cpp(
#define USER_FN(name) inline int name() { return 4; }
#include <sys.h>
SYS_DEFINE_FN(fromSysMacro)
USER_FN(fromUserMacro)
int plain() { return SYS_CALL(1) + sysTemplate(2); }
template <typename T> int tmpl(T t) { return t; }
int useTmpl() {
  struct Local {
    int method() { return fromUserMacro(); }
  };
  auto lam = [] { return plain(); };
  return tmpl(1) + lam() + Local().method();
}
struct Defaulted {
  Defaulted() = default;
  int x = 0;
};
Defaulted d;
)cpp";

std::unique_ptr<ASTUnit> build() {
  auto AST = tooling::buildASTFromCodeWithArgs(
      UserCode, {"-std=c++17", "-isystem", "/virtual/sys"}, "/virtual/user.cpp",
      "usercode-test", std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(),
      {{"/virtual/sys/sys.h", SystemHeader}});
  EXPECT_TRUE(AST);
  EXPECT_FALSE(AST->getDiagnostics().hasErrorOccurred());
  return AST;
}

std::string nameOf(const FunctionDecl *FD) {
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    if (MD->getParent()->isLambda())
      return "<lambda>";
  std::string Name = FD->getQualifiedNameAsString();
  if (FD->getTemplateSpecializationArgs())
    Name += "<inst>";
  return Name;
}

/// The translation unit's own declaration of function \p Name, else null.
Decl *topLevelFunction(ASTContext &Ctx, llvm::StringRef Name) {
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D);
        FD && FD->getIdentifier() && FD->getName() == Name)
      return D;
  return nullptr;
}

TEST(UserCode, EachUserFunctionOnceAndNoSystemCode) {
  auto AST = build();
  std::vector<std::string> Seen;
  forEachUserFunction(AST->getASTContext(), [&](const FunctionDecl *FD) {
    Seen.push_back(nameOf(FD));
  });
  std::vector<std::string> Sorted = Seen;
  std::sort(Sorted.begin(), Sorted.end());
  // A LibTorch-style macro expanded in user code is user code; a user
  // macro expanded in a system header is not; templates are visited in
  // their instantiations, implicit members not at all.
  EXPECT_EQ(Sorted, (std::vector<std::string>{
                        "<lambda>", "fromSysMacro", "fromUserMacro", "plain",
                        "tmpl<inst>", "useTmpl", "useTmpl()::Local::method"}));
}

// Every caller shares one walk of the translation unit (eleven checks and
// their analyses ask); a new traversal scope is walked again, and only its
// own declarations' functions are visited.
TEST(UserCode, OneWalkSharedUntilTheScopeChanges) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  auto Names = [&] {
    std::vector<std::string> Seen;
    forEachUserFunction(
        Ctx, [&](const FunctionDecl *FD) { Seen.push_back(nameOf(FD)); });
    return Seen;
  };
  const std::vector<std::string> First = Names();
  EXPECT_EQ(First.size(), 7U);
  EXPECT_EQ(Names(), First);
  EXPECT_EQ(FunctionContexts::of(Ctx).userFunctionWalks(), 1U);

  Decl *Plain = topLevelFunction(Ctx, "plain");
  ASSERT_TRUE(Plain);
  Ctx.setTraversalScope({Plain});
  EXPECT_EQ(Names(), std::vector<std::string>{"plain"});
  EXPECT_EQ(FunctionContexts::of(Ctx).userFunctionWalks(), 2U);
  Ctx.setTraversalScope({Ctx.getTranslationUnitDecl()});
  EXPECT_EQ(Names(), First);
  EXPECT_EQ(FunctionContexts::of(Ctx).userFunctionWalks(), 3U);
}

// The one call-site index: each call of a user function's own statements
// with its caller (a lambda's calls are the lambda's, a local class's
// method's its own), made again when the traversal scope changes.
TEST(UserCode, CallSitesOfEachFunctionsOwnStatements) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  auto Calls = [&] {
    std::vector<std::string> Seen;
    for (const auto &[Call, Caller] : FunctionContexts::of(Ctx).callSites()) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      Seen.push_back(nameOf(Caller) + " -> " +
                     (Callee ? nameOf(Callee) : std::string("?")));
    }
    std::sort(Seen.begin(), Seen.end());
    return Seen;
  };
  EXPECT_EQ(Calls(), (std::vector<std::string>{
                         "<lambda> -> plain", "plain -> sysTemplate<inst>",
                         "useTmpl -> <lambda>", "useTmpl -> tmpl<inst>",
                         "useTmpl -> useTmpl()::Local::method",
                         "useTmpl()::Local::method -> fromUserMacro"}));
  Decl *Plain = topLevelFunction(Ctx, "plain");
  ASSERT_TRUE(Plain);
  Ctx.setTraversalScope({Plain});
  EXPECT_EQ(Calls(), std::vector<std::string>{"plain -> sysTemplate<inst>"});
}

TEST(UserCode, LocationsByExpansion) {
  auto AST = build();
  const SourceManager &SM = AST->getSourceManager();
  EXPECT_FALSE(isUserCode(SourceLocation(), SM));
  for (const Decl *D : AST->getASTContext().getTranslationUnitDecl()->decls()) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->getIdentifier())
      continue;
    const llvm::StringRef N = FD->getName();
    const bool User = N == "fromSysMacro" || N == "fromUserMacro" ||
                      N == "plain" || N == "useTmpl";
    EXPECT_EQ(isUserDecl(FD), User) << N.str();
  }
}

TEST(UserCode, OwnStatementsStopAtNestedFunctions) {
  auto AST = build();
  std::vector<std::string> Calls;
  forEachUserFunction(AST->getASTContext(), [&](const FunctionDecl *FD) {
    if (nameOf(FD) != "useTmpl")
      return;
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (const auto *Call = dyn_cast<CallExpr>(S))
        if (const FunctionDecl *Callee = Call->getDirectCallee())
          Calls.push_back(nameOf(Callee));
    });
  });
  // The calls in the lambda's and the local class's bodies (plain,
  // fromUserMacro) are not useTmpl's; the calls of them are.
  std::sort(Calls.begin(), Calls.end());
  EXPECT_EQ(Calls, (std::vector<std::string>{"<lambda>", "tmpl<inst>",
                                             "useTmpl()::Local::method"}));
}

TEST(UserCode, StatementsInEnterLambdasNotLocalClasses) {
  auto AST = build();
  std::vector<std::string> Calls;
  forEachUserFunction(AST->getASTContext(), [&](const FunctionDecl *FD) {
    if (nameOf(FD) != "useTmpl")
      return;
    forEachStmtIn(FD->getBody(), [&](const Stmt *S) {
      if (const auto *Call = dyn_cast<CallExpr>(S))
        if (const FunctionDecl *Callee = Call->getDirectCallee())
          Calls.push_back(nameOf(Callee));
    });
  });
  // The lambda's body (plain) is entered; the local class's method is not.
  std::sort(Calls.begin(), Calls.end());
  EXPECT_EQ(Calls, (std::vector<std::string>{"<lambda>", "plain", "tmpl<inst>",
                                             "useTmpl()::Local::method"}));
}

TEST(UserCode, StatementsInReachDeepExpressions) {
  // A sum of 200 terms nests 200 binary operators: every leaf is visited.
  std::string Code = "int f(int x) { return x";
  for (int I = 0; I < 200; ++I)
    Code += " + x";
  Code += "; }";
  auto AST = tooling::buildASTFromCodeWithArgs(Code, {"-std=c++17"});
  ASSERT_TRUE(AST);
  unsigned Refs = 0;
  forEachUserFunction(AST->getASTContext(), [&](const FunctionDecl *FD) {
    forEachStmtIn(FD->getBody(),
                  [&](const Stmt *S) { Refs += isa<DeclRefExpr>(S); });
  });
  EXPECT_EQ(Refs, 201U);
}

// The then-branches of f's ifs, in order: each exits; only the first three
// leave the function (a break or a continue leaves its loop).
TEST(UserCode, ExitsAndLeavingTheFunction) {
  auto AST = tooling::buildASTFromCodeWithArgs(R"cpp(
    [[noreturn]] void fail();
    int f(int n) {
      for (int i = 0; i < n; ++i) {
        if (i == 1) return 0;
        if (i == 2) { fail(); }
        if (i == 3) do { throw 1; } while (0);
        if (i == 4) continue;
        if (i == 5) { break; }
        if (i == 6) { ++n; }
      }
      return n;
    }
  )cpp",
                                               {"-std=c++17"});
  ASSERT_TRUE(AST);
  std::vector<const Stmt *> Thens;
  forEachUserFunction(AST->getASTContext(), [&](const FunctionDecl *FD) {
    forEachOwnStmt(FD->getBody(), [&](const Stmt *S) {
      if (const auto *If = dyn_cast<IfStmt>(S))
        Thens.push_back(If->getThen());
    });
  });
  ASSERT_EQ(Thens.size(), 6U);
  const std::vector<bool> Exits{true, true, true, true, true, false};
  const std::vector<bool> Leaves{true, true, true, false, false, false};
  for (size_t I = 0; I < Thens.size(); ++I) {
    EXPECT_EQ(exits(Thens[I]), Exits[I]) << I;
    EXPECT_EQ(leavesFunction(Thens[I]), Leaves[I]) << I;
  }
}

} // namespace
