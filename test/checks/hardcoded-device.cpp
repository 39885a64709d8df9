// RUN: %check_clang_tidy %s libtorch-hardcoded-device %t -- -- %mock_torch

#include <torch/torch.h>

namespace nn = torch::nn;

//===--- A fixed device in a module's member functions ---------------------===//

// The full message once; the rest of the file matches its start.
struct Cuda : nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    auto y = x.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'cuda' moves a tensor to the current CUDA device (cuda:0 unless a guard says otherwise) in 'Cuda::forward': when the module is moved to another device (module->to(device)) or replicated by data_parallel, its inputs and parameters are elsewhere and ops on this tensor throw "Expected all tensors to be on the same device"; take the input's device: x.device() [libtorch-hardcoded-device]
    // CHECK-FIXES: auto y = x.to(x.device());
    return y;
  }
};

// Every spelling of a fixed device; the fix-it names the input's device.
struct Spellings : nn::Module {
  torch::Tensor forward(const torch::Tensor &input) {
    auto a = input.to(torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'to' moves a tensor to a fixed device ('torch::kCUDA') in 'Spellings::forward'
    // CHECK-FIXES: auto a = input.to(input.device());
    auto b = input.to(torch::Device("cuda:0"));
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'to' moves a tensor to a fixed device ('torch::Device("cuda:0")')
    // CHECK-FIXES: auto b = input.to(input.device());
    auto c = torch::zeros({4}, torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'zeros' creates a tensor on a fixed device ('torch::kCUDA') in 'Spellings::forward'
    // CHECK-FIXES: auto c = torch::zeros({4}, input.device());
    auto d = torch::ones({4}, torch::TensorOptions().dtype(torch::kFloat).device(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'ones' creates a tensor on a fixed device ('torch::kCUDA')
    // CHECK-FIXES: auto d = torch::ones({4}, torch::TensorOptions().dtype(torch::kFloat).device(input.device()));
    auto e = input.to(torch::Device(torch::kCUDA, 1));
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'to' moves a tensor to a fixed device ('torch::Device(torch::kCUDA, 1)')
    // CHECK-FIXES: auto e = input.to(input.device());
    torch::Device gpu = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
    auto f = torch::randn({4}, gpu);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'randn' creates a tensor on a fixed device ('gpu' when CUDA is available)
    // CHECK-FIXES: auto f = torch::randn({4}, input.device());
    return a + b + c + d + e + f;
  }
};

// A device index literal, whatever the device type.
struct Index : nn::Module {
  explicit Index(torch::DeviceType type) : type_(type) {}
  torch::Tensor forward(torch::Tensor x) {
    return x.to(torch::Device(type_, 0));
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'to' moves a tensor to a device with a fixed index ('torch::Device(type_, 0)') in 'Index::forward'
    // CHECK-FIXES: return x.to(x.device());
  }
  torch::DeviceType type_;
};

// Global and static devices are the process's, not the module's.
torch::Device g_device(torch::kCPU);
struct Globals : nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    static torch::Device cached(torch::kCUDA);
    auto a = x.to(g_device);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'to' moves a tensor to the process-wide device 'g_device' (a global or static variable) in 'Globals::forward'
    // CHECK-FIXES: auto a = x.to(x.device());
    auto b = x.to(cached);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'to' moves a tensor to the process-wide device 'cached' (a global or static variable)
    // CHECK-FIXES: auto b = x.to(x.device());
    return a + b;
  }
};

// A device member that the class only ever sets to a fixed device.
struct Member : nn::Module {
  Member() : w_(register_parameter("w", torch::randn({4}))) {}
  torch::Tensor scale(int64_t n) {
    return torch::ones({n}, device_) * w_;
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'ones' creates a tensor on 'device_', a device member only ever set to a fixed device in 'Member::scale': {{.*}}; take the device of an input or a parameter instead (x.device())
  }
  torch::Device device_{torch::kCUDA};
  torch::Tensor w_;
};

// The constructor: create on the CPU and register; the fix-it drops the
// device of a tensor registered at once.
struct Built : nn::Module {
  Built() {
    pe_ = register_buffer("pe", torch::zeros({16}).cuda());
    // CHECK-MESSAGES: :[[@LINE-1]]:52: warning: 'cuda' moves a tensor to the current CUDA device (cuda:0 unless a guard says otherwise) in 'Built::Built', where the module is built: this fails on a machine without that device, and module->to(device) moves only registered tensors, so the module's tensors end up on two devices; create it on the CPU and register it (register_buffer / register_parameter): module->to(device) moves it
    // CHECK-FIXES: pe_ = register_buffer("pe", torch::zeros({16}));
    w_ = register_parameter("w", torch::randn({4, 4}, torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'randn' creates a tensor on a fixed device ('torch::kCUDA') in 'Built::Built', where the module is built
    // CHECK-FIXES: w_ = register_parameter("w", torch::randn({4, 4}));
    cache_ = torch::empty({4}, torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'empty' creates a tensor on a fixed device ('torch::kCUDA') in 'Built::Built', where the module is built
    // CHECK-FIXES: cache_ = torch::empty({4}, torch::kCUDA);
  }
  torch::Tensor pe_, w_, cache_;
};

// The same in a constructor's initializers, and inside a lambda of the
// constructor.
struct BuiltInInitializers : nn::Module {
  BuiltInInitializers()
      : pe_(register_buffer("pe", torch::zeros({16}).cuda())) {
    // CHECK-MESSAGES: :[[@LINE-1]]:54: warning: 'cuda' moves a tensor to the current CUDA device (cuda:0 unless a guard says otherwise) in 'BuiltInInitializers::BuiltInInitializers', where the module is built
    // CHECK-FIXES: : pe_(register_buffer("pe", torch::zeros({16}))) {
    auto make = [this] {
      w_ = register_parameter("w", torch::randn({4}, torch::kCUDA));
      // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'randn' creates a tensor on a fixed device ('torch::kCUDA') in 'BuiltInInitializers::BuiltInInitializers', where the module is built
      // CHECK-FIXES: w_ = register_parameter("w", torch::randn({4}));
    };
    make();
  }
  torch::Tensor pe_, w_;
};

struct Reset : nn::Cloneable<Reset> {
  Reset() { reset(); }
  void reset() override {
    w_ = register_parameter("w", torch::randn({4}).to(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:52: warning: 'to' moves a tensor to a fixed device ('torch::kCUDA') in 'Reset::reset', where the module is built
    // CHECK-FIXES: w_ = register_parameter("w", torch::randn({4}));
  }
  torch::Tensor w_;
};

// Any member function, and a lambda written in one.
struct Sampler : nn::Module {
  torch::Tensor sample(int64_t n) {
    auto noise = [&] { return torch::randn({n}, torch::Device("cuda")); };
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'randn' creates a tensor on a fixed device ('torch::Device("cuda")') in 'Sampler::sample'
    return noise();
  }
};

//===--- A factory without a device in forward meets the module's tensors ---===//

struct Positions : nn::Module {
  Positions() : fc(register_module("fc", nn::Linear(4, 4))) {}
  torch::Tensor forward(torch::Tensor x) {
    auto a = torch::zeros({4}) + x;
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'zeros' creates a tensor on the CPU (no device given) in 'Positions::forward', and '+' combines it with 'x', which is on the module's device: once the module is moved to CUDA this throws "Expected all tensors to be on the same device"; create it on the device of the input: x.device() [libtorch-hardcoded-device]
    // CHECK-FIXES: auto a = torch::zeros({4}, x.device()) + x;
    auto mask = torch::ones({4, 4}).triu(1);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'ones' creates a tensor on the CPU (no device given) in 'Positions::forward', and 'masked_fill' combines it with 'a', which is on the module's device
    // CHECK-FIXES: auto mask = torch::ones({4, 4}, a.device()).triu(1);
    auto b = a.masked_fill(mask, 0);
    auto c = torch::cat({b, torch::arange(4, torch::kLong)});
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'arange' creates a tensor on the CPU (no device given) in 'Positions::forward', and 'cat' combines it with 'b'
    // CHECK-FIXES: auto c = torch::cat({b, torch::arange(4, b.options().dtype(torch::kLong))});
    auto d = fc(torch::randn({2, 4}));
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'randn' creates a tensor on the CPU (no device given) in 'Positions::forward', and it is passed to 'fc', whose parameters are on the module's device
    // CHECK-FIXES: auto d = fc(torch::randn({2, 4}, x.device()));
    return c + d + weight_ * torch::full({4}, 2.0, torch::TensorOptions().dtype(torch::kFloat));
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'full' creates a tensor on the CPU (no device given) in 'Positions::forward', and '*' combines it with 'weight_'
    // CHECK-FIXES: return c + d + weight_ * torch::full({4}, 2.0, torch::TensorOptions().dtype(torch::kFloat).device(x.device()));
  }
  nn::Linear fc{nullptr};
  torch::Tensor weight_;
};

// A device named by a string the module keeps (`TensorOptions(name)`): a
// device is given, whatever the name says.
struct NamedDevice : nn::Module {
  NamedDevice(std::string device) : device_(std::move(device)) {
    fc = register_module("fc", nn::Linear(4, 4));
  }
  torch::Tensor forward(torch::Tensor x) {
    return fc(x) + torch::arange(4, torch::TensorOptions(device_));
  }
  nn::Linear fc{nullptr};
  std::string device_;
};

// In a function that forward calls: the chain is in the notes.
torch::Tensor add_bias(const torch::Tensor &h) { return h + torch::ones({4}); }
// CHECK-MESSAGES: :[[@LINE-1]]:61: warning: 'ones' creates a tensor on the CPU (no device given) in 'add_bias', and '+' combines it with 'h'
// CHECK-FIXES: torch::Tensor add_bias(const torch::Tensor &h) { return h + torch::ones({4}, h.device()); }
struct Helper : nn::Module {
  torch::Tensor forward(torch::Tensor x) { return add_bias(x); }
};

// Through a custom autograd function: Function<T>::apply(x) runs the
// user's T::forward(ctx, x), whose tensor parameters are the module's.
struct ScaleFn : torch::autograd::Function<ScaleFn> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor x) {
    return x * torch::rand({4});
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'rand' creates a tensor on the CPU (no device given) in 'ScaleFn::forward', and '*' combines it with 'x'
    // CHECK-FIXES: return x * torch::rand({4}, x.device());
  }
};
struct ShiftFn : torch::autograd::Function<ShiftFn> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               torch::Tensor x) {
    return x + torch::ones({4}, x.options());
  }
};
struct Scaled : nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    return ShiftFn::apply(ScaleFn::apply(x));
  }
};

// Another method of a built module (not forward, not construction): its
// members, and what its submodules return, are on the module's device, as
// forward's inputs are; the method's own tensor arguments may come from
// anywhere.
struct Recent : nn::Module {
  Recent() {
    items = register_module("items", nn::Embedding(10, 4));
    positions = register_module("positions", nn::Embedding(8, 4));
    scale_ = register_buffer("scale", torch::ones({4}));
  }
  torch::Tensor history(int64_t n) {
    auto pos = torch::arange(n, torch::kLong);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'arange' creates a tensor on the CPU (no device given) in 'Recent::history', and it is passed to 'positions', whose parameters are on the module's device: once the module is moved to CUDA this throws "Expected all tensors to be on the same device"; create it on the device of the module [libtorch-hardcoded-device]
    return positions(pos) * scale_;
    // CHECK-MESSAGES: :[[@LINE-1]]:12: note: it meets 'positions' here
  }
  torch::Tensor sample() { return draw(); }
  torch::Tensor draw() {
    return torch::rand({4}) * scale_;
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'rand' creates a tensor on the CPU (no device given) in 'Recent::draw', and '*' combines it with 'scale_', which is on the module's device: once the module is moved to CUDA this throws "Expected all tensors to be on the same device"; create it on the device of the module [libtorch-hardcoded-device]
    // CHECK-MESSAGES: :[[@LINE-4]]:35: note: 'Recent::sample' calls 'Recent::draw' here
  }
  torch::Tensor score(torch::Tensor ids) {
    return items(ids) + torch::zeros({4});
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'zeros' creates a tensor on the CPU (no device given) in 'Recent::score', and '+' combines it with 'items(ids)', which is on the module's device: {{.*}}; create it on the device of the module [libtorch-hardcoded-device]
  }
  torch::Tensor shifted(torch::Tensor x) {
    return x + torch::ones({4});           // an argument, not the module's
  }
  nn::Embedding items{nullptr}, positions{nullptr};
  torch::Tensor scale_;
};

// A factory in a helper whose every return is its tensor: the value meets
// the module's tensor in the caller, and the helper has no device to take.
torch::Tensor causal_mask(int64_t n) {
  auto mask = torch::ones({n, n}, torch::kBool);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'ones' creates a tensor on the CPU (no device given) in 'causal_mask', which returns it to 'Returned::forward', and 'masked_fill' combines it with 'x', which is on the module's device: once the module is moved to CUDA this throws "Expected all tensors to be on the same device"; pass 'causal_mask' the device of the input and create it there [libtorch-hardcoded-device]
  return mask.triu(1);
}
torch::Tensor like(const torch::Tensor &x, int64_t n, bool odd) {
  if (odd)
    return torch::ones({n}, x.options());
  return torch::ones({n});
}
torch::Tensor on(int64_t n, torch::Device d) { return torch::ones({n}, d); }
void keep_on(torch::Tensor &t, const torch::Tensor &x) { t = t.to(x.device()); }
struct Returned : nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    auto mask = causal_mask(x.size(1));
    // CHECK-MESSAGES: :[[@LINE-1]]:17: note: 'causal_mask' returns it here
    auto y = x.masked_fill(mask, 0);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: note: it meets 'x' here
    // Not reported: a helper that may return its input's device, one given
    // a device, a local moved to the input's device after the call or
    // passed to a function that may move it.
    auto a = like(x, 4, false);
    auto b = on(4, x.device());
    auto c = causal_mask(4);
    c = c.to(x.device());
    auto d = causal_mask(4);
    keep_on(d, x);
    return y + a + b + x.masked_fill(c, 1) + x.masked_fill(d, 2);
  }
};

// Every return a factory's, the call itself the operand.
torch::Tensor offsets(int64_t n, bool odd) {
  if (odd)
    return torch::arange(n) * 2 + 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'arange' creates a tensor on the CPU (no device given) in 'offsets', which returns it to 'Offsets::forward', and '+' combines it with 'x'
  return torch::arange(n, torch::kLong);
}
struct Offsets : nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x + offsets(x.size(0), true); }
  // CHECK-MESSAGES: :[[@LINE-1]]:55: note: 'offsets' returns it here
  // CHECK-MESSAGES: :[[@LINE-2]]:53: note: it meets 'x' here
};

// max and min of two tensors combine them; of one, they reduce it.
torch::Tensor upper(int64_t n) { return torch::ones({n, n}).triu(1); }
// CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'ones' creates a tensor on the CPU (no device given) in 'upper', which returns it to 'Extremes::forward', and 'max' combines it with 'x', which is on the module's device
struct Extremes : nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    auto hi = torch::max(x, upper(x.size(0)));
    // CHECK-MESSAGES: :[[@LINE-1]]:29: note: 'upper' returns it here
    // CHECK-MESSAGES: :[[@LINE-2]]:15: note: it meets 'x' here
    auto lo = x.min(torch::zeros({4}));
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'zeros' creates a tensor on the CPU (no device given) in 'Extremes::forward', and 'min' combines it with 'x', which is on the module's device
    // CHECK-FIXES: auto lo = x.min(torch::zeros({4}, x.device()));
    auto top = torch::ones({4}).max();
    return hi + lo * top;
  }
};

// A virtual helper: an override may return another tensor.
struct Masked : nn::Module {
  virtual torch::Tensor mask(int64_t n) { return torch::ones({n}); }
  torch::Tensor forward(torch::Tensor x) { return x * mask(x.size(0)); }
};

//===--- A call leaves out a device parameter's fixed default ---------------===//

struct Diffusion : nn::Module {
  virtual torch::Tensor sample(int n, torch::Device device = torch::Device(torch::kCUDA, 0)) = 0;
  // CHECK-MESSAGES: :[[@LINE-1]]:62: warning: the default argument of 'device' in 'Diffusion::sample' is a fixed device ('torch::Device(torch::kCUDA, 0)'): a call that leaves it out puts tensors there whatever device the module was moved to ("Expected all tensors to be on the same device"); pass the module's device at each call, or give the parameter no default [libtorch-hardcoded-device]
};
void train(std::shared_ptr<Diffusion> model) { model->sample(4); }

//===--- Not fixed, or not a module: no warnings below. ---------------------===//

struct FromInputs : nn::Module {
  explicit FromInputs(torch::Device device) : device_(device) {
    w_ = register_parameter("w", torch::randn({4}));
    b_ = register_buffer("b", torch::zeros({4}));
    // Construction: the module is on the CPU, with all its tensors.
    auto init = torch::ones({4}) + w_;
  }
  torch::Tensor forward(torch::Tensor x) {
    auto a = torch::zeros({4}, x.device()) + x;        // the input's device
    auto b = torch::ones({4}, x.options()) * w_;       // its options
    auto c = torch::rand({4}, w_.device()) + b_;       // a parameter's
    auto d = torch::zeros({4}, b_.options()) + x;      // a buffer's
    auto e = torch::zeros({4}, device_) + x;           // set from the constructor
    auto f = torch::zeros_like(x) + torch::ones({4}).to(x.device());
    auto g = torch::scalar_tensor(2.0) * x;            // a 0-dim CPU tensor
    auto h = torch::zeros({}) + x + torch::tensor(3.0);
    auto unused = torch::zeros({4});                   // never meets x
    auto both = torch::zeros({4}) + torch::ones({4});  // CPU with CPU
    return (a + b + c + d + e + f + g + h).to(torch::kCPU); // for output
  }
  torch::Tensor predict(torch::Tensor x) { return forward(x).argmax(1).cpu(); }
  torch::Tensor with(torch::Tensor x, torch::Device device) {
    return x.to(device);                               // a parameter
  }
  torch::Device device_;
  torch::Tensor w_, b_;
};

// A method the constructor or reset() calls runs while the module is built,
// on the CPU; a static member function has no module.
struct Initialised : nn::Module {
  Initialised() {
    w_ = register_parameter("w", torch::randn({4}));
    init_weights();
  }
  void reset_bias() { b_ = torch::zeros({4}) + w_; }
  void reset() { reset_bias(); }
  void init_weights() { w_.copy_(torch::ones({4}) * w_); }
  static torch::Tensor make(torch::Tensor w) { return torch::ones({4}) + w; }
  torch::Tensor w_, b_;
};

// A device member set from outside: a constructor argument or a setter.
struct Settable : nn::Module {
  Settable() = default;
  void set_device(torch::Device d) { device_ = d; }
  torch::Tensor forward(torch::Tensor x) { return x.to(device_); }
  torch::Device device_{torch::kCUDA};
};

// A constructor defined in another translation unit may set the member.
struct Elsewhere : nn::Module {
  Elsewhere(int n);
  torch::Tensor forward(torch::Tensor x) { return x.to(device_); }
  torch::Device device_{torch::kCUDA};
};

// CPU devices, and constants of the CPU.
const torch::Device kHost(torch::kCPU);
struct Cpu : nn::Module {
  torch::Tensor forward(torch::Tensor x) {
    auto a = x.to(kHost).cpu().to(torch::Device("cpu"));
    return a.to(torch::kCPU);
  }
};

// Kernel registrations name a dispatch key, not a tensor's device.
torch::Tensor mul_cuda(const torch::Tensor &a, const torch::Tensor &b);
struct Ops : nn::Module {
  static void registerKernels(torch::Library &m) {
    m.impl("mul", torch::kCUDA, &mul_cuda);
    m.impl("mul", c10::DeviceType::CUDA, &mul_cuda);
  }
};
void registerAll(torch::Library &m) { m.impl("mul", torch::kCUDA, &mul_cuda); }

// Outside a module: where to run is the program's choice.
torch::Tensor toGpu(torch::Tensor x) { return x.to(torch::kCUDA) + torch::zeros({4}); }
void run(std::shared_ptr<FromInputs> net) {
  net->to(torch::kCUDA);
  auto out = net->forward(torch::randn({4}).cuda());
}

// A fixed default that every call passes, and one outside a module.
struct Passed : nn::Module {
  torch::Tensor sample(int n, torch::Device device = torch::kCUDA) {
    return torch::randn({n}, device);
  }
};
torch::Tensor sampleOutside(int n, torch::Device device = torch::kCUDA);
void callers(Passed &p, torch::Device d) {
  p.sample(4, d);
  sampleOutside(4);
}
