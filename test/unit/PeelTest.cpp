//===--- PeelTest.cpp - one peel, with sets of steps ----------------------===//

#include "torchtidy/analysis/Peel.h"

#include "ASTFixture.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ParentMap.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

/// What f's return value is under \p Set: the class of the node left and
/// the name it refers to, if any ("DeclRefExpr x").
std::string peeled(const std::string &Code, unsigned Set) {
  auto AST = parse(Code);
  if (!AST)
    return "<no AST>";
  const clang::Expr *Returned = returnedBy(*AST);
  if (!Returned)
    return "<no return in f>";
  const clang::Expr *E = peel::peel(Returned, Set);
  std::string Out = E->getStmtClassName();
  if (const auto *DRE = llvm::dyn_cast<clang::DeclRefExpr>(E))
    Out += " " + DRE->getDecl()->getNameAsString();
  return Out;
}

TEST(Peel, CompilerWrappers) {
  // A parameter returned by value: a copy construction around an implicit
  // cast of the name.
  const char *Copy = "torch::Tensor f(torch::Tensor x) { return (x); }";
  EXPECT_EQ(peeled(Copy, peel::Copied), "DeclRefExpr x");
  EXPECT_EQ(peeled(Copy, peel::Compiler), "CXXConstructExpr");
  // Parens are a step of their own.
  EXPECT_EQ(peeled("long f(long x) { return (x); }",
                   peel::ImplicitCasts | peel::FullExprs),
            "ParenExpr");
  EXPECT_EQ(peeled("long f(long x) { return (x); }", peel::Compiler),
            "DeclRefExpr x");
}

TEST(Peel, WrittenCasts) {
  const char *Cast = "long f(int x) { return static_cast<long>(x); }";
  EXPECT_EQ(peeled(Cast, peel::Compiler), "CXXStaticCastExpr");
  EXPECT_EQ(peeled(Cast, peel::Converted), "DeclRefExpr x");
  // A functional cast to a tensor type, and only that, with TensorCasts.
  const char *TensorCast =
      "torch::Tensor f(torch::Tensor x) { return torch::Tensor(x); }";
  EXPECT_EQ(peeled(TensorCast, peel::Copied | peel::TensorCasts),
            "DeclRefExpr x");
  EXPECT_EQ(peeled("long f(int x) { return long(x); }",
                   peel::Compiler | peel::TensorCasts),
            "CXXFunctionalCastExpr");
  EXPECT_EQ(peeled("long f(int x) { return long(x); }",
                   peel::Compiler | peel::FunctionalCasts),
            "DeclRefExpr x");
}

TEST(Peel, TemplateArguments) {
  // In f<3>, `N` is the argument's value wrapped in a substitution node.
  auto AST = parse("template <long N> long f() { return N; }\n"
                   "long g() { return f<3>(); }");
  ASSERT_TRUE(AST);
  auto Rets = match(returnStmt(forCallable(functionDecl(
                                   hasName("f"), isTemplateInstantiation())))
                        .bind("r"),
                    AST->getASTContext());
  ASSERT_EQ(Rets.size(), 1U);
  const clang::Expr *E =
      Rets.front().getNodeAs<clang::ReturnStmt>("r")->getRetValue();
  EXPECT_TRUE(llvm::isa<clang::SubstNonTypeTemplateParmExpr>(
      peel::peel(E, peel::Compiler)));
  EXPECT_TRUE(
      llvm::isa<clang::IntegerLiteral>(peel::peel(E, peel::AsComputed)));
}

TEST(Peel, TableOps) {
  // std::move passes its argument through; contiguous() keeps the values.
  const char *Move =
      "torch::Tensor f(torch::Tensor x) { return std::move(x); }";
  EXPECT_EQ(peeled(Move, peel::Copied), "CallExpr");
  EXPECT_EQ(peeled(Move, peel::Copied | peel::PassThroughCalls),
            "DeclRefExpr x");
  const char *Contig =
      "torch::Tensor f(torch::Tensor x) { return x.contiguous(); }";
  EXPECT_EQ(peeled(Contig, peel::Copied), "CXXMemberCallExpr");
  EXPECT_EQ(peeled(Contig, peel::Copied | peel::ValuePreservingMethods),
            "DeclRefExpr x");
}

TEST(Peel, Constructions) {
  // An integer converted to a c10::Scalar by its converting constructor.
  const char *Scalar = "c10::Scalar f(long n) { return n; }";
  EXPECT_EQ(peeled(Scalar, peel::Copied), "CXXConstructExpr");
  EXPECT_EQ(peeled(Scalar, peel::Copied | peel::ConvertingConstructions),
            "DeclRefExpr n");
  EXPECT_EQ(peeled(Scalar, peel::Copied | peel::UnwrittenConstructions),
            "DeclRefExpr n");
  // A construction the code writes stays, unless any one-argument
  // construction is looked through.
  const char *Written = "c10::Scalar f(long n) { return c10::Scalar(n); }";
  EXPECT_EQ(peeled(Written, peel::Copied | peel::UnwrittenConstructions),
            "CXXFunctionalCastExpr");
  EXPECT_EQ(peeled(Written, peel::AsComputed | peel::FunctionalCasts |
                                peel::OneArgumentConstructions),
            "DeclRefExpr n");
  // One-argument constructions, written or not: with the others defaulted
  // (Any...), or exactly one (Single...); never one of two written arguments.
  const char *Defaulted = "struct S { S(long a, int b = 2); };"
                          "S f(long n) { return S(n); }";
  const char *Two = "struct S { S(long a, int b); };"
                    "S f(long n) { return S(n, 1); }";
  const unsigned Around = peel::Implicit | peel::FunctionalCasts;
  const struct {
    const char *Code;
    unsigned Set;
    const char *Left;
  } Cases[] = {
      {Written, peel::FromLiteral | peel::FunctionalCasts, "DeclRefExpr n"},
      {Defaulted, Around | peel::AnyOneArgumentConstructions, "DeclRefExpr n"},
      {Defaulted, Around | peel::SingleArgumentConstructions,
       "CXXConstructExpr"},
      {Written, Around | peel::SingleArgumentConstructions, "DeclRefExpr n"},
      {Two, Around | peel::AnyOneArgumentConstructions,
       "CXXTemporaryObjectExpr"},
  };
  for (const auto &C : Cases)
    EXPECT_EQ(peeled(C.Code, C.Set), C.Left) << C.Code;
  // Lists of one element.
  EXPECT_EQ(peeled("long f(long n) { return {n}; }",
                   peel::AsComputed | peel::SingleElementLists),
            "DeclRefExpr n");
}

TEST(Peel, FurtherUntilTheValueWanted) {
  // A conversion to a class, from an enum converted from an integer: the
  // further steps go down to the enum and stop there.
  const char *Code = "enum class Kind { A, B };\n"
                     "struct Options { Options(Kind k); };\n"
                     "Options f(int n) { return Options(Kind(n)); }";
  auto AST = parse(Code);
  ASSERT_TRUE(AST);
  const clang::Expr *Returned = returnedBy(*AST);
  ASSERT_TRUE(Returned);
  const unsigned Further =
      peel::FunctionalCasts | peel::SingleArgumentConstructions;
  const auto IsEnum = [](const clang::Expr *E) {
    return E->getType()->isEnumeralType();
  };
  const clang::Expr *AtEnum =
      peel::peelUntil(Returned, peel::Implicit, Further, IsEnum);
  ASSERT_TRUE(AtEnum);
  EXPECT_TRUE(IsEnum(AtEnum));
  EXPECT_TRUE(llvm::isa<clang::CXXFunctionalCastExpr>(AtEnum));
  // Without the stop, the same steps go on into the enum's integer.
  EXPECT_TRUE(llvm::isa<clang::DeclRefExpr>(
      peel::peel(Returned, peel::Implicit | Further)));
  // The set's own steps are taken whatever the predicate says; the further
  // ones are not taken from a value it accepts.
  const auto Always = [](const clang::Expr *) { return true; };
  const clang::Expr *Kept =
      peel::peelUntil(Returned, peel::Implicit, Further, Always);
  EXPECT_EQ(Kept, peel::peel(Returned, peel::Implicit));
  EXPECT_TRUE(llvm::isa<clang::CXXFunctionalCastExpr>(Kept));
  const auto Never = [](const clang::Expr *) { return false; };
  EXPECT_EQ(peel::peelUntil(Returned, peel::Implicit, Further, Never),
            peel::peel(Returned, peel::Implicit | Further));
  EXPECT_EQ(peel::peelUntil(nullptr, peel::Implicit, Further, Never), nullptr);
}

/// The number of elements of the list f's return value is written as, or
/// -1 when it is not a written list (peel::writtenList).
int writtenListSize(const std::string &Code) {
  auto AST = parse(Code);
  if (!AST)
    return -2;
  const clang::InitListExpr *IL = peel::writtenList(returnedBy(*AST));
  return IL ? static_cast<int>(IL->getNumInits()) : -1;
}

TEST(Peel, WrittenLists) {
  // The braced list itself, and one bound to an ArrayRef's initializer_list.
  EXPECT_EQ(writtenListSize("long f() { return {4}; }"), 1);
  EXPECT_EQ(writtenListSize("c10::IntArrayRef f() { return {1, 2}; }"), 2);
  // A vector written with its type: the allocator is a default argument.
  EXPECT_EQ(writtenListSize(
                "std::vector<long> f() { return std::vector<long>{1, 2, 3}; }"),
            3);
  // An object made of a list and another written argument is not a list,
  // nor is a vector built elsewhere.
  EXPECT_EQ(writtenListSize("struct Pair { Pair(std::initializer_list<long>, "
                            "int); };\n"
                            "Pair f() { return Pair({1, 2}, 3); }"),
            -1);
  EXPECT_EQ(
      writtenListSize("std::vector<long> f(std::vector<long> v) { return v; }"),
      -1);
  EXPECT_EQ(peel::writtenList(nullptr), nullptr);
}

/// peel::writtenEmptyList of f's return value.
bool returnsEmptyList(const std::string &Code) {
  auto AST = parse(Code);
  return AST && peel::writtenEmptyList(returnedBy(*AST));
}

TEST(Peel, WrittenEmptyLists) {
  // `{}` for an ArrayRef is its default constructor; an empty list bound to
  // an initializer_list, a default-constructed vector converted to one.
  EXPECT_TRUE(returnsEmptyList("c10::IntArrayRef f() { return {}; }"));
  EXPECT_TRUE(returnsEmptyList(
      "struct Dims { Dims(); Dims(std::initializer_list<long>); };\n"
      "Dims f() { return Dims(); }"));
  EXPECT_TRUE(returnsEmptyList(
      "std::vector<long> f() { return std::vector<long>{}; }"));
  // Lists with elements, and values built elsewhere, are not.
  EXPECT_FALSE(returnsEmptyList("c10::IntArrayRef f() { return {1}; }"));
  EXPECT_FALSE(returnsEmptyList(
      "std::vector<long> f(std::vector<long> v) { return v; }"));
  EXPECT_FALSE(peel::writtenEmptyList(nullptr));
}

/// What climb gives from the name `x` in f's return value, up to the
/// returned expression: the class of the node reached.
std::string climbedFromX(const std::string &Code, unsigned Set) {
  auto AST = parse(Code);
  if (!AST)
    return "<no AST>";
  const clang::Expr *Returned = returnedBy(*AST);
  auto Refs = match(findAll(declRefExpr(to(varDecl(hasName("x")))).bind("x")),
                    *Returned, AST->getASTContext());
  if (Refs.size() != 1)
    return "<no single x>";
  clang::ParentMap PM(const_cast<clang::Expr *>(Returned));
  const clang::Expr *Top =
      peel::climb(Refs[0].getNodeAs<clang::Expr>("x"), Set,
                  [&](const clang::Stmt *S) -> const clang::Stmt * {
                    return PM.getParent(S);
                  });
  // peel undoes the climb.
  if (peel::peel(Top, Set) != Refs[0].getNodeAs<clang::Expr>("x"))
    return "<peel does not undo the climb>";
  return Top->getStmtClassName();
}

// One written functional cast, its subexpression peeled with the set; what
// is no functional cast stays (parentheses included), and a cast under the
// cast stays too.
TEST(Peel, UnderOneFunctionalCast) {
  const auto Under = [](const std::string &Code, unsigned Set) {
    auto AST = parse(Code);
    const clang::Expr *Returned = AST ? returnedBy(*AST) : nullptr;
    if (!Returned)
      return std::string("<no return in f>");
    const clang::Expr *E =
        peel::underFunctionalCast(peel::peel(Returned, peel::Compiler), Set);
    return std::string(E->getStmtClassName());
  };
  EXPECT_EQ(Under("long f(int x) { return long(x); }", peel::Implicit),
            "DeclRefExpr");
  EXPECT_EQ(Under("long f(int x) { return long(long(x)); }", peel::Implicit),
            "CXXFunctionalCastExpr");
  EXPECT_EQ(Under("long f(int x) { return long((x)); }", peel::Implicit),
            "ParenExpr");
  EXPECT_EQ(Under("long f(long x) { return x; }", peel::Implicit),
            "DeclRefExpr");
  EXPECT_EQ(
      Under("long f(int x) { return static_cast<long>(x); }", peel::Implicit),
      "CXXStaticCastExpr");
  EXPECT_EQ(peel::underFunctionalCast(nullptr, peel::Implicit), nullptr);
}

TEST(Peel, ClimbIsPeelUpwards) {
  // Up through the parens and the conversion to the copy's argument, and
  // with the copy step to the returned construction.
  const char *Copy = "torch::Tensor f(torch::Tensor x) { return (x); }";
  EXPECT_EQ(climbedFromX(Copy, peel::Copied), "CXXConstructExpr");
  EXPECT_EQ(climbedFromX(Copy, peel::Compiler), "ImplicitCastExpr");
  EXPECT_EQ(climbedFromX(Copy, peel::ImplicitCasts), "DeclRefExpr");
  // A written cast stops a climb without ExplicitCasts; an operator stops
  // every climb.
  const char *Cast = "long f(int x) { return static_cast<long>(x); }";
  EXPECT_EQ(climbedFromX(Cast, peel::Compiler), "ImplicitCastExpr");
  EXPECT_EQ(climbedFromX(Cast, peel::Converted), "CXXStaticCastExpr");
  EXPECT_EQ(climbedFromX("long f(long x) { return x + 1; }", peel::Converted),
            "ImplicitCastExpr");
  EXPECT_EQ(peel::climb(nullptr, peel::Copied,
                        [](const clang::Stmt *) -> const clang::Stmt * {
                          return nullptr;
                        }),
            nullptr);
}

TEST(Peel, PointersAndParts) {
  // Every cast of a pointer, not an array's decay.
  const char *Decay =
      "char buf[4]; const void *f() { return (const void *)(buf); }";
  EXPECT_EQ(peeled(Decay, peel::SamePointer), "ImplicitCastExpr");
  EXPECT_EQ(peeled(Decay, peel::Converted), "DeclRefExpr buf");
  EXPECT_EQ(peeled("const void *f(char *x) {"
                   " return static_cast<const void *>((x)); }",
                   peel::SamePointer),
            "DeclRefExpr x");
  // A `.` access is a part of its object; `->` is not.
  const char *Dot = "struct S { long v; }; long f(S x) { return (x.v); }";
  EXPECT_EQ(climbedFromX(Dot, peel::Parens | peel::DotMembers), "ParenExpr");
  EXPECT_EQ(climbedFromX(Dot, peel::Parens), "DeclRefExpr");
  const char *Arrow = "struct S { long v; }; long f(S *x) { return (x->v); }";
  EXPECT_EQ(climbedFromX(Arrow, peel::Compiler | peel::DotMembers),
            "ImplicitCastExpr");
}

// clang's own peels are sets of steps: for every expression of a unit with
// each kind of wrapper (temporaries bound and materialised, written and
// functional casts, template arguments' values, __extension__, a choose
// expression, cleanups), the set gives the node clang's function gives.
TEST(Peel, ClangsIgnoresAreSets) {
  auto AST = parse(R"cpp(
    struct Held { Held(); Held(const Held &); ~Held(); long v; };
    Held make();
    long take(const Held &h) { return h.v; }
    template <long N> long scaled(long x) { return (N) * static_cast<long>(x); }
    long g(int i, const int *p, torch::Tensor t) {
      long a = take(make()) + take(Held(make()));
      long b = scaled<3>(long(i)) + (long)(*p) + __extension__ (i);
      long c = __builtin_choose_expr(1, (i), 0.5);
      const torch::Tensor &u = t + t;
      torch::Tensor w = (torch::Tensor)(t.contiguous());
      return a + b + c + u.dim() + w.dim() + reinterpret_cast<long>(p);
    }
  )cpp");
  ASSERT_TRUE(AST);
  auto All =
      match(traverse(clang::TK_AsIs, expr().bind("e")), AST->getASTContext());
  ASSERT_GT(All.size(), 100U);
  unsigned Checked = 0;
  for (const auto &M : All) {
    const auto *E = M.getNodeAs<clang::Expr>("e");
    auto *Mut = const_cast<clang::Expr *>(E);
    EXPECT_EQ(peel::peel(E, peel::Parens), Mut->IgnoreParens());
    EXPECT_EQ(peel::peel(E, peel::ImpCasts), Mut->IgnoreImpCasts());
    EXPECT_EQ(peel::peel(E, peel::ParenImpCasts), Mut->IgnoreParenImpCasts());
    EXPECT_EQ(peel::peel(E, peel::Implicit), Mut->IgnoreImplicit());
    EXPECT_EQ(peel::peel(E, peel::Casts), Mut->IgnoreCasts());
    EXPECT_EQ(peel::peel(E, peel::ParenCasts), Mut->IgnoreParenCasts());
    ++Checked;
  }
  EXPECT_EQ(Checked, All.size());
  // The difference that makes AsComputed more than IgnoreParenImpCasts: a
  // bound temporary (a tensor made by an op) is looked through.
  auto Bound = match(traverse(clang::TK_AsIs, cxxBindTemporaryExpr().bind("b")),
                     AST->getASTContext());
  ASSERT_FALSE(Bound.empty());
  const auto *B = Bound.front().getNodeAs<clang::Expr>("b");
  EXPECT_EQ(peel::peel(B, peel::ParenImpCasts), B);
  EXPECT_NE(peel::peel(B, peel::AsComputed), B);
}

TEST(Peel, NoWrittenArguments) {
  // What f returns, through the compiler's wrappers, as a call or a
  // construction; -1 when it is neither, else whether no argument (from
  // \p First on, for a call) was written.
  const auto NoneWritten = [](const std::string &Code, unsigned First = 0) {
    auto AST = parse(Code);
    const clang::Expr *E =
        AST ? peel::peel(returnedBy(*AST), peel::Implicit) : nullptr;
    if (const auto *Call = llvm::dyn_cast_or_null<clang::CallExpr>(E))
      return peel::noWrittenArgs(Call, First) ? 1 : 0;
    if (const auto *CE = llvm::dyn_cast_or_null<clang::CXXConstructExpr>(E))
      return peel::noWrittenArgs(CE) ? 1 : 0;
    return -1;
  };
  const std::string Fn = "long g(long a = 1, long b = 2);\n";
  EXPECT_EQ(NoneWritten(Fn + "long f() { return g(); }"), 1);
  EXPECT_EQ(NoneWritten(Fn + "long f() { return g(3); }"), 0);
  EXPECT_EQ(NoneWritten(Fn + "long f() { return g(3); }", 1), 1);
  EXPECT_EQ(NoneWritten(Fn + "long f() { return g(3, 4); }", 1), 0);
  const std::string S = "struct S { S(long a = 1, long b = 2); };\n";
  EXPECT_EQ(NoneWritten(S + "S f() { return S(); }"), 1);
  EXPECT_EQ(NoneWritten(S + "S f() { return {}; }"), 1);
  EXPECT_EQ(NoneWritten(S + "S f() { return S(3, 4); }"), 0);
  EXPECT_EQ(NoneWritten("struct T { T(); };\nT f() { return T(); }"), 1);
}

TEST(Peel, NullAndBound) {
  EXPECT_EQ(peel::peel(nullptr, peel::Copied), nullptr);
  EXPECT_EQ(peel::peelOne(nullptr, peel::Copied), nullptr);
}

} // namespace
