/* A CUDA driver that does nothing: bench/host_cost.py loads it in place of libcuda.so.1 to time
 * the host side of a launch (tessel's Python and C++, not the driver) on a machine without a GPU.
 * Every entry point the extension resolves succeeds; a launch only counts itself. */
typedef int CUresult;
static int ctx_token;
static int fn_token;
static long launches;
CUresult cuInit(unsigned f) { return 0; }
CUresult cuDriverGetVersion(int* v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int* n) { *n = 1; return 0; }
CUresult cuDeviceGet(int* d, int o) { *d = o; return 0; }
CUresult cuDeviceGetAttribute(int* v, int a, int d) { *v = a == 75 ? 9 : a == 76 ? 0 : a == 16 ? 132 : 1; return 0; }
CUresult cuDevicePrimaryCtxRetain(void** c, int d) { *c = &ctx_token; return 0; }
CUresult cuCtxGetCurrent(void** c) { *c = &ctx_token; return 0; }
CUresult cuCtxPushCurrent_v2(void* c) { return 0; }
CUresult cuCtxPopCurrent_v2(void** c) { return 0; }
CUresult cuModuleLoadData(void** m, const void* d) { *m = &fn_token; return 0; }
CUresult cuModuleGetFunction(void** f, void* m, const char* n) { *f = &fn_token; return 0; }
CUresult cuFuncSetAttribute(void* f, int a, int v) { return 0; }
CUresult cuLaunchKernel(void* f, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e, unsigned g, unsigned s, void* st, void** p, void** x) { ++launches; return 0; }
CUresult cuLaunchKernelEx(const void* cfg, void* f, void** p, void** x) { ++launches; return 0; }
CUresult cuGetErrorName(CUresult r, const char** s) { *s = "FAKE"; return 0; }
CUresult cuGetErrorString(CUresult r, const char** s) { *s = "fake driver"; return 0; }
long fake_launches(void) { return launches; }
