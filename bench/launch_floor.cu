// The host cost of one kernel launch with nothing around it: the floor under any launcher's
// "host time per call" on this machine (tessel's compiled DSL call, tessel.gemm, torch.add).
//
//   nvcc -O2 -arch=sm_90a bench/launch_floor.cu -lcuda -o launch_floor && ./launch_floor
//
// Each sample queues 200 launches of an empty kernel (five pointer-sized parameters, like the
// elementwise kernels') behind a kernel that spins for ~10 ms, so the host never waits for the
// GPU, and divides the host's elapsed time by 200; the median of 9 samples is printed, for the
// driver's cuLaunchKernel and the runtime's cudaLaunchKernel.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void empty(float const*, float const*, float*, float*, long long) {}

template <class Launch>
double median_us(cudaStream_t stream, Launch&& launch) {
  for (int i = 0; i < 50; ++i) launch();
  std::vector<double> samples;
  for (int s = 0; s < 9; ++s) {
    cudaDeviceSynchronize();
    spin<<<1, 1, 0, stream>>>(20'000'000);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 200; ++i) launch();
    auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 200);
  }
  cudaDeviceSynchronize();
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

int main() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "launch_floor: no CUDA device\n");
    return 1;
  }
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  float* p = nullptr;
  cudaMalloc(&p, 256);
  long long n = 64;
  void* args[] = {&p, &p, &p, &p, &n};
  cudaFunction_t fn_rt;
  cudaGetFuncBySymbol(&fn_rt, reinterpret_cast<void const*>(&empty));
  auto fn = reinterpret_cast<CUfunction>(fn_rt);
  double drv = median_us(stream, [&] { cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, reinterpret_cast<CUstream>(stream), args, nullptr); });
  double rt = median_us(stream, [&] { cudaLaunchKernel(reinterpret_cast<void const*>(&empty), dim3(1), dim3(256), args, 0, stream); });
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "launch_floor: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::printf("%s: host cost per launch, median of 9 x 200: cuLaunchKernel %.2f us, cudaLaunchKernel %.2f us\n", prop.name,
              drv, rt);
  return 0;
}
