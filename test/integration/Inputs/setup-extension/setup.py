# A PyTorch extension as torch.utils.cpp_extension builds it: one C++ file
# that registers an op, one CUDA file with its kernel
# (test/integration/setup-extension.test).
import os

import torch
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

here = os.path.dirname(os.path.abspath(__file__))
sources = ["csrc/ops.cpp"]
Extension = CppExtension
if torch.cuda.is_available():
    sources.append("csrc/kernels.cu")
    Extension = CUDAExtension

setup(
    name="scale_ext",
    ext_modules=[
        Extension(
            name="scale_ext._C",
            sources=sources,
            include_dirs=[os.path.join(here, "csrc", "include")],
            define_macros=[("SCALE_EXT_WITH_CUDA", "1" if torch.cuda.is_available() else "0")],
            extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O2"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
