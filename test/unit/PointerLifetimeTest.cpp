//===--- PointerLifetimeTest.cpp - dangling pointers and from_blob --------===//

#include "torchtidy/analysis/PointerLifetime.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

struct Analysed {
  std::unique_ptr<clang::ASTUnit> AST;
  std::unique_ptr<PointerLifetime> L;
};

/// The analysis of `f` in \p Code (after a few helpers).
Analysed analyse(const std::string &Code) {
  Analysed A;
  A.AST = parse("void use(const float *);\nvoid take(torch::Tensor);\n" + Code);
  auto M = match(functionDecl(hasName("f"), isDefinition()).bind("f"),
                 A.AST->getASTContext());
  EXPECT_FALSE(M.empty()) << Code;
  if (!M.empty())
    A.L = std::make_unique<PointerLifetime>(
        M.front().getNodeAs<clang::FunctionDecl>("f"), A.AST->getASTContext());
  return A;
}

std::vector<DanglingPointer> dangling(const std::string &Code) {
  static std::vector<Analysed> Keep;
  Keep.push_back(analyse(Code));
  return Keep.back().L ? Keep.back().L->danglingPointers()
                       : std::vector<DanglingPointer>{};
}

std::vector<BlobEscape> escapes(const std::string &Code) {
  static std::vector<Analysed> Keep;
  Keep.push_back(analyse(Code));
  return Keep.back().L ? Keep.back().L->blobEscapes()
                       : std::vector<BlobEscape>{};
}

TEST(PointerLifetime, TemporaryKeptAndUsedLater) {
  auto D = dangling(R"cc(
    void f(torch::Tensor mu) {
      float *p;
      p = mu.to(torch::kCPU).data_ptr<float>();
      use(p);
    })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_EQ(D[0].C, DanglingPointer::Temporary);
  EXPECT_TRUE(D[0].MayAlias);
  EXPECT_EQ(D[0].Kept.K, Store::Local);
  EXPECT_EQ(D[0].Kept.Holder->getName(), "p");
  EXPECT_TRUE(D[0].Use);
  EXPECT_TRUE(D[0].BindingFixes);

  D = dangling(R"cc(
    void f(torch::Tensor a, torch::Tensor b) {
      const float *p = (a + b).data_ptr<float>();
      use(p);
    })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_FALSE(D[0].MayAlias);

  // The view of a temporary dies with it.
  EXPECT_EQ(dangling(R"cc(
    void f(torch::Tensor x) {
      float *p = x.contiguous().view({-1}).data_ptr<float>();
      use(p);
    })cc")
                .size(),
            1U);
}

TEST(PointerLifetime, TemporaryStoredBeyondTheFunction) {
  auto D = dangling(R"cc(
    float *f(torch::Tensor x) { return x.contiguous().data_ptr<float>(); })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_EQ(D[0].Kept.K, Store::Returned);
  EXPECT_FALSE(D[0].Use);

  D = dangling(R"cc(
    struct S {
      float *p_;
      void f(torch::Tensor x) { p_ = x.cpu().data_ptr<float>(); }
    };)cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_EQ(D[0].Kept.K, Store::Member);

  // In a container, a struct, a tensor made by from_blob.
  D = dangling(R"cc(
    void f(torch::Tensor x) {
      std::vector<float *> ptrs;
      ptrs.push_back(x.clone().data_ptr<float>());
      use(ptrs[0]);
    })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_EQ(D[0].Kept.Holder->getName(), "ptrs");
  D = dangling(R"cc(
    struct Args { float *data; int n; };
    void launch(Args);
    void f(torch::Tensor x) {
      Args a;
      a.data = x.contiguous().data_ptr<float>();
      a.n = 4;
      launch(a);
    })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_EQ(D[0].Kept.Holder->getName(), "a");
  D = dangling(R"cc(
    void f(torch::Tensor x) {
      auto t = torch::from_blob(x.contiguous().data_ptr<float>(), {4});
      take(t);
    })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_TRUE(D[0].Kept.Through);
}

TEST(PointerLifetime, TemporaryUsedInItsStatementIsFine) {
  EXPECT_TRUE(dangling(R"cc(
    void f(torch::Tensor x) {
      use(x.contiguous().data_ptr<float>());
      float v = *x.cpu().data_ptr<float>();
      std::vector<float> copy(x.cpu().data_ptr<float>(),
                              x.cpu().data_ptr<float>() + 4);
      (void)v;
    })cc")
                  .empty());
  // Views of a named tensor, tensors the table does not know.
  EXPECT_TRUE(dangling(R"cc(
    torch::Tensor g();
    void f(torch::Tensor x) {
      float *a = x.select(0, 1).data_ptr<float>();
      float *b = x[0].data_ptr<float>();
      float *c = g().data_ptr<float>();
      use(a); use(b); use(c);
    })cc")
                  .empty());
  // A pointer never used after its statement.
  EXPECT_TRUE(dangling(R"cc(
    void f(torch::Tensor x) {
      float *p = x.contiguous().data_ptr<float>();
      (void)sizeof(p);
    })cc")
                  .empty());
}

TEST(PointerLifetime, NamedTensorOutOfScopeOrReassigned) {
  auto D = dangling(R"cc(
    void f(torch::Tensor x) {
      float *p = nullptr;
      {
        torch::Tensor t = x.contiguous();
        p = t.data_ptr<float>();
      }
      use(p);
    })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_EQ(D[0].C, DanglingPointer::OutOfScope);
  EXPECT_EQ(D[0].Tensor->getName(), "t");
  EXPECT_TRUE(D[0].Kill);

  D = dangling(R"cc(
    void f(torch::Tensor x) {
      torch::Tensor t = x * 2;
      float *p = t.data_ptr<float>();
      t = torch::zeros({3});
      use(p);
    })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_EQ(D[0].C, DanglingPointer::Reassigned);

  // Returned: the tensor dies with the function.
  D = dangling(R"cc(
    float *f(torch::Tensor x) {
      torch::Tensor t = x.clone();
      return t.data_ptr<float>();
    })cc");
  ASSERT_EQ(D.size(), 1U);
  EXPECT_EQ(D[0].Kept.K, Store::Returned);
}

TEST(PointerLifetime, NamedTensorThatOutlivesItsUsesIsFine) {
  // The pointer is taken again after each reassignment (a loop).
  EXPECT_TRUE(dangling(R"cc(
    void f(torch::Tensor x, int n) {
      torch::Tensor s;
      float *p;
      for (int i = 0; i < n; ++i) {
        s = x.to(torch::kCPU).view({-1}).contiguous();
        p = s.data_ptr<float>();
        use(p);
      }
    })cc")
                  .empty());
  // `t = t.contiguous()` keeps the storage when nothing changes.
  EXPECT_TRUE(dangling(R"cc(
    void f(torch::Tensor x) {
      torch::Tensor t = x.clone();
      float *p = t.data_ptr<float>();
      t = t.contiguous();
      use(p);
    })cc")
                  .empty());
  // Storage another holder may keep: a parameter, a copy, a by-value call.
  EXPECT_TRUE(dangling(R"cc(
    float *f(torch::Tensor x) { return x.data_ptr<float>(); })cc")
                  .empty());
  EXPECT_TRUE(dangling(R"cc(
    std::vector<torch::Tensor> keep;
    void f(torch::Tensor x) {
      float *p = nullptr;
      {
        torch::Tensor t = x.clone();
        keep.push_back(t);
        p = t.data_ptr<float>();
      }
      use(p);
    })cc")
                  .empty());
  EXPECT_TRUE(dangling(R"cc(
    void f(torch::Tensor x) {
      float *p = nullptr;
      {
        torch::Tensor t = x.clone();
        take(t);
        p = t.data_ptr<float>();
      }
      use(p);
    })cc")
                  .empty());
}

TEST(PointerLifetime, BlobEscapes) {
  auto E = escapes(R"cc(
    torch::Tensor f() {
      std::vector<float> v(4);
      return torch::from_blob(v.data(), {4});
    })cc");
  ASSERT_EQ(E.size(), 1U);
  EXPECT_EQ(E[0].Kept.K, Store::Returned);
  EXPECT_EQ(E[0].Buffer.Owner->getName(), "v");

  // Through a local and a `.to(device)` that may not copy.
  E = escapes(R"cc(
    torch::Tensor f(torch::Device d) {
      float a[4] = {1, 2, 3, 4};
      auto t = torch::from_blob(a, {4}).to(d);
      return t;
    })cc");
  ASSERT_EQ(E.size(), 1U);
  EXPECT_TRUE(E[0].Kept.MayAliasOp);
  ASSERT_EQ(E[0].Via.size(), 1U);
  EXPECT_EQ(E[0].Via[0]->getName(), "t");

  // Into a member, the module, an Example, a container that is returned.
  EXPECT_EQ(escapes(R"cc(
    struct S {
      torch::Tensor t_;
      void f() { double d = 1; t_ = torch::from_blob(&d, {1}, torch::kDouble); }
    };)cc")
                .size(),
            1U);
  EXPECT_EQ(escapes(R"cc(
    struct M : torch::nn::Module {
      torch::Tensor b_;
      void f(std::vector<float> v) { b_ = register_buffer("b", torch::from_blob(v.data(), {2})); }
    };)cc")
                .size(),
            1U);
  EXPECT_EQ(escapes(R"cc(
    torch::data::Example<> f(torch::Tensor label) {
      std::vector<float> v(4);
      return {torch::from_blob(v.data(), {4}), label};
    })cc")
                .size(),
            1U);
  EXPECT_EQ(escapes(R"cc(
    std::vector<torch::Tensor> f() {
      std::vector<torch::Tensor> out;
      std::vector<float> v(4);
      out.push_back(torch::from_blob(v.data(), {4}));
      return out;
    })cc")
                .size(),
            1U);

  // Used after the buffer's scope ended, or after delete[].
  E = escapes(R"cc(
    void f() {
      torch::Tensor t;
      {
        std::vector<float> v(4);
        t = torch::from_blob(v.data(), {4});
      }
      take(t);
    })cc");
  ASSERT_EQ(E.size(), 1U);
  EXPECT_TRUE(E[0].Use);
  EXPECT_TRUE(E[0].Freed);
  E = escapes(R"cc(
    void f() {
      float *buf = new float[4];
      auto t = torch::from_blob(buf, {4});
      delete[] buf;
      take(t);
    })cc");
  ASSERT_EQ(E.size(), 1U);
  EXPECT_TRUE(E[0].Freed);
}

TEST(PointerLifetime, BlobsThatDoNotOutliveTheirBuffer) {
  // A copy, a move to CUDA of host memory, a conversion to another dtype.
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f() {
      std::vector<float> v(4);
      return torch::from_blob(v.data(), {4}).clone();
    })cc")
                  .empty());
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f() {
      std::vector<float> v(4);
      auto t = torch::from_blob(v.data(), {4});
      return t.clone();
    })cc")
                  .empty());
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f() {
      float a[4];
      return torch::from_blob(a, {4}).to(torch::kCUDA);
    })cc")
                  .empty());
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f() {
      std::vector<uint8_t> v(4);
      return torch::from_blob(v.data(), {4}, torch::kByte).to(torch::kFloat);
    })cc")
                  .empty());
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f() {
      std::vector<float> v(4);
      return torch::from_blob(v.data(), {4}) * 2;
    })cc")
                  .empty());
  // Memory that outlives the tensor: a member, a static, a reference.
  EXPECT_TRUE(escapes(R"cc(
    struct S {
      std::vector<float> buf_;
      torch::Tensor f() { return torch::from_blob(buf_.data(), {4}); }
    };)cc")
                  .empty());
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f() {
      static float a[4];
      return torch::from_blob(a, {4});
    })cc")
                  .empty());
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f(std::vector<float> &v) { return torch::from_blob(v.data(), {4}); })cc")
                  .empty());
  // A deleter: the tensor owns the memory.
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f() {
      float *p = new float[4];
      auto t = torch::from_blob(p, {4}, [](void *q) { delete[] static_cast<float *>(q); });
      return t;
    })cc")
                  .empty());
  // Used only while the buffer lives; handed on with the buffer.
  EXPECT_TRUE(escapes(R"cc(
    void f() {
      std::vector<float> v(4);
      auto t = torch::from_blob(v.data(), {4});
      take(t);
    })cc")
                  .empty());
  EXPECT_TRUE(escapes(R"cc(
    struct S {
      std::vector<float> keep_;
      torch::Tensor t_;
      void f() {
        std::vector<float> v(4);
        t_ = torch::from_blob(v.data(), {4});
        keep_ = std::move(v);
      }
    };)cc")
                  .empty());
  // A heap buffer never freed here.
  EXPECT_TRUE(escapes(R"cc(
    torch::Tensor f() {
      float *p = new float[4];
      return torch::from_blob(p, {4});
    })cc")
                  .empty());
}

} // namespace
