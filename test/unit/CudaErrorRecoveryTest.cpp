//===--- CudaErrorRecoveryTest.cpp - handlers that outlive a CUDA error ---===//

#include "torchtidy/analysis/CudaErrorRecovery.h"
#include "ASTFixture.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

const clang::CXXTryStmt *firstTry(clang::ASTUnit &AST) {
  auto Found =
      match(cxxTryStmt(isExpansionInMainFile()).bind("t"), AST.getASTContext());
  return Found.empty() ? nullptr
                       : Found.front().getNodeAs<clang::CXXTryStmt>("t");
}

/// What each handler of the snippet's first try catches.
std::vector<CaughtErrors> caught(const std::string &Handlers) {
  auto AST = parse("void f() { try { } " + Handlers + " }\n");
  const clang::CXXTryStmt *Try = firstTry(*AST);
  std::vector<CaughtErrors> Out;
  for (unsigned I = 0; Try && I < Try->getNumHandlers(); ++I)
    Out.push_back(classifyCatch(Try, I, AST->getASTContext()));
  return Out;
}

using C = CaughtErrors;

TEST(CudaErrorRecovery, ClassifyCatch) {
  EXPECT_EQ(caught("catch (...) {}"), std::vector<C>{C::LibTorch});
  EXPECT_EQ(caught("catch (const std::exception &) {}"),
            std::vector<C>{C::LibTorch});
  EXPECT_EQ(caught("catch (c10::Error &) {}"), std::vector<C>{C::LibTorch});
  EXPECT_EQ(caught("catch (const c10::CUDAError &) {}"),
            std::vector<C>{C::LibTorch});
  EXPECT_EQ(caught("catch (const c10::OutOfMemoryError &) {}"),
            std::vector<C>{C::OutOfMemory});
  EXPECT_EQ(caught("catch (const c10::IndexError &) {}"),
            std::vector<C>{C::None});
  EXPECT_EQ(caught("catch (const std::runtime_error &) {}"),
            std::vector<C>{C::OtherStd});
  EXPECT_EQ(caught("catch (int) {}"), std::vector<C>{C::None});
  // An earlier handler of LibTorch's errors leaves none for the later ones.
  EXPECT_EQ(caught("catch (const c10::OutOfMemoryError &) {} "
                   "catch (const c10::Error &) {} catch (...) {}"),
            (std::vector<C>{C::OutOfMemory, C::LibTorch, C::None}));
}

/// How the first handler of the snippet's `f` ends, and whether it
/// recognises out-of-memory.
std::pair<HandlerExit, bool> handler(const std::string &Body,
                                     const std::string &Fn = "void f()") {
  auto AST =
      parse(Fn + " { try { } catch (const c10::Error &e) { " + Body + " } }\n");
  const clang::CXXTryStmt *Try = firstTry(*AST);
  auto Fns = match(functionDecl(isDefinition(), isExpansionInMainFile(),
                                hasDescendant(cxxTryStmt()))
                       .bind("f"),
                   AST->getASTContext());
  const auto *FD = Fns.front().getNodeAs<clang::FunctionDecl>("f");
  return {classifyHandlerExit(Try->getHandler(0), FD),
          recognisesOutOfMemory(Try->getHandler(0))};
}

TEST(CudaErrorRecovery, HandlerExit) {
  EXPECT_EQ(handler("").first, HandlerExit::CarriesOn);
  EXPECT_EQ(handler("throw;").first, HandlerExit::Propagates);
  EXPECT_EQ(
      handler("if (e.msg().empty()) throw std::runtime_error(\"x\");").first,
      HandlerExit::Propagates);
  EXPECT_EQ(handler("std::abort();").first, HandlerExit::EndsProgram);
  EXPECT_EQ(handler("return 1;", "int main()").first, HandlerExit::EndsProgram);
  EXPECT_EQ(handler("return 1;", "int g()").first, HandlerExit::CarriesOn);
  // Falling off the end of main after printing returns from main.
  EXPECT_EQ(handler("std::puts(e.what());", "int main()").first,
            HandlerExit::EndsProgram);
  EXPECT_EQ(handler("std::puts(e.what());", "void g()").first,
            HandlerExit::CarriesOn);
  // ...but not after the user's code, or a tensor, in the handler.
  EXPECT_EQ(handler("g();", "void g(); int main()").first,
            HandlerExit::CarriesOn);
  EXPECT_EQ(handler("auto t = torch::zeros({1});", "int main()").first,
            HandlerExit::CarriesOn);
}

/// How the first handler of \p Main (a whole main) ends.
HandlerExit handlerOfMain(const std::string &Main) {
  auto AST = parse(Main);
  const clang::CXXTryStmt *Try = firstTry(*AST);
  auto Fns = match(functionDecl(isDefinition(), isMain()).bind("f"),
                   AST->getASTContext());
  return classifyHandlerExit(Try->getHandler(0),
                             Fns.front().getNodeAs<clang::FunctionDecl>("f"));
}

TEST(CudaErrorRecovery, HandlerAtTheEndOfMain) {
  const char *Catch =
      "try { } catch (const c10::Error &e) { std::puts(\"x\"); }";
  // Only printing and returns to the end of main, through ifs, compounds
  // and outer try blocks and handlers.
  EXPECT_EQ(handlerOfMain(std::string("int main() { ") + Catch +
                          " std::puts(\"bye\"); return 0; }"),
            HandlerExit::EndsProgram);
  EXPECT_EQ(handlerOfMain(std::string("int main(int n, char **) { if (n) { ") +
                          Catch +
                          " } else { std::puts(\"cpu\"); } return 0; }"),
            HandlerExit::EndsProgram);
  EXPECT_EQ(handlerOfMain(std::string("int main() { try { ") + Catch +
                          " } catch (...) { } }"),
            HandlerExit::EndsProgram);
  // Anything that may use the GPU again keeps it carrying on.
  EXPECT_EQ(handlerOfMain(std::string("int main() { ") + Catch +
                          " auto t = torch::ones({1}); }"),
            HandlerExit::CarriesOn);
  EXPECT_EQ(handlerOfMain(std::string("void run(); int main() { ") + Catch +
                          " run(); }"),
            HandlerExit::CarriesOn);
  EXPECT_EQ(handlerOfMain(std::string("int main() { while (true) { ") + Catch +
                          " } }"),
            HandlerExit::CarriesOn);
  EXPECT_EQ(handlerOfMain(std::string("int main() { ") + Catch +
                          " c10::cuda::CUDACachingAllocator::emptyCache(); }"),
            HandlerExit::CarriesOn);
}

TEST(CudaErrorRecovery, OutOfMemory) {
  EXPECT_FALSE(handler("").second);
  EXPECT_TRUE(handler("if (std::string(e.what()).find(\"CUDA Out Of Memory\") "
                      "!= std::string::npos) return;")
                  .second);
  EXPECT_TRUE(
      handler("if (dynamic_cast<const c10::OutOfMemoryError *>(&e)) return;")
          .second);
}

/// The CUDA device evidence of the initialiser of `probe`.
bool cudaDevice(const std::string &Prelude, const std::string &E) {
  auto AST = parse(Prelude +
                   "\nvoid f(torch::Device param, bool gpu) {\n"
                   "auto probe = " +
                   E + ";\n}\n");
  auto Found = match(varDecl(hasName("probe")).bind("v"), AST->getASTContext());
  const auto *V = Found.front().getNodeAs<clang::VarDecl>("v");
  return cudaDeviceEvidence(V->getInit(), llvm::cast<clang::FunctionDecl>(
                                              V->getDeclContext())) != nullptr;
}

TEST(CudaErrorRecovery, DeviceEvidence) {
  EXPECT_TRUE(cudaDevice("", "torch::Device(torch::kCUDA, 0)"));
  EXPECT_TRUE(cudaDevice("", "gpu ? torch::Device(torch::kCPU) : "
                             "(torch::cuda::is_available() ? "
                             "torch::Device(torch::kCUDA) : "
                             "torch::Device(torch::kCPU))"));
  EXPECT_TRUE(cudaDevice("torch::Device pick() { return "
                         "torch::cuda::is_available() ? torch::kCUDA : "
                         "torch::kCPU; }",
                         "gpu ? pick() : torch::Device(torch::kCPU)"));
  EXPECT_FALSE(cudaDevice("", "torch::Device(torch::kCPU)"));
  EXPECT_FALSE(cudaDevice("", "param"));
  EXPECT_FALSE(cudaDevice("torch::Device pick();", "pick()"));
  // The other side of a choice with the CPU, even when opaque.
  EXPECT_TRUE(cudaDevice("torch::Device pick();",
                         "gpu ? pick() : torch::Device(torch::kCPU)"));
  EXPECT_FALSE(cudaDevice("", "gpu ? torch::kCPU : torch::Device(\"cpu\")"));
}

/// "kind line" of each finding of the snippet.
std::vector<std::string> sites(const std::string &Code, unsigned Depth = 4) {
  auto AST = parse(Code);
  auto &Ctx = AST->getASTContext();
  std::vector<std::string> Out;
  for (const CudaErrorRecoverySite &S : findCudaErrorRecovery(Ctx, Depth))
    Out.push_back(std::string(S.K == CudaErrorRecoverySite::CarriesOn
                                  ? "carries-on"
                                  : "handler-work") +
                  " " +
                  std::to_string(Ctx.getSourceManager().getPresumedLineNumber(
                                     S.Handler->getBeginLoc()) -
                                 1) +
                  (S.Work.K == CudaEvidence::ModuleCall ? " module" : " op") +
                  " chain=" + std::to_string(S.Work.Chain.size()));
  return Out;
}

using V = std::vector<std::string>;

TEST(CudaErrorRecovery, ModuleMovedToCuda) {
  const std::string Code =
      "struct NetImpl : torch::nn::Module {\n"
      "torch::Tensor forward(torch::Tensor x) { return x; } };\n"
      "TORCH_MODULE(Net);\n"
      "torch::Tensor run(Net &n, torch::Tensor x) { return n->forward(x); }\n"
      "void serve(Net &n, torch::Tensor x) {\n"
      "try { run(n, x); } catch (const std::exception &e) { }\n"
      "try { auto y = x + 1; } catch (...) { } }\n"
      "void setup(Net &n) { torch::Device d = torch::kCPU;\n"
      "if (torch::cuda::is_available()) d = torch::kCUDA;\n"
      "n->to(d); }\n";
  EXPECT_EQ(sites(Code), V{"carries-on 6 module chain=0"});
}

// A method of an object constructed with a CUDA device works on the device
// member its constructor keeps: through `this` calls too, and only for
// that object; a member that a method assigns, or a device the constructor
// does not keep, is no evidence.
TEST(CudaErrorRecovery, ObjectConstructedWithCudaDevice) {
  const std::string Code =
      "struct W { explicit W(torch::Device d, int n) : dev(d), n(n) {}\n"
      "void step() { run(); }\n"
      "void run() { auto y = torch::zeros({n}, torch::TensorOptions()"
      ".device(dev)); }\n"
      "torch::Device dev; int n; };\n"
      "struct R { explicit R(torch::Device d) : dev(d) {}\n"
      "void cpu() { dev = torch::kCPU; }\n"
      "void run(torch::Tensor x) { x.to(dev); }\n"
      "torch::Device dev; };\n"
      "void f(torch::Tensor x, torch::Device p) {\n"
      "W gpu(torch::Device(torch::kCUDA), 1);\n"
      "try { gpu.step(); } catch (...) { }\n"
      "W cpu(torch::Device(torch::kCPU), 1);\n"
      "try { cpu.step(); } catch (...) { }\n"
      "W param(p, 1);\n"
      "try { param.step(); } catch (...) { }\n"
      "R r{torch::Device(torch::kCUDA)};\n"
      "try { r.run(x); } catch (...) { } }\n";
  EXPECT_EQ(sites(Code), V{"carries-on 11 op chain=2"});
  auto AST = parse(Code);
  std::vector<CudaErrorRecoverySite> Found =
      findCudaErrorRecovery(AST->getASTContext(), 4);
  ASSERT_EQ(Found.size(), 1U);
  const CudaOp &Op = Found.front().Work.Operation;
  ASSERT_TRUE(Op.ReceivedMember && Op.ReceivedAt);
  EXPECT_EQ(Op.ReceivedMember->getName(), "dev");
  EXPECT_EQ(Op.ReceivedAt, Op.DeviceAt); // the argument is the CUDA device
}

TEST(CudaErrorRecovery, Findings) {
  const std::string Code =
      "extern \"C\" int cudaDeviceSynchronize();\n"
      "void leaf(torch::Tensor x) { x.cuda(); }\n"
      "void mid(torch::Tensor x) { leaf(x); }\n"
      "void f(torch::Tensor x) {\n"
      "try { mid(x); } catch (...) { }\n"
      "try { cudaDeviceSynchronize(); }\n"
      "catch (const std::runtime_error &e) { }\n"
      "try { x.cuda(); } catch (const c10::Error &e) {\n"
      "c10::cuda::CUDACachingAllocator::emptyCache(); throw; } }\n";
  EXPECT_EQ(sites(Code),
            (V{"carries-on 5 op chain=2", "carries-on 7 op chain=0",
               "handler-work 8 op chain=0"}));
  // Two calls deep is beyond MaxCallDepth 1.
  EXPECT_EQ(sites(Code, 1),
            (V{"carries-on 7 op chain=0", "handler-work 8 op chain=0"}));
}

} // namespace
