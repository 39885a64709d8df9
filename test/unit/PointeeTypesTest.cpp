//===--- PointeeTypesTest.cpp - element types against dtypes --------------===//

#include "torchtidy/analysis/PointeeTypes.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

struct Parsed {
  std::unique_ptr<clang::ASTUnit> AST;
  const clang::VarDecl *Probe = nullptr;
};

Parsed parseProbe(const std::string &Decls, const std::string &Type,
                  const std::string &Init) {
  Parsed P;
  P.AST = parse(Decls + "\nvoid f(torch::Tensor x) {\n" + Type + " probe" +
                Init + ";\n(void)probe;\n}\n");
  auto M = match(varDecl(hasName("probe")).bind("v"), P.AST->getASTContext());
  if (!M.empty())
    P.Probe = M.front().getNodeAs<clang::VarDecl>("v");
  return P;
}

/// The dtype name options expression \p E gives: "Float", "default", "?".
std::string dtypeOf(const std::string &E, const std::string &Prelude = "") {
  Parsed P = parseProbe("", Prelude + "\nauto", " = " + E);
  if (!P.Probe)
    return "no probe";
  const OptionsDtype D =
      dtypeOfOptions(P.Probe->getInit(), P.AST->getASTContext());
  if (D.K == OptionsDtype::Default)
    return "default";
  if (D.K == OptionsDtype::Unknown)
    return "?";
  return D.D.Name.str();
}

TEST(PointeeTypes, DtypeOfOptions) {
  EXPECT_EQ(dtypeOf("torch::kFloat64"), "Double");
  EXPECT_EQ(dtypeOf("torch::kF64"), "Double");
  EXPECT_EQ(dtypeOf("torch::kLong"), "Long");
  EXPECT_EQ(dtypeOf("c10::ScalarType::Byte"), "Byte");
  EXPECT_EQ(dtypeOf("torch::dtype(torch::kInt32)"), "Int");
  EXPECT_EQ(dtypeOf("torch::TensorOptions().dtype(torch::kDouble)"), "Double");
  EXPECT_EQ(dtypeOf("torch::TensorOptions().dtype(torch::kDouble).device("
                    "torch::kCUDA)"),
            "Double");
  EXPECT_EQ(dtypeOf("torch::TensorOptions(torch::kInt)"), "Int");
  EXPECT_EQ(dtypeOf("opts", "const auto opts = torch::dtype(torch::kLong);"),
            "Long");
  EXPECT_EQ(dtypeOf("t", "constexpr auto t = torch::kHalf;"), "Half");
  // Options without a dtype: the default one.
  EXPECT_EQ(dtypeOf("torch::TensorOptions()"), "default");
  EXPECT_EQ(dtypeOf("torch::TensorOptions().device(torch::kCUDA)"), "default");
  EXPECT_EQ(dtypeOf("torch::TensorOptions().requires_grad(true)"), "default");
  EXPECT_EQ(dtypeOf("torch::kCUDA"), "default");
  EXPECT_EQ(dtypeOf("torch::Device(torch::kCPU)"), "default");
  EXPECT_EQ(dtypeOf("torch::device(torch::kCPU)"), "default");
  // Another tensor's options, a dtype chosen at run time: not known.
  EXPECT_EQ(dtypeOf("x.options()"), "?");
  EXPECT_EQ(dtypeOf("x.scalar_type()"), "?");
  EXPECT_EQ(dtypeOf("t", "auto t = torch::kLong; t = x.scalar_type();"), "?");
}

ElementMatch compare(const std::string &Type, const std::string &Dtype,
                     const std::string &Decls = "") {
  Parsed P = parseProbe(Decls, Type, "{}");
  if (!P.Probe)
    return ElementMatch::RawBytes;
  return compareElements(P.Probe->getType(), *dtypeNamed(Dtype),
                         P.AST->getASTContext());
}

TEST(PointeeTypes, CompareElements) {
  EXPECT_EQ(compare("float", "Float"), ElementMatch::Same);
  EXPECT_EQ(compare("double", "Double"), ElementMatch::Same);
  EXPECT_EQ(compare("int64_t", "Long"), ElementMatch::Same);
  EXPECT_EQ(compare("long long", "Long"), ElementMatch::Same);
  EXPECT_EQ(compare("int", "Int"), ElementMatch::Same);
  EXPECT_EQ(compare("uint8_t", "Byte"), ElementMatch::Same);
  EXPECT_EQ(compare("bool", "Bool"), ElementMatch::Same);
  EXPECT_EQ(compare("c10::Half", "Half"), ElementMatch::Same);
  EXPECT_EQ(compare("c10::complex<float>", "ComplexFloat"), ElementMatch::Same);
  EXPECT_EQ(compare("double", "Float"), ElementMatch::Mismatch);
  EXPECT_EQ(compare("float", "Double"), ElementMatch::Mismatch);
  EXPECT_EQ(compare("int", "Long"), ElementMatch::Mismatch);
  EXPECT_EQ(compare("int", "Float"), ElementMatch::Mismatch);
  EXPECT_EQ(compare("uint8_t", "Float"), ElementMatch::Mismatch);
  EXPECT_EQ(compare("c10::Half", "BFloat16"), ElementMatch::Mismatch);
  // Same size, other signedness: the same bytes.
  EXPECT_EQ(compare("uint8_t", "Char"), ElementMatch::SameBytes);
  EXPECT_EQ(compare("unsigned", "Int"), ElementMatch::SameBytes);
  EXPECT_EQ(compare("size_t", "Long"), ElementMatch::SameBytes);
  // char, std::byte, void: bytes of anything.
  EXPECT_EQ(compare("char", "Float"), ElementMatch::RawBytes);
  // Classes: the same values when they are made of the dtype only.
  const std::string Decls = "struct P2 { float x, y; };\n"
                            "struct Mixed { float x; int n; };\n"
                            "struct Arr { float v[3]; };\n"
                            "struct Derived : P2 { float z; };\n"
                            "struct Padded { double d; float f; };\n"
                            "struct Virt { virtual ~Virt(); float x; };";
  EXPECT_EQ(compare("P2", "Float", Decls), ElementMatch::Same);
  EXPECT_EQ(compare("Arr", "Float", Decls), ElementMatch::Same);
  EXPECT_EQ(compare("Derived", "Float", Decls), ElementMatch::Same);
  EXPECT_EQ(compare("Mixed", "Float", Decls), ElementMatch::Mismatch);
  EXPECT_EQ(compare("P2", "Double", Decls), ElementMatch::Mismatch);
  EXPECT_EQ(compare("Padded", "Double", Decls), ElementMatch::Mismatch);
  EXPECT_EQ(compare("Virt", "Float", Decls), ElementMatch::Mismatch);
  EXPECT_EQ(compare("std::vector<float>", "Float"), ElementMatch::Mismatch);
  EXPECT_EQ(compare("float *", "Long"), ElementMatch::Mismatch);
}

TEST(PointeeTypes, DtypeOfCppTypes) {
  Parsed P = parseProbe("", "double", "{}");
  ASSERT_TRUE(P.Probe);
  auto D = dtypeOfCppType(P.Probe->getType(), P.AST->getASTContext());
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Spelling, "torch::kFloat64");
  EXPECT_EQ(D->Pretty, "float64");
  EXPECT_EQ(D->Bytes, 8U);
  P = parseProbe("", "std::vector<float>", "{}");
  EXPECT_FALSE(dtypeOfCppType(P.Probe->getType(), P.AST->getASTContext()));
}

/// The mismatch checkBlobDtype finds for `torch::from_blob(<Args>)`.
std::optional<BlobDtypeMismatch> mismatch(const std::string &Prelude,
                                          const std::string &Args,
                                          bool DefaultChanged = false) {
  static std::vector<std::unique_ptr<clang::ASTUnit>> Keep;
  Keep.push_back(parse("struct Img { unsigned char *data; };\n"
                       "void f(Img img, double *dp, unsigned char *up) {\n" +
                       Prelude + "\nauto probe = torch::from_blob(" + Args +
                       ");\n(void)probe;\n}\n"));
  clang::ASTContext &Ctx = Keep.back()->getASTContext();
  auto M = match(callExpr(callee(functionDecl(hasName("from_blob")))).bind("c"),
                 Ctx);
  auto F = match(functionDecl(hasName("f"), isDefinition()).bind("f"), Ctx);
  if (M.empty() || F.empty())
    return std::nullopt;
  auto B = matchFromBlob(M.front().getNodeAs<clang::CallExpr>("c"));
  if (!B)
    return std::nullopt;
  return checkBlobDtype(
      *B, F.front().getNodeAs<clang::FunctionDecl>("f")->getBody(), Ctx,
      DefaultChanged);
}

TEST(PointeeTypes, BlobDtypes) {
  auto M = mismatch("std::vector<double> v(4);", "v.data(), {4}");
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Given.K, OptionsDtype::Default);
  ASSERT_TRUE(M->Matching);
  EXPECT_EQ(M->Matching->Name, "Double");
  EXPECT_TRUE(
      mismatch("std::vector<double> v(4);", "v.data(), {4}, torch::kFloat"));
  EXPECT_TRUE(mismatch("int a[4];", "a, {4}, torch::kLong"));
  EXPECT_TRUE(
      mismatch("std::vector<uint8_t> v(4);", "v.data(), {4}, torch::kFloat"));
  EXPECT_TRUE(mismatch("", "dp, {4}"));
  // Matches.
  EXPECT_FALSE(mismatch("std::vector<float> v(4);", "v.data(), {4}"));
  EXPECT_FALSE(
      mismatch("std::vector<double> v(4);", "v.data(), {4}, torch::kF64"));
  EXPECT_FALSE(
      mismatch("std::vector<int64_t> v(4);", "v.data(), {4}, torch::kLong"));
  // No evidence: a byte field of an image, a declared byte pointer, the
  // options of another tensor, bytes of a std::string.
  EXPECT_FALSE(mismatch("", "img.data, {4}, torch::kFloat"));
  EXPECT_FALSE(mismatch("", "up, {4}, torch::kFloat"));
  EXPECT_FALSE(mismatch("std::vector<double> v(4); torch::Tensor t;",
                        "v.data(), {4}, t.options()"));
  EXPECT_FALSE(
      mismatch("std::string s;", "(void *)s.data(), {4}, torch::kFloat"));
  // set_default_dtype makes the default unknown.
  EXPECT_FALSE(mismatch("std::vector<double> v(4);", "v.data(), {4}", true));
}

} // namespace
