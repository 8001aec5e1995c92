"""Run-time compilation of GEMM configurations: GemmConfig -> C++ source -> NVRTC -> cubin.

The submodules config, codegen and cubin import only the standard library, because the build
runs them (through python/build_kernels.py) to generate the prebuilt kernels before the
extension module exists; this file therefore imports nothing.
"""
