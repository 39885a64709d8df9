//===--- FunctionContextTest.cpp - one function's CFG, shared -------------===//

#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/DeviceFlow.h"

#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"

#include <memory>

using namespace clang;
using namespace clang::ast_matchers;
using namespace torchtidy;

namespace {

const char *Code = R"cpp(
int declared(int a);
int f(int a) {
  int x = a, y = 2;
  if (a)
    x = 1;
  return x + y;
}
int declared(int a) { return a; }
struct Holder {
  ~Holder();
};
struct S {
  int m;
  explicit S(int a) : m(a + 1) { Holder h; }
};
template <typename T> T pattern(T t) { return t; }
void bump(int &v);
void look(const int &v);
template <typename T> void pass(T &&v) { (void)v; }
int loops(int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i)
    look(i);
  for (int j = 0; j < n; ++j)
    bump(j);
  for (int k = 0; k < n; ++k) {
    int &alias = k;
    alias += 2;
  }
  for (int l = 0; l < n; ++l)
    [&] { l = n; }();
  for (int m = 0; m < n; ++m)
    pass(m);
  return sum;
}
)cpp";

std::unique_ptr<ASTUnit> build() {
  auto AST = tooling::buildASTFromCodeWithArgs(Code, {"-std=c++17"});
  EXPECT_TRUE(AST);
  EXPECT_FALSE(AST->getDiagnostics().hasErrorOccurred());
  return AST;
}

template <typename NodeT, typename MatcherT>
const NodeT *first(const MatcherT &M, ASTContext &Ctx) {
  return selectFirst<NodeT>("n", match(M.bind("n"), Ctx));
}

const FunctionDecl *function(llvm::StringRef Name, ASTContext &Ctx,
                             bool Definition = true) {
  auto Matches = match(functionDecl(hasName(Name)).bind("n"), Ctx);
  for (const auto &M : Matches)
    if (const auto *FD = M.getNodeAs<FunctionDecl>("n"))
      if (FD->isThisDeclarationADefinition() == Definition)
        return FD;
  return nullptr;
}

TEST(FunctionContext, OnePerFunctionAndTranslationUnit) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  FunctionContexts &Contexts = FunctionContexts::of(Ctx);
  EXPECT_EQ(&Contexts, &FunctionContexts::of(Ctx));
  const FunctionDecl *Proto = function("declared", Ctx, false);
  const FunctionDecl *Def = function("declared", Ctx, true);
  ASSERT_TRUE(Proto && Def);
  // A declaration gets its definition's context.
  FunctionContext *C = Contexts.get(Proto);
  ASSERT_TRUE(C);
  EXPECT_EQ(C, Contexts.get(Def));
  EXPECT_EQ(C->function(), Def);
  EXPECT_EQ(Contexts.builtCFGs(), 0U); // lazily
  const CFG *G = C->cfg();
  ASSERT_TRUE(G);
  EXPECT_EQ(G, C->cfg());
  EXPECT_EQ(Contexts.builtCFGs(), 1U);
  // An analysis that needs a CFG takes the shared one.
  const FunctionDecl *F = function("f", Ctx);
  DeviceFlow Flow;
  EXPECT_TRUE(Flow.analyze(F, Ctx));
  EXPECT_TRUE(Contexts.get(F)->hasCFG());
  EXPECT_EQ(Contexts.builtCFGs(), 2U);
  EXPECT_TRUE(Flow.analyze(F, Ctx));
  EXPECT_EQ(Contexts.builtCFGs(), 2U);
}

// An analysis of one function that counts how often it is made.
struct CountedAnalysis {
  static int Made;
  const FunctionDecl *FD;
  CountedAnalysis(const FunctionDecl *FD, ASTContext &) : FD(FD) { ++Made; }
};
int CountedAnalysis::Made = 0;
struct OtherAnalysis {
  explicit OtherAnalysis(const FunctionDecl *, ASTContext &) {}
};

TEST(FunctionContext, AnalysesMadeOncePerFunction) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  FunctionContexts &Contexts = FunctionContexts::of(Ctx);
  CountedAnalysis::Made = 0;
  FunctionContext *F = Contexts.get(function("f", Ctx));
  FunctionContext *D = Contexts.get(function("declared", Ctx));
  ASSERT_TRUE(F && D);
  auto const &A = F->analysis<CountedAnalysis>();
  EXPECT_EQ(&A, &F->analysis<CountedAnalysis>());
  EXPECT_EQ(A.FD, F->function());
  EXPECT_EQ(CountedAnalysis::Made, 1);
  (void)F->analysis<OtherAnalysis>();
  EXPECT_EQ(&A, &F->analysis<CountedAnalysis>());
  EXPECT_NE(&A, &D->analysis<CountedAnalysis>());
  EXPECT_EQ(CountedAnalysis::Made, 2);
}

// An analysis of the translation unit with a configuration.
struct ConfiguredAnalysis {
  static int Made;
  int Config;
  ConfiguredAnalysis(ASTContext &, int Config) : Config(Config) { ++Made; }
};
int ConfiguredAnalysis::Made = 0;

TEST(FunctionContext, TranslationUnitAnalysesOnePerConfiguration) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  FunctionContexts &Contexts = FunctionContexts::of(Ctx);
  ConfiguredAnalysis::Made = 0;
  auto const &One = Contexts.analysis<ConfiguredAnalysis>(1);
  EXPECT_EQ(&One, &Contexts.analysis<ConfiguredAnalysis>(1));
  EXPECT_EQ(ConfiguredAnalysis::Made, 1);
  auto const &Two = Contexts.analysis<ConfiguredAnalysis>(2);
  EXPECT_NE(&One, &Two);
  EXPECT_EQ(Two.Config, 2);
  EXPECT_EQ(&One, &Contexts.analysis<ConfiguredAnalysis>(1));
  EXPECT_EQ(ConfiguredAnalysis::Made, 2);
}

// An analysis of the translation unit with no configuration.
struct PlainAnalysis {
  static int Made;
  explicit PlainAnalysis(ASTContext &) { ++Made; }
  PlainAnalysis(const PlainAnalysis &) = delete;
  PlainAnalysis &operator=(const PlainAnalysis &) = delete;
};
int PlainAnalysis::Made = 0;

TEST(FunctionContext, TranslationUnitAnalysisWithoutConfiguration) {
  auto AST = build();
  FunctionContexts &Contexts = FunctionContexts::of(AST->getASTContext());
  PlainAnalysis::Made = 0;
  auto const &One = Contexts.analysis<PlainAnalysis>();
  EXPECT_EQ(&One, &Contexts.analysis<PlainAnalysis>());
  EXPECT_EQ(PlainAnalysis::Made, 1);
  // Another translation unit has its own.
  auto Other = build();
  EXPECT_NE(
      &One,
      &FunctionContexts::of(Other->getASTContext()).analysis<PlainAnalysis>());
  EXPECT_EQ(PlainAnalysis::Made, 2);
}

TEST(FunctionContext, PositionsDominatorsAndParents) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  const FunctionDecl *F = function("f", Ctx);
  FunctionContext *C = FunctionContexts::of(Ctx).get(F);
  ASSERT_TRUE(C && C->cfg());
  const auto *Ret =
      first<ReturnStmt>(returnStmt(forFunction(hasName("f"))), Ctx);
  const auto *Assign = first<BinaryOperator>(
      binaryOperator(isAssignmentOperator(), forFunction(hasName("f"))), Ctx);
  const auto *If = first<IfStmt>(ifStmt(forFunction(hasName("f"))), Ctx);
  const auto *X = first<VarDecl>(varDecl(hasName("x")), Ctx);
  const auto *Y = first<VarDecl>(varDecl(hasName("y")), Ctx);
  ASSERT_TRUE(Ret && Assign && If && X && Y);
  const CFGPoint AtRet = C->pointOf(Ret);
  const CFGPoint AtAssign = C->pointOf(Assign);
  ASSERT_TRUE(AtRet);
  ASSERT_TRUE(AtAssign);
  // `int x = a, y = 2;` is two declarations in the CFG, x's first.
  const CFGPoint AtX = C->declaredAt(X);
  const CFGPoint AtY = C->declaredAt(Y);
  ASSERT_TRUE(AtX);
  ASSERT_TRUE(AtY);
  EXPECT_EQ(AtX.Block, AtY.Block);
  EXPECT_LT(AtX.Index, AtY.Index);
  EXPECT_TRUE(C->dominates(AtX.Block, AtRet.Block));
  EXPECT_FALSE(C->dominates(AtAssign.Block, AtRet.Block));
  EXPECT_TRUE(C->dominates(AtRet.Block, AtRet.Block));
  // The parent map of the body.
  EXPECT_EQ(C->parentOf(Assign), If);
  EXPECT_EQ(C->parentOf(F->getBody()), nullptr);
  // Not a statement of the function.
  const auto *Other =
      first<ReturnStmt>(returnStmt(forFunction(hasName("declared"))), Ctx);
  EXPECT_FALSE(C->pointOf(Other));
}

TEST(FunctionContext, MutationsOfOneReference) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  FunctionContext *C = FunctionContexts::of(Ctx).get(function("loops", Ctx));
  ASSERT_TRUE(C);
  auto Body = [&](llvm::StringRef Counter) {
    const auto *For =
        first<ForStmt>(forStmt(hasLoopInit(
                           declStmt(hasSingleDecl(varDecl(hasName(Counter)))))),
                       Ctx);
    return For ? For->getBody() : nullptr;
  };
  auto Var = [&](llvm::StringRef Name) {
    return first<VarDecl>(varDecl(hasName(Name)), Ctx);
  };
  // Every counter is changed by its loop's increment; only the writes
  // inside the body count for isMutatedIn.
  for (const llvm::StringRef Counter : {"i", "j", "k", "l", "m"}) {
    ASSERT_TRUE(Var(Counter) && Body(Counter)) << Counter.str();
    EXPECT_TRUE(C->isMutated(Var(Counter))) << Counter.str();
  }
  // Read through a const reference: not changed.
  EXPECT_FALSE(C->isMutatedIn(Var("i"), Body("i")));
  // Through a non-const reference parameter, a reference bound to it, a
  // lambda that captures it by reference.
  EXPECT_TRUE(C->isMutatedIn(Var("j"), Body("j")));
  EXPECT_TRUE(C->isMutatedIn(Var("k"), Body("k")));
  EXPECT_TRUE(C->isMutatedIn(Var("l"), Body("l")));
  // Through a forwarding reference whose callee only reads it: clang's
  // analyzer follows the body (which torch-clangd's preamble lacks), the
  // context does not.
  ASSERT_TRUE(Var("m") && Body("m"));
  EXPECT_FALSE(ExprMutationAnalyzer(*Body("m"), Ctx).isMutated(Var("m")));
  EXPECT_TRUE(C->isMutatedIn(Var("m"), Body("m")));
  // The statement that changes one reference.
  const auto *Bump =
      first<CallExpr>(callExpr(callee(functionDecl(hasName("bump")))), Ctx);
  ASSERT_TRUE(Bump);
  EXPECT_EQ(C->mutationOf(Bump->getArg(0)), Bump);
  EXPECT_FALSE(C->isMutated(Var("sum")));
  EXPECT_FALSE(C->isMutatedIn(nullptr, Body("i")));
}

TEST(FunctionContext, ConstructorInitializersAndDestructors) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  const auto *Ctor = first<CXXConstructorDecl>(
      cxxConstructorDecl(ofClass(hasName("S")), isDefinition()), Ctx);
  ASSERT_TRUE(Ctor);
  FunctionContext *C = FunctionContexts::of(Ctx).get(Ctor);
  ASSERT_TRUE(C && C->cfg());
  const auto *Init = first<BinaryOperator>(
      binaryOperator(hasOperatorName("+"), forFunction(hasName("S"))), Ctx);
  ASSERT_TRUE(Init);
  EXPECT_TRUE(C->pointOf(Init));
  // The parent map covers the initializers too.
  EXPECT_EQ(C->parentOf(Init->getRHS()), Init);
  bool Dtor = false, Lifetime = false;
  for (const CFGBlock *B : *C->cfg())
    for (const CFGElement &E : *B) {
      Dtor |= E.getKind() == CFGElement::AutomaticObjectDtor;
      Lifetime |= E.getKind() == CFGElement::LifetimeEnds;
    }
  EXPECT_TRUE(Dtor);
  EXPECT_TRUE(Lifetime);
}

TEST(FunctionContext, DependentCodeAndDeclarationsHaveNoCFG) {
  auto AST = build();
  ASTContext &Ctx = AST->getASTContext();
  FunctionContexts &Contexts = FunctionContexts::of(Ctx);
  const auto *Pattern = first<FunctionDecl>(
      functionDecl(hasName("pattern"), isDefinition()), Ctx);
  ASSERT_TRUE(Pattern);
  FunctionContext *C = Contexts.get(Pattern);
  ASSERT_TRUE(C);
  EXPECT_EQ(C->cfg(), nullptr);
  EXPECT_FALSE(C->pointOf(Pattern->getBody()));
  EXPECT_EQ(Contexts.get(nullptr), nullptr);
  const auto *Dtor = first<CXXDestructorDecl>(cxxDestructorDecl(), Ctx);
  ASSERT_TRUE(Dtor);
  EXPECT_EQ(Contexts.get(Dtor), nullptr);
}

// Counts the analyses alive.
struct LiveAnalysis {
  static int Alive;
  LiveAnalysis(const FunctionDecl *, ASTContext &) { ++Alive; }
  ~LiveAnalysis() { --Alive; }
  LiveAnalysis(const LiveAnalysis &) = delete;
  LiveAnalysis &operator=(const LiveAnalysis &) = delete;
};
int LiveAnalysis::Alive = 0;

TEST(FunctionContext, FreedWithTheASTContext) {
  // A translation unit's contexts and analyses die with its ASTContext, and
  // the next one (perhaps at the same address) starts with none.
  LiveAnalysis::Alive = 0;
  for (int I = 0; I < 3; ++I) {
    auto AST = build();
    ASTContext &Ctx = AST->getASTContext();
    FunctionContexts &Contexts = FunctionContexts::of(Ctx);
    EXPECT_EQ(Contexts.builtCFGs(), 0U);
    FunctionContext *F = Contexts.get(function("f", Ctx));
    ASSERT_TRUE(F && F->cfg());
    (void)F->analysis<LiveAnalysis>();
    (void)Contexts.get(function("declared", Ctx))->analysis<LiveAnalysis>();
    EXPECT_EQ(Contexts.builtCFGs(), 1U);
    EXPECT_EQ(LiveAnalysis::Alive, 2);
    AST.reset();
    EXPECT_EQ(LiveAnalysis::Alive, 0);
  }
}

} // namespace
