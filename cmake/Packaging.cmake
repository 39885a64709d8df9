# The Debian package: `ninja -C build deb` writes
# build/package/torch-tidy_<version>_amd64.deb (README.md, "Installing").
#
# It holds the `tools` component of this build (torch-tidy, torch-clangd, the
# plugin, docs, the man page) and the runtime shim (`torchtidy_runtime`).
# The runtime it packages is built without CUDA kernels: Debian's LibTorch
# is CPU-only and Debian has no CUDA 12/13 toolkit, so a runtime built with
# the kernels would make find_package(TorchTidy) ask every user for
# CUDAToolkit. When this build's runtime has the kernels, `deb` first builds
# the runtime alone without them (lib/runtime as its own project, in
# build/package-runtime; four files).
#
# Depends: the packages of the shared libraries the binaries link
# (dpkg-shlibdeps finds them and their versions from the binaries), and what
# the tools load or read at run time that no binary links: clang-tidy-19,
# which loads the plugin; libclang-common-19-dev, clang's own headers
# (/usr/lib/clang/19/include), which torch-tidy and torch-clangd find next to
# themselves; libtorch-dev, which the runtime's CMake package needs
# (find_dependency(Torch)). test/package/deb.test checks the list against
# the libraries the installed binaries need.

set(CPACK_PACKAGE_NAME torch-tidy)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR torch-tidy)
set(TORCHTIDY_PACKAGE_MAINTAINER "torch-tidy developers <torch-tidy@maintainers.invalid>"
  CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${TORCHTIDY_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "static analyzer for LibTorch (PyTorch C++) code, built on clang-tidy")
find_package(Python3 REQUIRED COMPONENTS Interpreter)
# What the checks find: one sentence from checks/Checks.def (tools/descriptions.py
# joins it, as --version, the pre-commit hook and the GitHub Action say it).
execute_process(
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/descriptions.py --sentence
  OUTPUT_VARIABLE TORCHTIDY_FINDS_SENTENCE OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _torchtidy_finds_result)
if(NOT _torchtidy_finds_result EQUAL 0 OR NOT TORCHTIDY_FINDS_SENTENCE)
  message(FATAL_ERROR "tools/descriptions.py --sentence failed: ${_torchtidy_finds_result}")
endif()
# The Description's first line is the summary; CPack indents these lines.
set(CPACK_PACKAGE_DESCRIPTION "torch-tidy finds the causes of 'CUDA error: an illegal memory access',
'device-side assert triggered' and 'Expected all tensors to be on the same
device' before a LibTorch program runs. ${TORCHTIDY_FINDS_SENTENCE}
.
This package has torch-tidy (clang-tidy ${LLVM_VERSION_MAJOR} with the libtorch checks),
torch-clangd (clangd ${LLVM_VERSION_MAJOR} with the checks, for editors), the checks as a
plugin for clang-tidy-${LLVM_VERSION_MAJOR} --load (/usr/lib/torch-tidy/TorchTidy.so), and the
runtime shim <torchtidy/check.h> with its CMake package TorchTidy.")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # torch-tidy_0.3.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_THREADS 0) # xz on every core
set(CPACK_OUTPUT_FILE_PREFIX ${CMAKE_BINARY_DIR}/package)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)

set(_torchtidy_depends
  "clang-tidy-${LLVM_VERSION_MAJOR}" "libclang-common-${LLVM_VERSION_MAJOR}-dev")
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};torch-tidy;tools;/")
set(_torchtidy_runtime_build "")
if(TARGET torchtidy_runtime)
  list(APPEND _torchtidy_depends libtorch-dev)
  if(TORCHTIDY_RUNTIME_CUDA)
    set(_torchtidy_runtime_build ${CMAKE_BINARY_DIR}/package-runtime)
    list(APPEND CPACK_INSTALL_CMAKE_PROJECTS
      "${_torchtidy_runtime_build};TorchTidyRuntime;torchtidy_runtime;/")
  else()
    list(APPEND CPACK_INSTALL_CMAKE_PROJECTS
      "${CMAKE_BINARY_DIR};torch-tidy;torchtidy_runtime;/")
  endif()
endif()
string(REPLACE ";" ", " CPACK_DEBIAN_PACKAGE_DEPENDS "${_torchtidy_depends}")
include(CPack)

set(_torchtidy_deb_commands)
if(_torchtidy_runtime_build)
  set(_torchtidy_runtime_args
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DTORCHTIDY_RUNTIME_CUDA=OFF
    -DTORCHTIDY_RUNTIME_TESTS=OFF
    -DTORCHTIDY_RUNTIME_BENCHMARKS=OFF
    -DBUILD_TESTING=OFF)
  if(Torch_DIR)
    list(APPEND _torchtidy_runtime_args -DTorch_DIR=${Torch_DIR})
  endif()
  list(APPEND _torchtidy_deb_commands
    COMMAND ${CMAKE_COMMAND} -S ${PROJECT_SOURCE_DIR}/lib/runtime
      -B ${_torchtidy_runtime_build} -G ${CMAKE_GENERATOR}
      ${_torchtidy_runtime_args} > ${CMAKE_BINARY_DIR}/package-runtime.log
    COMMAND ${CMAKE_COMMAND} --build ${_torchtidy_runtime_build})
endif()
add_custom_target(deb
  ${_torchtidy_deb_commands}
  COMMAND ${CMAKE_CPACK_COMMAND} --config ${CMAKE_BINARY_DIR}/CPackConfig.cmake
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMENT "Packaging ${CPACK_PACKAGE_NAME}_${PROJECT_VERSION}_amd64.deb"
  USES_TERMINAL)
foreach(_target torch-tidy TorchTidyPlugin torch-clangd torchtidy_man_page)
  if(TARGET ${_target})
    add_dependencies(deb ${_target})
  endif()
endforeach()
