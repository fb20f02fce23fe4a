/* gpusolve-probe-banded-pattern: how fast a GPU moves the bytes of a batched banded solve in the
 * access patterns of the SCAN kernels (banded.cu), with no arithmetic but a sum.
 *
 * f and x are interleaved, n rows of B systems (row r of system s at r ld + s). A block of NT
 * threads holds W = NT / P systems, thread t = k W + s owning chunk k (L = n / P rows) of system s,
 * as the scan does: each row of f and x a block touches is a piece of W values (8 W bytes), 512 KB
 * from the next row at B = 65536. Each thread loads its L values of f and of NA arrays in the
 * scan's own layout (a block's chunk row j: NT consecutive values), adds them and stores x. The
 * bytes are (2 + NA) 8 per unknown, the solve's floor for NA factor arrays (5 penta, 3 tri).
 * Printed: ms (median of 15 calls), GB/s and the fraction of a 2 GiB device copy's bandwidth.
 * Blocks per SM can be capped with unused dynamic shared memory (the real kernels' residency).
 * Results quoted in banded.cu (GS_SCAN_PAIR_*) and docs/performance.md were measured with it,
 * the cluster cases too ("Thread block clusters: tried and dropped"). Needs compute capability
 * 9.0 for the cluster cases. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#define PR_CK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "probe: CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__);      \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

/* Clusters of C blocks (thread block clusters, compute capability 9.0), blocks of consecutive
 * systems in one cluster. PR_LOCK: each block as above, the cluster's blocks meeting at a cluster
 * barrier before their loads and before their stores, so that the C pieces of a row are asked
 * for together. PR_DSMEM: the cluster's C W systems move in pieces of C W values: block q loads
 * rows [q n / C, (q + 1) n / C) of all of them and stores each value into the shared memory of
 * the block that owns its system (distributed shared memory); after a cluster barrier each thread
 * reads its chunk from its own block's memory, adds, writes x back there, and after another block
 * q stores its rows of x for all C W systems, read from the owners' memory. */
static __device__ __forceinline__ void pr_cluster_sync(void) {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;"
               :
               :
               : "memory");
}
static __device__ __forceinline__ unsigned pr_cluster_rank(void) {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
static __device__ __forceinline__ unsigned pr_cluster_size(void) {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}
/* Address of shared-memory word p in block `rank` of the cluster. */
static __device__ __forceinline__ unsigned pr_mapa(const void *p, unsigned rank) {
  unsigned a = (unsigned)__cvta_generic_to_shared(p), r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
  return r;
}
static __device__ __forceinline__ void pr_st_cluster(unsigned a, double v) {
  asm volatile("st.shared::cluster.f64 [%0], %1;" ::"r"(a), "d"(v) : "memory");
}
static __device__ __forceinline__ double pr_ld_cluster(unsigned a) {
  double v;
  asm volatile("ld.shared::cluster.f64 %0, [%1];" : "=d"(v) : "r"(a) : "memory");
  return v;
}
/* The block's NA factor arrays (the scan's layout: row j of thread t at j NT + t) added into v. */
#define PR_ADD_FACTORS(L, NA, NT, v)                                                               \
  _Pragma("unroll") for (int q_ = 0; q_ < (NA); q_++) {                                            \
    const double *ap_ = fa + q_ * fstride + (long)blockIdx.x * (L) * (NT) + t;                     \
    _Pragma("unroll") for (int j_ = 0; j_ < (L); j_++)(v)[j_] += ap_[(long)j_ * (NT)];             \
  }
/* NAME: the kernel; LOCK: the cluster's blocks meet at a cluster barrier before their loads and
 * before their stores (PR_LOCK below). */
#define PR_KERNEL_AS(NAME, L, NA, NT, LOCK)                                                        \
  static __global__ void __launch_bounds__(NT)                                                     \
      NAME(const double *__restrict__ f, double *__restrict__ x, const double *__restrict__ fa,    \
           long ld, int n, int B, long fstride) {                                                  \
    const int P = n / (L), W = (NT) / P;                                                           \
    const int t = (int)threadIdx.x, s = t % W, k = t / W;                                          \
    const long sys = (long)blockIdx.x * W + s;                                                     \
    if (!(LOCK) && sys >= B) return; /* (LOCK: launched for whole blocks only) */                  \
    double v[L];                                                                                   \
    const double *fp = f + (long)k * (L)*ld + sys;                                                 \
    if (LOCK) pr_cluster_sync();                                                                   \
    _Pragma("unroll") for (int j = 0; j < (L); j++) v[j] = __ldcs(fp + (long)j * ld);              \
    PR_ADD_FACTORS(L, NA, NT, v)                                                                   \
    if (LOCK) pr_cluster_sync();                                                                   \
    double *xp = x + (long)k * (L)*ld + sys;                                                       \
    _Pragma("unroll") for (int j = 0; j < (L); j++) __stcs(xp + (long)j * ld, v[j]);               \
  }
#define PR_KERNEL(L, NA, NT) PR_KERNEL_AS(pr_scan_##L##_##NA##_##NT, L, NA, NT, 0)
#define PR_LOCK(L, NA, NT) PR_KERNEL_AS(pr_lock_##L##_##NA##_##NT, L, NA, NT, 1)
PR_KERNEL(16, 0, 256)
PR_KERNEL(32, 0, 256)
PR_KERNEL(32, 0, 512)
PR_KERNEL(32, 0, 1024)
PR_KERNEL(16, 5, 256)
PR_KERNEL(16, 3, 256)
PR_KERNEL(16, 5, 512)
PR_KERNEL(16, 3, 512)
PR_KERNEL(16, 5, 1024)
PR_KERNEL(16, 3, 1024)

typedef void (*PrKernel)(const double *, double *, const double *, long, int, int, long);

/* Slot of row r of system s (of W) in a block's buffer: chunks of L rows W values apart, padded
 * by W values so that a warp's 8 chunks fall on distinct banks. */
#define PR_SLOT(r, s, L, W) (((r) / (L)) * ((L) * (W) + (W)) + ((r) % (L)) * (W) + (s))
#define PR_DSMEM(L, NA, NT)                                                                        \
  static __global__ void __launch_bounds__(NT) pr_dsmem_##L##_##NA##_##NT(                         \
      const double *__restrict__ f, double *__restrict__ x, const double *__restrict__ fa,         \
      long ld, int n, int B, long fstride) {                                                       \
    extern __shared__ double sb[];                                                                 \
    const int P = n / (L), W = (NT) / P;                                                           \
    const int t = (int)threadIdx.x, s = t % W, k = t / W;                                          \
    const int C = (int)pr_cluster_size(), q = (int)pr_cluster_rank(), CW = C * W;                  \
    const long cbase = (long)(blockIdx.x / C) * CW;                                                \
    const int rb = q * (n / C);                                                                    \
    double v[L];                                                                                   \
    _Pragma("unroll") for (int j = 0; j < (L); j++) {                                              \
      const int e = j * (NT) + t, r = rb + e / CW, c = e % CW;                                     \
      v[j] = __ldcs(f + (long)r * ld + cbase + c);                                                 \
    }                                                                                              \
    _Pragma("unroll") for (int j = 0; j < (L); j++) {                                              \
      const int e = j * (NT) + t, r = rb + e / CW, c = e % CW;                                     \
      pr_st_cluster(pr_mapa(sb + PR_SLOT(r, c % W, L, W), (unsigned)(c / W)), v[j]);               \
    }                                                                                              \
    pr_cluster_sync();                                                                             \
    _Pragma("unroll") for (int j = 0; j < (L); j++) v[j] = sb[PR_SLOT(k * (L) + j, s, L, W)];      \
    PR_ADD_FACTORS(L, NA, NT, v)                                                                   \
    _Pragma("unroll") for (int j = 0; j < (L); j++) sb[PR_SLOT(k * (L) + j, s, L, W)] = v[j];      \
    pr_cluster_sync();                                                                             \
    _Pragma("unroll") for (int j = 0; j < (L); j++) {                                              \
      const int e = j * (NT) + t, r = rb + e / CW, c = e % CW;                                     \
      v[j] = pr_ld_cluster(pr_mapa(sb + PR_SLOT(r, c % W, L, W), (unsigned)(c / W)));              \
    }                                                                                              \
    _Pragma("unroll") for (int j = 0; j < (L); j++) {                                              \
      const int e = j * (NT) + t, r = rb + e / CW, c = e % CW;                                     \
      __stcs(x + (long)r * ld + cbase + c, v[j]);                                                  \
    }                                                                                              \
    pr_cluster_sync(); /* the other blocks have read this block's x */                             \
  }
PR_LOCK(16, 0, 256)
PR_LOCK(16, 5, 256)
PR_LOCK(16, 3, 256)
PR_DSMEM(16, 0, 256)
PR_DSMEM(16, 5, 256)
PR_DSMEM(16, 3, 256)

static __global__ void pr_copy(const double2 *__restrict__ a, double2 *__restrict__ b, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    b[i] = a[i];
}

static int cmp_float(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

#define PR_REPS 15
typedef struct {
  PrKernel k;
  int L, na, nt, pad, smem_kb;
  const char *what;
  int cluster; /* blocks a cluster (0: no cluster launch) */
} PrCase;

int main(void) {
  const int n = 1024, B = 65536;
  const long ldmax = B + 64, fsz = (long)n * ldmax, fstride = (long)n * B + 4096;
  double *f = NULL, *x = NULL, *fa = NULL;
  PR_CK(cudaMalloc((void **)&f, (size_t)fsz * 8));
  PR_CK(cudaMalloc((void **)&x, (size_t)fsz * 8));
  PR_CK(cudaMalloc((void **)&fa, (size_t)(5 * fstride) * 8));
  PR_CK(cudaMemset(f, 0, (size_t)fsz * 8));
  PR_CK(cudaMemset(fa, 0, (size_t)(5 * fstride) * 8));
  cudaEvent_t e0, e1;
  PR_CK(cudaEventCreate(&e0));
  PR_CK(cudaEventCreate(&e1));
  float t[PR_REPS], ms = 0;
  /* the ceiling: a device copy of 2 GiB (1 GiB read, 1 GiB written) */
  const long cn = (1L << 30) / 16;
  for (int r = -1; r < PR_REPS; r++) {
    PR_CK(cudaEventRecord(e0, 0));
    pr_copy<<<132 * 16, 256>>>((const double2 *)fa, (double2 *)(fa + 2 * cn), cn);
    PR_CK(cudaEventRecord(e1, 0));
    PR_CK(cudaEventSynchronize(e1));
    PR_CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 0) t[r] = ms;
  }
  qsort(t, PR_REPS, sizeof t[0], cmp_float);
  const double copy = 2.0 * (double)(1L << 30) / (t[PR_REPS / 2] * 1e-3) / 1e9;
  printf("device copy, 2 GiB: %.3f ms, %.0f GB/s\n", t[PR_REPS / 2], copy);
  const PrCase cases[] = {
      {pr_scan_16_0_256, 16, 0, 256, 0, 0, "f and x", 0},
      {pr_scan_32_0_256, 32, 0, 256, 0, 0, "f and x", 0},
      {pr_scan_32_0_512, 32, 0, 512, 0, 0, "f and x", 0},
      {pr_scan_32_0_1024, 32, 0, 1024, 0, 0, "f and x", 0},
      {pr_scan_16_0_256, 16, 0, 256, 32, 0, "f and x, ld padded", 0},
      {pr_scan_32_0_512, 32, 0, 512, 32, 0, "f and x, ld padded", 0},
      {pr_scan_16_5_256, 16, 5, 256, 0, 0, "penta scan", 0},
      {pr_scan_16_3_256, 16, 3, 256, 0, 0, "tri scan", 0},
      {pr_scan_16_5_256, 16, 5, 256, 32, 0, "penta scan, ld padded", 0},
      {pr_scan_16_5_512, 16, 5, 512, 0, 0, "penta, 512 threads", 0},
      {pr_scan_16_3_512, 16, 3, 512, 0, 0, "tri, 512 threads", 0},
      {pr_scan_16_5_1024, 16, 5, 1024, 0, 0, "penta, 1024 threads", 0},
      {pr_scan_16_3_1024, 16, 3, 1024, 0, 0, "tri, 1024 threads", 0},
      {pr_scan_16_5_256, 16, 5, 256, 0, 150, "penta, 1 block a SM", 0},
      {pr_scan_16_5_256, 16, 5, 256, 0, 100, "penta, 2 blocks a SM", 0},
      {pr_scan_16_3_256, 16, 3, 256, 0, 100, "tri, 2 blocks a SM", 0},
      {pr_lock_16_0_256, 16, 0, 256, 0, 0, "f and x, lockstep", 2},
      {pr_lock_16_0_256, 16, 0, 256, 0, 0, "f and x, lockstep", 4},
      {pr_lock_16_0_256, 16, 0, 256, 0, 0, "f and x, lockstep", 8},
      {pr_lock_16_5_256, 16, 5, 256, 0, 0, "penta, lockstep", 2},
      {pr_lock_16_5_256, 16, 5, 256, 0, 0, "penta, lockstep", 4},
      {pr_lock_16_3_256, 16, 3, 256, 0, 0, "tri, lockstep", 4},
      {pr_lock_16_5_256, 16, 5, 256, 0, 150, "penta, lockstep, 1 a SM", 4},
      {pr_dsmem_16_0_256, 16, 0, 256, 0, 0, "f and x, dsmem", 2},
      {pr_dsmem_16_0_256, 16, 0, 256, 0, 0, "f and x, dsmem", 4},
      {pr_dsmem_16_0_256, 16, 0, 256, 0, 0, "f and x, dsmem", 8},
      {pr_dsmem_16_5_256, 16, 5, 256, 0, 0, "penta, dsmem", 2},
      {pr_dsmem_16_5_256, 16, 5, 256, 0, 0, "penta, dsmem", 4},
      {pr_dsmem_16_5_256, 16, 5, 256, 0, 0, "penta, dsmem", 8},
      {pr_dsmem_16_3_256, 16, 3, 256, 0, 0, "tri, dsmem", 2},
      {pr_dsmem_16_3_256, 16, 3, 256, 0, 0, "tri, dsmem", 4},
      {pr_dsmem_16_3_256, 16, 3, 256, 0, 0, "tri, dsmem", 8},
      {pr_dsmem_16_5_256, 16, 5, 256, 0, 150, "penta, dsmem, 1 a SM", 4},
      {pr_dsmem_16_3_256, 16, 3, 256, 0, 100, "tri, dsmem, 2 a SM", 4},
  };
  const double unk = (double)n * B;
  int dev = 0, major = 0;
  PR_CK(cudaGetDevice(&dev));
  PR_CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const PrCase *p = &cases[c];
    if (p->cluster > 0 && major < 9) {
      printf("%-26s cluster %d: skipped (clusters need compute capability 9.0)\n", p->what,
             p->cluster);
      continue;
    }
    const int P = n / p->L, W = p->nt / P, blocks = (B + W - 1) / W;
    const long ld = B + p->pad;
    /* the DSMEM kernels' buffer: n W values and a pad of W per chunk */
    const size_t buf = p->k == pr_dsmem_16_0_256 || p->k == pr_dsmem_16_5_256 ||
                               p->k == pr_dsmem_16_3_256
                           ? (size_t)(n + P) * W * 8
                           : 0;
    const size_t smem = buf > (size_t)p->smem_kb * 1024 ? buf : (size_t)p->smem_kb * 1024;
    PR_CK(cudaFuncSetAttribute((const void *)p->k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               200 * 1024));
    int per_sm = 0;
    PR_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, p->k, p->nt, smem));
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3((unsigned)p->nt);
    cfg.dynamicSmemBytes = smem;
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = p->cluster > 0 ? (unsigned)p->cluster : 1;
    at[0].val.clusterDim.y = at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = p->cluster > 0 ? 1 : 0;
    for (int r = -1; r < PR_REPS; r++) {
      PR_CK(cudaEventRecord(e0, 0));
      PR_CK(cudaLaunchKernelEx(&cfg, p->k, (const double *)f, x, (const double *)fa, ld, n, B,
                               fstride));
      PR_CK(cudaEventRecord(e1, 0));
      PR_CK(cudaEventSynchronize(e1));
      PR_CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 0) t[r] = ms;
    }
    PR_CK(cudaGetLastError());
    qsort(t, PR_REPS, sizeof t[0], cmp_float);
    const double med = t[PR_REPS / 2], gbs = unk * 8.0 * (2 + p->na) / (med * 1e-3) / 1e9;
    printf("%-26s L=%2d arrays=%d threads=%4d pieces of %3d B, cluster %d, ld %ld, %d blocks a "
           "SM: %.3f ms, %.0f GB/s, %.1f%% of copy\n",
           p->what, p->L, p->na, p->nt, W * 8, p->cluster > 0 ? p->cluster : 1, ld, per_sm, med,
           gbs, 100 * gbs / copy);
  }
  printf("floors at the copy's bandwidth: penta (56 B) %.3f ms, tri (40 B) %.3f ms, f and x (16 B) "
         "%.3f ms\n",
         unk * 56 / copy / 1e6, unk * 40 / copy / 1e6, unk * 16 / copy / 1e6);
  cudaFree(f);
  cudaFree(x);
  cudaFree(fa);
  return 0;
}
