//===--- IndexArraysTest.cpp - index arrays and values in range -----------===//

#include "torchtidy/analysis/IndexArrays.h"
#include "torchtidy/analysis/IndexGuards.h"

#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

/// nonNegative() of the value function f returns.
std::string returnsNonNegative(const std::string &Code) {
  auto AST = parse(Code);
  if (!AST)
    return "<no AST>";
  const clang::Expr *Returned = returnedBy(*AST);
  if (!Returned)
    return "<no return in f>";
  return nonNegative(Returned, AST->getASTContext()) ? "non-negative"
                                                     : "unknown";
}

TEST(IndexArrays, NonNegative) {
  EXPECT_EQ(returnsNonNegative("unsigned f(unsigned x) { return x; }"),
            "non-negative");
  EXPECT_EQ(returnsNonNegative("long f() { return 7; }"), "non-negative");
  EXPECT_EQ(returnsNonNegative("long f() { return -7; }"), "unknown");
  EXPECT_EQ(returnsNonNegative("long f(long x) { return x; }"), "unknown");
  // An unsigned value into a signed type of the same width: only below
  // the signed type's limit.
  EXPECT_EQ(returnsNonNegative(
                "long f(unsigned long x) { return x % 1000000007ul; }"),
            "non-negative");
  EXPECT_EQ(returnsNonNegative("long f(unsigned long x) { return x; }"),
            "unknown");
  EXPECT_EQ(returnsNonNegative("long f(unsigned x) { return x; }"),
            "non-negative");
  // A remainder keeps the dividend's sign.
  EXPECT_EQ(returnsNonNegative("long f(long x, long n) { return x % n; }"),
            "unknown");
  EXPECT_EQ(
      returnsNonNegative("long f(unsigned x, long n) { return (long)x % n; }"),
      "non-negative");
  // Through a function of the file whose every return is non-negative.
  EXPECT_EQ(returnsNonNegative("long h(unsigned x) { if (x) return x; "
                               "return 0; }\n"
                               "long f(unsigned x) { return h(x) + 1; }"),
            "non-negative");
  EXPECT_EQ(returnsNonNegative("long h(long x) { if (x) return 1; "
                               "return x; }\n"
                               "long f(long x) { return h(x); }"),
            "unknown");
}

const char *const Thrust = R"cpp(
namespace thrust {
template <typename T> struct counting_iterator {
  explicit counting_iterator(T start) : v(start) {}
  counting_iterator operator+(long n) const { return counting_iterator(v + n); }
  T v;
};
template <typename K, typename V> void sort_by_key(K first, K last, V values);
template <typename In, typename Out> Out copy(In first, In last, Out out);
template <typename It> void sequence(It first, It last);
}
void sink(const torch::Tensor &);
void write(long *);
)cpp";

/// IndexArrayProof::holds() for the argument of the last sink(...) in f.
std::string proof(const std::string &Code) {
  auto AST = parse(std::string(Thrust) + Code);
  if (!AST)
    return "<no AST>";
  auto &Ctx = AST->getASTContext();
  auto Calls = match(callExpr(callee(functionDecl(hasName("sink"))),
                              forCallable(functionDecl(hasName("f"))))
                         .bind("c"),
                     Ctx);
  if (Calls.empty())
    return "<no sink in f>";
  const auto *Call = Calls.back().getNodeAs<clang::CallExpr>("c");
  IndexGuardAnalysis Guards(Ctx, IndexGuardConfig());
  IndexArrayProof Proof(Ctx, Guards);
  return Proof.holds(Call->getArg(0), Call) ? "in range" : "unknown";
}

TEST(IndexArrays, Producers) {
  EXPECT_EQ(proof("void f(long n) { auto a = torch::arange(n); sink(a); }"),
            "in range");
  EXPECT_EQ(proof("void f(torch::Tensor t) { sink(t); }"), "unknown");
  // Another use of the storage: written by a function that is not a sort.
  EXPECT_EQ(proof("void f(long n) { auto a = torch::arange(n);"
                  " write(a.data_ptr<long>()); sink(a); }"),
            "unknown");
  // Through a function of the file that returns one.
  EXPECT_EQ(proof("torch::Tensor order(long n) { auto a = torch::arange(n);"
                  " return a; }\n"
                  "void f(long n) { auto o = order(n); sink(o); }"),
            "in range");
}

TEST(IndexArrays, CountingFills) {
  // Filled over the whole length, then sorted by key.
  EXPECT_EQ(proof("void f(torch::Tensor k) { auto flat = k.flatten();"
                  " long n = flat.size(0); auto o = torch::empty_like(flat);"
                  " long *p = o.data_ptr<long>();"
                  " thrust::copy(thrust::counting_iterator<long>(0),"
                  "              thrust::counting_iterator<long>(0) + n, p);"
                  " long *kp = flat.data_ptr<long>();"
                  " thrust::sort_by_key(kp, kp + n, p); sink(o); }"),
            "in range");
  EXPECT_EQ(proof("void f(long n) { auto o = torch::empty({n});"
                  " long *p = o.data_ptr<long>(); thrust::sequence(p, p + n);"
                  " sink(o); }"),
            "in range");
  // Part of it, from a negative start, or not at all.
  EXPECT_EQ(proof("void f(long n) { auto o = torch::empty({n});"
                  " long *p = o.data_ptr<long>();"
                  " thrust::sequence(p, p + (n - 1)); sink(o); }"),
            "unknown");
  EXPECT_EQ(proof("void f(long n) { auto o = torch::empty({n});"
                  " long *p = o.data_ptr<long>();"
                  " thrust::copy(thrust::counting_iterator<long>(-1),"
                  "              thrust::counting_iterator<long>(-1) + n, p);"
                  " sink(o); }"),
            "unknown");
  EXPECT_EQ(proof("void f(long n) { auto o = torch::empty({n}); sink(o); }"),
            "unknown");
}

} // namespace
