//===--- HardcodedDeviceTest.cpp - devices a module fixes in its code -----===//

#include "torchtidy/analysis/HardcodedDevice.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

/// The kind of the initialiser of `probe` in a member function of a module
/// `M` (after <Members> in the class and <Prelude> in the function).
FixedDevice::Kind fixed(const std::string &E, const std::string &Prelude = "",
                        const std::string &Members = "") {
  auto AST =
      parse("torch::Device g_device(torch::kCPU);\n"
            "const torch::Device kHost(torch::kCPU);\n"
            "struct M : torch::nn::Module {\n" +
            Members + "\nvoid f(torch::Device param, torch::Tensor t) {\n" +
            Prelude + "\nauto probe = " + E + ";\n}\n};\n");
  auto Found = match(varDecl(hasName("probe")).bind("v"), AST->getASTContext());
  if (Found.empty())
    return FixedDevice::None;
  return classifyFixedDevice(
             Found.front().getNodeAs<clang::VarDecl>("v")->getInit())
      .K;
}

TEST(HardcodedDevice, Literals) {
  EXPECT_EQ(fixed("torch::kCUDA"), FixedDevice::Literal);
  EXPECT_EQ(fixed("torch::Device(\"cuda:0\")"), FixedDevice::Literal);
  EXPECT_EQ(fixed("torch::Device(torch::kCUDA, 1)"), FixedDevice::Literal);
  EXPECT_EQ(fixed("torch::TensorOptions().dtype(torch::kFloat).device("
                  "torch::kCUDA)"),
            FixedDevice::Literal);
  EXPECT_EQ(fixed("torch::device(torch::kCUDA)"), FixedDevice::Literal);
  EXPECT_EQ(fixed("torch::cuda::is_available() ? torch::kCUDA : torch::kCPU"),
            FixedDevice::Literal);
  EXPECT_EQ(fixed("d", "torch::Device d(torch::kCUDA);"), FixedDevice::Literal);
  // A fixed index whatever the type.
  EXPECT_EQ(fixed("torch::Device(t.device().type(), 0)"),
            FixedDevice::IndexLiteral);
}

TEST(HardcodedDevice, NotFixed) {
  EXPECT_EQ(fixed("torch::kCPU"), FixedDevice::None);
  EXPECT_EQ(fixed("torch::Device(\"cpu\")"), FixedDevice::None);
  EXPECT_EQ(fixed("kHost"), FixedDevice::None);
  EXPECT_EQ(fixed("t.device()"), FixedDevice::None);
  EXPECT_EQ(fixed("t.options()"), FixedDevice::None);
  EXPECT_EQ(fixed("param"), FixedDevice::None);
  EXPECT_EQ(fixed("d", "torch::Device d = param;"), FixedDevice::None);
  EXPECT_EQ(fixed("torch::TensorOptions().dtype(torch::kFloat)"),
            FixedDevice::None);
  EXPECT_EQ(fixed("torch::Device(t.device().type(), t.device().index())"),
            FixedDevice::None);
}

TEST(HardcodedDevice, GlobalsAndMembers) {
  EXPECT_EQ(fixed("g_device"), FixedDevice::Global);
  EXPECT_EQ(fixed("s", "static torch::Device s(torch::kCPU);"),
            FixedDevice::Global);
  // A member only ever set to a fixed device...
  EXPECT_EQ(fixed("dev_", "", "torch::Device dev_{torch::kCUDA};"),
            FixedDevice::Member);
  EXPECT_EQ(
      fixed("dev_", "",
            "M() : dev_(torch::kCUDA) {}\ntorch::Device dev_{torch::kCPU};"),
      FixedDevice::None); // the default initialiser is CPU
  EXPECT_EQ(fixed("dev_", "",
                  "M() : dev_(torch::Device(\"cuda:1\")) {}\n"
                  "torch::Device dev_{torch::kCUDA};"),
            FixedDevice::Member);
  // ...not one set from outside, or by code the TU does not show.
  EXPECT_EQ(fixed("dev_", "",
                  "explicit M(torch::Device d) : dev_(d) {}\n"
                  "torch::Device dev_{torch::kCUDA};"),
            FixedDevice::None);
  EXPECT_EQ(fixed("dev_", "",
                  "void set(torch::Device d) { dev_ = d; }\n"
                  "torch::Device dev_{torch::kCUDA};"),
            FixedDevice::None);
  EXPECT_EQ(fixed("dev_", "", "M(int n);\ntorch::Device dev_{torch::kCUDA};"),
            FixedDevice::None);
  EXPECT_EQ(fixed("dev_", "", "void g();\ntorch::Device dev_{torch::kCUDA};"),
            FixedDevice::None);
}

/// "kind line" of each site found in the snippet.
std::vector<std::string> sites(const std::string &Code, unsigned Depth = 4) {
  auto AST = parse(Code);
  auto &Ctx = AST->getASTContext();
  std::vector<std::string> Out;
  for (const HardcodedDeviceSite &S : findHardcodedDevices(Ctx, Depth)) {
    const char *K = S.K == HardcodedDeviceSite::Fixed      ? "fixed"
                    : S.K == HardcodedDeviceSite::NoDevice ? "nodevice"
                                                           : "default";
    Out.push_back(std::string(K) + " " +
                  std::to_string(Ctx.getSourceManager().getPresumedLineNumber(
                                     S.Site->getBeginLoc()) -
                                 1) +
                  (S.InConstruction ? " ctor" : "") +
                  (S.K == HardcodedDeviceSite::NoDevice && !S.RootIsForward
                       ? " from " + S.Root->getNameAsString()
                       : "") +
                  (S.Input ? " input=" + S.Input->getNameAsString() : "") +
                  (S.ReturnedBy
                       ? " returned by " + S.Function->getNameAsString() +
                             " to " + S.Receiver->getNameAsString()
                       : ""));
  }
  return Out;
}

using V = std::vector<std::string>;

TEST(HardcodedDevice, OnlyInModules) {
  EXPECT_EQ(sites("torch::Tensor f(torch::Tensor x) {\n"
                  "return x.cuda() + torch::zeros({2}); }\n"
                  "struct M : torch::nn::Module {\n"
                  "torch::Tensor forward(torch::Tensor x) {\n"
                  "return x.cuda(); } };\n"),
            V{"fixed 5 input=x"});
}

TEST(HardcodedDevice, Construction) {
  EXPECT_EQ(sites("struct M : torch::nn::Cloneable<M> {\n"
                  "M() : w(torch::randn({2}, torch::kCUDA)) { reset(); }\n"
                  "void reset() override {\n"
                  "b = register_buffer(\"b\", torch::zeros({2}).cuda());\n"
                  "auto sum = torch::zeros({2}) + w; }\n"
                  "torch::Tensor w, b; };\n"),
            (V{"fixed 2 ctor", "fixed 4 ctor"}));
}

TEST(HardcodedDevice, NoDeviceFollowsForward) {
  // In forward and what it calls, MaxCallDepth deep; another member's own
  // tensor arguments are not the module's.
  const std::string Code = "torch::Tensor leaf(torch::Tensor h) {\n"
                           "return h * torch::ones({2}); }\n"
                           "torch::Tensor mid(torch::Tensor h) {\n"
                           "return leaf(h); }\n"
                           "struct M : torch::nn::Module {\n"
                           "torch::Tensor forward(torch::Tensor x) {\n"
                           "auto y = mid(x);\n"
                           "return y + torch::arange(2); }\n"
                           "torch::Tensor other(torch::Tensor x) {\n"
                           "return x + torch::zeros({2}); } };\n";
  EXPECT_EQ(sites(Code), (V{"nodevice 2 input=h", "nodevice 8 input=y"}));
  EXPECT_EQ(sites(Code, 1), (V{"nodevice 8 input=y"}));
  // 0-dim CPU tensors are scalars; a device from the input is fine.
  EXPECT_EQ(sites("struct M : torch::nn::Module {\n"
                  "torch::Tensor forward(torch::Tensor x) {\n"
                  "return x + torch::zeros({}) + torch::scalar_tensor(1.0) +\n"
                  "torch::tensor(2.0) + torch::zeros({2}, x.device()); } };\n"),
            V{});
}

TEST(HardcodedDevice, NoDeviceInOtherMethods) {
  // A method of a built module meets the module's members; one the
  // constructor or reset() calls (directly or not), a static one and the
  // destructor do not run on the module's device.
  const std::string Code = "struct M : torch::nn::Cloneable<M> {\n"
                           "M() { init(); }\n"
                           "void reset() override { fill(); }\n"
                           "void init() { w.copy_(torch::ones({2}) * w); }\n"
                           "void fill() { more(); }\n"
                           "void more() { b = torch::zeros({2}) + w; }\n"
                           "static torch::Tensor s(torch::Tensor w) {\n"
                           "return torch::ones({2}) + w; }\n"
                           "~M() { auto t = torch::ones({2}) + w; }\n"
                           "torch::Tensor sample() { return draw(); }\n"
                           "torch::Tensor draw() {\n"
                           "return emb(torch::arange(2)) * w; }\n"
                           "torch::Tensor w, b;\n"
                           "torch::nn::Embedding emb{nullptr}; };\n";
  EXPECT_EQ(sites(Code), V{"nodevice 12 from sample"});
  // Walked from forward first: the site keeps forward's chain.
  EXPECT_EQ(sites("struct M : torch::nn::Module {\n"
                  "torch::Tensor forward(torch::Tensor x) { return h(); }\n"
                  "torch::Tensor h() { return torch::ones({2}) * w; }\n"
                  "torch::Tensor w; };\n"),
            V{"nodevice 3"});
}

TEST(HardcodedDevice, NoDeviceReturnedByHelper) {
  // Every return of the helper is a factory's CPU tensor, and what it
  // returns meets forward's input: directly, or through a local nothing
  // changes after.
  const std::string Helpers =
      "torch::Tensor mask(int64_t n) { auto m = torch::ones({n});\n"
      "return m.triu(1); }\n"
      "torch::Tensor either(torch::Tensor x, bool c) {\n"
      "if (c) return x * 2; return torch::zeros({2}); }\n"
      "void move(torch::Tensor &t, torch::Device d);\n";
  EXPECT_EQ(sites(Helpers + "struct M : torch::nn::Module {\n"
                            "torch::Tensor forward(torch::Tensor x) {\n"
                            "auto a = mask(2);\n"
                            "return x * a; } };\n"),
            V{"nodevice 1 returned by mask to forward"});
  EXPECT_EQ(sites(Helpers + "struct M : torch::nn::Module {\n"
                            "torch::Tensor forward(torch::Tensor x) {\n"
                            "return mask(2) + x; } };\n"),
            V{"nodevice 1 returned by mask to forward"});
  // A return that may be the input's; a local changed after the call
  // (assigned, or passed by non-const reference); a virtual helper.
  EXPECT_EQ(sites(Helpers + "struct M : torch::nn::Module {\n"
                            "virtual torch::Tensor v() { return "
                            "torch::ones({2}); }\n"
                            "torch::Tensor forward(torch::Tensor x) {\n"
                            "auto a = mask(2); a = a.to(x.device());\n"
                            "auto b = mask(2); move(b, x.device());\n"
                            "return x * a + either(x, true) + x * b + v(); } "
                            "};\n"),
            V{});
}

TEST(HardcodedDevice, DefaultArguments) {
  EXPECT_EQ(sites("struct M : torch::nn::Module {\n"
                  "torch::Tensor sample(int n, torch::Device d = torch::kCUDA)"
                  " { return torch::randn({n}, d); }\n"
                  "torch::Tensor keep(int n, torch::Device d = torch::kCPU)"
                  " { return torch::randn({n}, d); } };\n"
                  "void f(M &m) { m.sample(1); m.sample(2); m.keep(3); }\n"),
            V{"default 2"});
}

} // namespace
