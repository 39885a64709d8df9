//===--- TensorStorageTest.cpp - storage, raw pointers, from_blob buffers -===//

#include "torchtidy/analysis/TensorStorage.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

/// The initialiser of `probe` in `void f(...) { <Prelude> auto probe = E; }`.
struct Probe {
  std::unique_ptr<clang::ASTUnit> AST;
  const clang::Expr *E = nullptr;
  const clang::Stmt *Body = nullptr;
};

Probe probe(const std::string &E, const std::string &Prelude = "") {
  Probe P;
  P.AST = parse("struct Img { unsigned char *data; };\n"
                "struct Holder { torch::Tensor member; float buf[4]; };\n"
                "void f(torch::Tensor x, torch::Tensor y, float *param_ptr,\n"
                "       std::vector<float> by_value, const std::vector<float> "
                "&by_ref, Img img, Holder h) {\n" +
                Prelude + "\nauto probe = " + E + ";\n(void)probe;\n}\n");
  auto M = match(varDecl(hasName("probe")).bind("v"), P.AST->getASTContext());
  if (!M.empty())
    P.E = M.front().getNodeAs<clang::VarDecl>("v")->getInit();
  auto F = match(functionDecl(hasName("f"), isDefinition()).bind("f"),
                 P.AST->getASTContext());
  if (!F.empty())
    P.Body = F.front().getNodeAs<clang::FunctionDecl>("f")->getBody();
  return P;
}

StorageStep::Kind step(const std::string &E, const std::string &Prelude = "") {
  const Probe P = probe(E, Prelude);
  return P.E ? storageStep(P.E).K : StorageStep::Unknown;
}

TEST(TensorStorage, StepsFromTheTable) {
  EXPECT_EQ(step("x"), StorageStep::Named);
  EXPECT_EQ(step("h.member"), StorageStep::Named);
  EXPECT_EQ(step("std::move(x)"), StorageStep::Named);
  // Views share the storage; in-place ops return the tensor itself.
  EXPECT_EQ(step("x.view({-1})"), StorageStep::View);
  EXPECT_EQ(step("x.select(0, 1)"), StorageStep::View);
  EXPECT_EQ(step("x[1]"), StorageStep::View);
  EXPECT_EQ(step("x.narrow(0, 0, 1)"), StorageStep::View);
  EXPECT_EQ(step("x.fill_(1)"), StorageStep::View);
  EXPECT_EQ(step("x.index({at::indexing::Slice(), 0})"), StorageStep::View);
  // Ops that may return their input unchanged.
  EXPECT_EQ(step("x.to(torch::kCPU)"), StorageStep::MayAlias);
  EXPECT_EQ(step("x.cpu()"), StorageStep::MayAlias);
  EXPECT_EQ(step("x.cuda()"), StorageStep::MayAlias);
  EXPECT_EQ(step("x.contiguous()"), StorageStep::MayAlias);
  EXPECT_EQ(step("x.reshape({-1})"), StorageStep::MayAlias);
  // Ops whose result has storage of its own.
  EXPECT_EQ(step("x.clone()"), StorageStep::Allocates);
  EXPECT_EQ(step("x + y"), StorageStep::Allocates);
  EXPECT_EQ(step("x * y"), StorageStep::Allocates);
  EXPECT_EQ(step("x.sum()"), StorageStep::Allocates);
  EXPECT_EQ(step("torch::cat({x, y})"), StorageStep::Allocates);
  EXPECT_EQ(step("torch::zeros({2})"), StorageStep::Allocates);
  EXPECT_EQ(step("torch::softmax(x, 1)"), StorageStep::Allocates);
  EXPECT_EQ(step("x[y]"), StorageStep::Allocates);
  EXPECT_EQ(step("x.index({y})"), StorageStep::Allocates);
  EXPECT_EQ(step("x.masked_select(y)"), StorageStep::Allocates);
  EXPECT_EQ(step("torch::from_blob(param_ptr, {2})"), StorageStep::WrapsBlob);
  // Nothing known.
  EXPECT_EQ(step("g()", "torch::Tensor g();"), StorageStep::Unknown);
  EXPECT_EQ(step("std::get<0>(t)", "std::tuple<torch::Tensor, int> t;"),
            StorageStep::Unknown);
}

TEST(TensorStorage, ViewsAndMovesNameTheirInput) {
  const Probe P = probe("x.view({-1}).contiguous()");
  const StorageStep S = storageStep(P.E);
  ASSERT_EQ(S.K, StorageStep::MayAlias);
  EXPECT_EQ(S.OpName, "contiguous");
  const StorageStep Under = storageStep(S.Input);
  EXPECT_EQ(Under.K, StorageStep::View);
  EXPECT_EQ(storageStep(Under.Input).K, StorageStep::Named);
  EXPECT_EQ(storageStep(Under.Input).Decl->getName(), "x");
}

bool isRaw(const std::string &E) {
  const Probe P = probe(E);
  const auto *Call =
      P.E ? llvm::dyn_cast<clang::CallExpr>(peelValue(P.E)) : nullptr;
  return Call && rawDataObject(Call);
}

TEST(TensorStorage, RawPointersIntoStorage) {
  EXPECT_TRUE(isRaw("x.data_ptr<float>()"));
  EXPECT_TRUE(isRaw("x.data_ptr()"));
  EXPECT_TRUE(isRaw("x.data<float>()"));
  EXPECT_TRUE(isRaw("x.accessor<float, 2>()"));
  EXPECT_TRUE(isRaw("x.packed_accessor32<float, 2>()"));
  EXPECT_TRUE(isRaw("x.packed_accessor64<float, 2>()"));
  EXPECT_TRUE(isRaw("x.mutable_data_ptr<float>()"));
  EXPECT_TRUE(isRaw("x.const_data_ptr<float>()"));
  // Tensor::data() is a tensor, not a pointer.
  EXPECT_FALSE(isRaw("x.data()"));
  EXPECT_FALSE(isRaw("x.numel()"));
  EXPECT_FALSE(isRaw("by_value.data()"));
}

std::optional<FromBlobCall> blob(const std::string &E) {
  static std::vector<Probe> Keep; // the AST must outlive the result
  Keep.push_back(probe(E));
  const clang::Expr *X = Keep.back().E;
  const auto *Call =
      X ? llvm::dyn_cast<clang::CallExpr>(peelValue(X)) : nullptr;
  return matchFromBlob(Call);
}

TEST(TensorStorage, FromBlobCalls) {
  auto B = blob("torch::from_blob(param_ptr, {2})");
  ASSERT_TRUE(B);
  EXPECT_FALSE(B->HasDeleter);
  EXPECT_FALSE(B->Options);
  EXPECT_TRUE(B->OptionsParamFollows);
  B = blob("torch::from_blob(param_ptr, {2}, torch::kFloat)");
  ASSERT_TRUE(B);
  EXPECT_TRUE(B->Options);
  EXPECT_FALSE(B->OptionsParamFollows);
  B = blob("torch::from_blob(param_ptr, {2}, [](void *) {})");
  ASSERT_TRUE(B);
  EXPECT_TRUE(B->HasDeleter);
  EXPECT_TRUE(B->OptionsParamFollows);
  B = blob("torch::from_blob(param_ptr, {2}, {1})");
  ASSERT_TRUE(B);
  EXPECT_FALSE(B->HasDeleter);
  EXPECT_TRUE(B->OptionsParamFollows);
  EXPECT_FALSE(blob("torch::zeros({2})"));
}

BufferOrigin origin(const std::string &Data, const std::string &Prelude = "") {
  static std::vector<Probe> Keep;
  Keep.push_back(probe(Data, Prelude));
  return Keep.back().E ? bufferOrigin(Keep.back().E, Keep.back().Body)
                       : BufferOrigin{};
}

TEST(TensorStorage, BufferOrigins) {
  BufferOrigin O = origin("v.data()", "std::vector<double> v(4);");
  EXPECT_EQ(O.K, BufferOrigin::Container);
  EXPECT_TRUE(O.Automatic);
  EXPECT_EQ(O.Element.getAsString(), "double");
  EXPECT_EQ(O.Owner->getName(), "v");

  O = origin("&v[0]", "std::vector<int> v(4);");
  EXPECT_EQ(O.K, BufferOrigin::Container);
  EXPECT_EQ(O.Element.getAsString(), "int");

  O = origin("a", "float a[4];");
  EXPECT_EQ(O.K, BufferOrigin::Array);
  EXPECT_TRUE(O.Automatic);
  O = origin("(void *)a", "static float a[4];");
  EXPECT_EQ(O.K, BufferOrigin::Array);
  EXPECT_FALSE(O.Automatic);

  O = origin("&s", "double s = 1;");
  EXPECT_EQ(O.K, BufferOrigin::Scalar);
  EXPECT_EQ(O.Element.getAsString(), "double");

  O = origin("s.c_str()", "std::string s;");
  EXPECT_EQ(O.K, BufferOrigin::Container);
  EXPECT_EQ(O.Element.getAsString(), "char");

  // Through a local pointer nothing reassigns.
  O = origin("p", "std::vector<long> v(4); long *p = v.data();");
  EXPECT_EQ(O.K, BufferOrigin::Container);
  EXPECT_EQ(O.Owner->getName(), "v");
  O = origin("p", "float *p = new float[4];");
  EXPECT_EQ(O.K, BufferOrigin::Pointer);
  EXPECT_EQ(O.Element.getAsString(), "float");
  EXPECT_FALSE(O.DeclaredPointee);

  // A pointer that may point elsewhere by the use: assigned, passed by
  // non-const reference, captured by reference, its address taken.
  for (const char *Change : {"p = nullptr;", "void reseat(long *&); reseat(p);",
                             "auto f = [&p] { ++p; };", "long **pp = &p;"}) {
    O = origin("p",
               std::string("std::vector<long> v(4); long *p = v.data(); ") +
                   Change);
    // Only the pointer itself is known.
    EXPECT_EQ(O.K, BufferOrigin::Pointer) << Change;
    ASSERT_TRUE(O.Owner) << Change;
    EXPECT_EQ(O.Owner->getName(), "p") << Change;
  }
  // Read, passed by value or by const reference: still v's.
  O = origin("p",
             "std::vector<long> v(4); long *p = v.data(); "
             "void by_value_ptr(long *); void by_const_ref(long *const &); "
             "by_value_ptr(p); by_const_ref(p); long first = p[0] + *p;");
  EXPECT_EQ(O.K, BufferOrigin::Container);
  EXPECT_EQ(O.Owner->getName(), "v");

  // A by-value parameter is the function's own; a reference is the caller's.
  O = origin("by_value.data()");
  EXPECT_TRUE(O.Automatic);
  O = origin("(float *)by_ref.data()");
  EXPECT_EQ(O.K, BufferOrigin::Container);
  EXPECT_FALSE(O.Automatic);

  // An array member of a local struct lives in it.
  O = origin("local.buf", "Holder local;");
  EXPECT_EQ(O.K, BufferOrigin::Array);
  EXPECT_EQ(O.Owner->getName(), "local");

  // A parameter pointer: only its declared pointee is known.
  O = origin("param_ptr");
  EXPECT_EQ(O.K, BufferOrigin::Unknown);
  EXPECT_TRUE(O.DeclaredPointee);
  EXPECT_EQ(O.Element.getAsString(), "float");

  // An image's byte pointer holds any element type: nothing is known.
  O = origin("img.data");
  EXPECT_EQ(O.K, BufferOrigin::Unknown);
  EXPECT_TRUE(O.Element.isNull());
}

TEST(TensorStorage, BuffersOfTemporaries) {
  // A container returned by value: its elements die with the statement.
  const std::string Make = "auto make = [] { return std::vector<float>(4); };";
  BufferOrigin O = origin("make().data()", Make);
  EXPECT_EQ(O.K, BufferOrigin::Temporary);
  EXPECT_FALSE(O.Owner);
  EXPECT_EQ(O.Element.getAsString(), "float");
  // A pointer field of a deep copy of an object of the class (clone()).
  const std::string Deep = "struct Deep { Deep clone() const { return *this; }"
                           " double *p; }; Deep d;";
  O = origin("d.clone().p", Deep);
  EXPECT_EQ(O.K, BufferOrigin::Temporary);
  EXPECT_EQ(O.Element.getAsString(), "double");
  // Not temporaries that own: a plain copy shares what its pointer points
  // to, a named object lives on, a reference bound to the temporary
  // extends it.
  EXPECT_EQ(origin("Deep(d).p", Deep).K, BufferOrigin::Unknown);
  EXPECT_EQ(origin("d.p", Deep).K, BufferOrigin::Unknown);
  EXPECT_NE(origin("kept.data()", Make + "const auto &kept = make();").K,
            BufferOrigin::Temporary);
}

} // namespace
