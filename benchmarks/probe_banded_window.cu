/* gpusolve-probe-banded-window: a shared-matrix pentadiagonal solve by windowed back
 * substitution, as a stand-alone kernel (no library code), measured against the device's copy.
 *
 * f and x interleaved (row i of system s at i B + s), one shared LU factorisation (random
 * diagonally dominant rows: main diagonal in [5, 6), off-diagonals in [-1, 1), as the banded
 * benchmark's). One thread a system, NT systems a block, rows in pieces of L: the tensor memory
 * accelerator copies each piece of f (NT x L, whole rows) into a ring of QM + 1 + D pieces in
 * shared memory, D pieces ahead; the forward sweep overwrites f with g in place; piece p is
 * back-substituted once g is w rows past it, from zero carries at row (p + 1) L + w. w is the
 * fewest rows for which the response of every row of every piece to those carries is at most
 * 2^-55 (a quarter of the unit roundoff), so each solution is within that times its largest
 * unknown of the exact sweep's: the program checks it on 64 systems against a host solve, with
 * their residuals. It reads f once and writes x once in whole rows of NT systems, with no scan
 * and nothing on chip but the ring: a way past the tiled kernels' pieces of 16 systems, measured
 * and dropped in docs/performance.md ("Tried and dropped: windowed back substitution of a shared
 * matrix"). On the H200 it was SM-bound: about 90 instructions a warp-row (the window's rows walked
 * again for each piece), 0.31 issued a cycle per scheduler with the coefficients through L1 (0.54
 * ms at 65536 x 1024); from constant memory (configurations h to k) 0.415 ms, then held to 8 warps
 * a SM by the ring. Kept as the starting point for another try.
 *
 * Usage: gpusolve-probe-banded-window [n [batch]] (1024, 65536); WIN_ONLY=letters runs those
 * configurations only, WIN_REPS=k times each (21; the first a warm-up). Prints ms (median), the
 * fraction of the copy's bandwidth (16 bytes an unknown) and the errors. Compute capability 9.0. */
#include <cuda.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__);                  \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static __device__ __forceinline__ unsigned sa(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
static __device__ __forceinline__ void mbar_init(unsigned long long *b) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(b)) : "memory");
}
static __device__ __forceinline__ void mbar_expect(unsigned long long *b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sa(b)), "r"(bytes)
               : "memory");
}
static __device__ __forceinline__ void mbar_wait(unsigned long long *b, unsigned parity) {
  asm volatile("{\n .reg .pred p;\n W_WAIT:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra W_WAIT;\n}" ::"r"(sa(b)),
               "r"(parity)
               : "memory");
}

extern __shared__ __align__(128) unsigned char smem[];

static __device__ __forceinline__ void tma2d(void *dst, const CUtensorMap *m, int c, int r,
                                             unsigned long long *b) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3}], [%4];" ::"r"(sa(dst)),
               "l"((unsigned long long)m), "r"(c), "r"(r), "r"(sa(b))
               : "memory");
}

#define WIN_CROWS 1024
static __constant__ double2 c_ab[WIN_CROWS], c_gd[WIN_CROWS];
static __constant__ double c_inv[WIN_CROWS];

/* NT threads (systems) a block, pieces of L rows, at most QM pieces of window, D pieces ahead.
 * Coefficient tables padded to whole pieces (zeros): fw = (a, beta) pairs, fi = 1/alpha, gd =
 * (gamma, delta) pairs. */
/* Inside WIN_K, by thread 0: piece k of f (NT systems x L rows) into its slot of the ring. */
#define WIN_ISSUE(k, NT, L)                                                                        \
  do {                                                                                             \
    const int k_ = (k);                                                                            \
    mbar_expect(&bar[k_ % S], (unsigned)(L * NT * 8));                                             \
    tma2d(&ring[k_ % S * L][0], &fm, s0, k_ *L, &bar[k_ % S]);                                     \
  } while (0)
#define WIN_K(NAME, NT, L, QM, D, MINB, CST)                                                       \
  __global__ void __launch_bounds__(NT, MINB)                                                      \
      NAME(const __grid_constant__ CUtensorMap fm, double *__restrict__ x, long ld, int n, int w,  \
           const double2 *__restrict__ fw, const double *__restrict__ fi,                          \
           const double2 *__restrict__ gd) {                                                       \
    enum { S = QM + 1 + D };                                                                       \
    unsigned long long *bar = (unsigned long long *)smem;                                          \
    double(*ring)[NT] = (double(*)[NT])(smem + 128);                                               \
    const int t = threadIdx.x;                                                                     \
    const int s0 = blockIdx.x * NT;                                                                \
    const int np = (n + L - 1) / L, Q = (w + L - 1) / L;                                           \
    if (t < S) mbar_init(&bar[t]);                                                                 \
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");                             \
    __syncthreads();                                                                               \
    if (t == 0)                                                                                    \
      for (int k = 0; k <= D && k < np; k++)                                                       \
        WIN_ISSUE(k, NT, L);                                                                       \
    double g1 = 0, g2 = 0;                                                                         \
    for (int j = 0; j < np + Q; j++) {                                                             \
      if (j > 0) {                                                                                 \
        __syncthreads();                                                                           \
        if (t == 0 && j + D < np) {                                                                \
          asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                             \
          WIN_ISSUE(j + D, NT, L);                                                                 \
        }                                                                                          \
      }                                                                                            \
      if (j < np) {                                                                                \
        const int slot = j % S;                                                                    \
        mbar_wait(&bar[slot], (unsigned)(j / S) & 1);                                              \
        double *rp = &ring[slot * L][t];                                                           \
        const double2 *cw = fw + j * L;                                                            \
        const double *ci = fi + j * L;                                                             \
        _Pragma("unroll") for (int r = 0; r < L; r++) {                                            \
          const double2 ab = (CST) ? c_ab[j * L + r] : __ldg(cw + r);                              \
          const double g =                                                                         \
              (rp[r * NT] - ab.x * g2 - ab.y * g1) * ((CST) ? c_inv[j * L + r] : __ldg(ci + r));   \
          rp[r * NT] = g;                                                                          \
          g2 = g1;                                                                                 \
          g1 = g;                                                                                  \
        }                                                                                          \
      }                                                                                            \
      const int p = j - Q;                                                                         \
      if (p >= 0) {                                                                                \
        const int e0 = (p + 1) * L + w, e = e0 < np * L ? e0 : np * L;                             \
        double x1 = 0, x2 = 0;                                                                     \
        for (int k = (e - 1) / L; k > p; k--) { /* the window: nothing stored */                   \
          const double *rp = &ring[k % S * L][t];                                                  \
          const double2 *cg = gd + k * L;                                                          \
          const int top = e - k * L; /* rows r < top of piece k */                                 \
          _Pragma("unroll") for (int r = L - 1; r >= 0; r--) {                                     \
            if (r < top) {                                                                         \
              const double2 c = (CST) ? c_gd[k * L + r] : __ldg(cg + r);                           \
              const double xv = rp[r * NT] - c.x * x1 - c.y * x2;                                  \
              x2 = x1;                                                                             \
              x1 = xv;                                                                             \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
        const double *rp = &ring[p % S * L][t];                                                    \
        const double2 *cg = gd + p * L;                                                            \
        double *xp = x + (long)p * L * ld + s0 + t;                                                \
        const int nr = n - p * L;                                                                  \
        _Pragma("unroll") for (int r = L - 1; r >= 0; r--) {                                       \
          const double2 c = (CST) ? c_gd[p * L + r] : __ldg(cg + r);                               \
          const double xv = rp[r * NT] - c.x * x1 - c.y * x2;                                      \
          x2 = x1;                                                                                 \
          x1 = xv;                                                                                 \
          if (r < nr) __stcs(xp + (long)r * ld, xv);                                               \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

WIN_K(win_a, 128, 32, 2, 1, 1, 0)
WIN_K(win_b, 64, 32, 2, 2, 2, 0)
WIN_K(win_c, 128, 16, 3, 2, 2, 0)
WIN_K(win_d, 64, 16, 3, 3, 3, 0)
WIN_K(win_e, 256, 16, 3, 1, 1, 0)
WIN_K(win_f, 128, 32, 2, 2, 1, 0)
WIN_K(win_g, 32, 32, 2, 2, 5, 0)
/* The same with the coefficients read from constant memory (up to WIN_CROWS rows): uniform
 * loads through the constant cache instead of L1. */
WIN_K(win_h, 128, 16, 3, 2, 2, 1)
WIN_K(win_i, 256, 16, 3, 1, 1, 1)
WIN_K(win_j, 64, 32, 2, 2, 2, 1)
WIN_K(win_k, 128, 32, 2, 1, 1, 1)

typedef void (*WinK)(const CUtensorMap, double *, long, int, int, const double2 *, const double *,
                     const double2 *);
typedef struct {
  const char *name;
  WinK k;
  int nt, L, qm, d;
} Cfg;

static double urand(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1024;
  const long B = argc > 2 ? atol(argv[2]) : 65536;
  const double tau = ldexp(1.0, -55);
  /* a shared random diagonally dominant penta matrix, factored (a, beta, 1/alpha, gamma, delta) */
  double *A[5], *F[5];
  for (int q = 0; q < 5; q++) {
    A[q] = (double *)calloc(n, sizeof(double));
    F[q] = (double *)calloc(n, sizeof(double));
  }
  unsigned long long seed = 12345;
  for (int i = 0; i < n; i++) {
    for (int q = 0; q < 5; q++)
      A[q][i] = q == 2 ? 5 + urand(&seed) : 2 * urand(&seed) - 1;
  }
  A[0][0] = A[0][1] = A[1][0] = 0;
  A[3][n - 1] = A[4][n - 1] = A[4][n - 2] = 0;
  for (int i = 0; i < n; i++) {
    const double a = A[0][i], gm2 = i >= 2 ? F[3][i - 2] : 0, dm2 = i >= 2 ? F[4][i - 2] : 0;
    const double be = A[1][i] - a * gm2;
    const double gm1 = i >= 1 ? F[3][i - 1] : 0, dm1 = i >= 1 ? F[4][i - 1] : 0;
    const double al = A[2][i] - a * dm2 - be * gm1;
    F[0][i] = a;
    F[1][i] = be;
    F[2][i] = 1 / al;
    F[3][i] = (A[3][i] - be * dm1) / al;
    F[4][i] = A[4][i] / al;
  }
  /* the window: smallest w with |response of x_i to (x_e, x_e+1)|_1 <= tau for every piece */
  int wmax[2] = {0, 0};
  const int Ls[2] = {16, 32};
  for (int li = 0; li < 2; li++) {
    const int L = Ls[li];
    for (int b = L; b < n; b += L) {
      int w = 0;
      for (;; w++) {
        const int e = b + w;
        if (e >= n) break;
        double r1[2] = {1, 0}, r2[2] = {0, 1}, worst = 0; /* responses of x_{i+1}, x_{i+2} */
        for (int i = e - 1; i >= b - L; i--) {
          double r0[2] = {-F[3][i] * r1[0] - F[4][i] * r2[0], -F[3][i] * r1[1] - F[4][i] * r2[1]};
          r2[0] = r1[0];
          r2[1] = r1[1];
          r1[0] = r0[0];
          r1[1] = r0[1];
          if (i < b) {
            const double nr = fabs(r0[0]) + fabs(r0[1]);
            if (nr > worst) worst = nr;
          }
        }
        if (worst <= tau) break;
      }
      if (w > wmax[li]) wmax[li] = w;
    }
    printf("L = %d: window w = %d rows\n", L, wmax[li]);
  }
  /* data */
  const size_t N = (size_t)n * B;
  double *hf = (double *)malloc(N * sizeof(double)), *hx = (double *)malloc(N * sizeof(double));
  for (size_t k = 0; k < N; k++)
    hf[k] = 2 * urand(&seed) - 1;
  double *df, *dx, *cbuf, *cbuf2;
  CK(cudaMalloc(&df, N * sizeof(double)));
  CK(cudaMalloc(&dx, N * sizeof(double)));
  CK(cudaMemcpy(df, hf, N * sizeof(double), cudaMemcpyHostToDevice));
  const int npad = (n + 63) / 64 * 64;
  double *hw = (double *)calloc(2 * npad, sizeof(double)),
         *hi = (double *)calloc(npad, sizeof(double)),
         *hg = (double *)calloc(2 * npad, sizeof(double));
  for (int i = 0; i < n; i++) {
    hw[2 * i] = F[0][i];
    hw[2 * i + 1] = F[1][i];
    hi[i] = F[2][i];
    hg[2 * i] = F[3][i];
    hg[2 * i + 1] = F[4][i];
  }
  double2 *dw, *dg;
  double *di;
  CK(cudaMalloc(&dw, 2 * npad * sizeof(double)));
  CK(cudaMalloc(&dg, 2 * npad * sizeof(double)));
  CK(cudaMalloc(&di, npad * sizeof(double)));
  CK(cudaMemcpy(dw, hw, 2 * npad * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dg, hg, 2 * npad * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(di, hi, npad * sizeof(double), cudaMemcpyHostToDevice));
  const int cst = npad <= WIN_CROWS; /* the constant-memory kernels apply */
  if (cst) {
    CK(cudaMemcpyToSymbol(c_ab, hw, 2 * npad * sizeof(double)));
    CK(cudaMemcpyToSymbol(c_gd, hg, 2 * npad * sizeof(double)));
    CK(cudaMemcpyToSymbol(c_inv, hi, npad * sizeof(double)));
  }
  typedef CUresult (*Enc)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                          const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                          const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                          CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void *encp = NULL;
  cudaDriverEntryPointQueryResult qr = cudaDriverEntryPointSymbolNotFound;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &encp, 12000, cudaEnableDefault,
                                      &qr));
  if (qr != cudaDriverEntryPointSuccess || !encp) {
    fprintf(stderr, "no cuTensorMapEncodeTiled\n");
    return 1;
  }
  Enc enc = (Enc)encp;
  /* copy bandwidth: buffers of half the floor's bytes */
  const size_t half = N * sizeof(double);
  CK(cudaMalloc(&cbuf, half));
  CK(cudaMalloc(&cbuf2, half));
  CK(cudaMemset(cbuf, 0, half));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  double tm[40];
  int reps = getenv("WIN_REPS") ? atoi(getenv("WIN_REPS")) : 21;
  if (reps < 2) reps = 2;
  if (reps > 40) reps = 40;
  for (int r = 0; r < 21; r++) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpyAsync(cbuf2, cbuf, half, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    tm[r] = ms;
  }
  qsort(tm + 1, 20, sizeof(double), cmpd);
  const double copy_bw = 2.0 * half / (tm[10] * 1e-3);
  const double floor_ms = 2.0 * half / copy_bw * 1e3;
  printf("copy %.1f GB/s; floor (16 B an unknown) %.4f ms\n", copy_bw / 1e9, floor_ms);
  /* reference solutions of a few systems */
  const int nchk = 64;
  long chk[64];
  for (int c = 0; c < nchk; c++)
    chk[c] = (long)(urand(&seed) * B);
  chk[0] = 0;
  chk[1] = B - 1;
  Cfg cfgs[] = {{"a nt128 L32 D1", win_a, 128, 32, 2, 1},
                {"b nt64 L32 D2", win_b, 64, 32, 2, 2},
                {"c nt128 L16 D2", win_c, 128, 16, 3, 2},
                {"d nt64 L16 D3", win_d, 64, 16, 3, 3},
                {"e nt256 L16 D1", win_e, 256, 16, 3, 1},
                {"f nt128 L32 D2", win_f, 128, 32, 2, 2},
                {"g nt32 L32 D2", win_g, 32, 32, 2, 2},
                {"h nt128 L16 D2 const", win_h, 128, 16, 3, 2},
                {"i nt256 L16 D1 const", win_i, 256, 16, 3, 1},
                {"j nt64 L32 D2 const", win_j, 64, 32, 2, 2},
                {"k nt128 L32 D1 const", win_k, 128, 32, 2, 1}};
  const char *only = getenv("WIN_ONLY");
  for (unsigned ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
    Cfg c = cfgs[ci];
    const int w = wmax[c.L == 32];
    if (only && !strchr(only, c.name[0])) continue;
    CUtensorMap fm;
    {
      const cuuint64_t dim[2] = {(cuuint64_t)B, (cuuint64_t)n}, stride[1] = {(cuuint64_t)B * 8};
      const cuuint32_t box[2] = {(cuuint32_t)c.nt, (cuuint32_t)c.L}, es[2] = {1, 1};
      if (enc(&fm, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 2, df, dim, stride, box, es,
              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
              CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
        printf("%s: no tensor map\n", c.name);
        continue;
      }
    }
    if ((w + c.L - 1) / c.L > c.qm || B % c.nt || (strstr(c.name, "const") && !cst)) {
      printf("%s: skipped (w %d)\n", c.name, w);
      continue;
    }
    const size_t sm = 128 + (size_t)(c.qm + 1 + c.d) * c.L * c.nt * sizeof(double);
    CK(cudaFuncSetAttribute(c.k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, c.k, c.nt, sm));
    CK(cudaMemset(dx, 0, N * sizeof(double)));
    for (int r = 0; r < reps; r++) {
      CK(cudaEventRecord(e0));
      c.k<<<(unsigned)(B / c.nt), c.nt, sm>>>(fm, dx, B, n, w, dw, di, dg);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      tm[r] = ms;
    }
    qsort(tm + 1, reps - 1, sizeof(double), cmpd);
    CK(cudaMemcpy(hx, dx, N * sizeof(double), cudaMemcpyDeviceToHost));
    /* exact sweeps of the checked systems, compared normwise; residuals */
    double errmax = 0, resmax = 0;
    double *g = (double *)malloc(n * sizeof(double)), *xe = (double *)malloc(n * sizeof(double));
    for (int cc = 0; cc < nchk; cc++) {
      const long s = chk[cc];
      for (int i = 0; i < n; i++) {
        const double g2 = i >= 2 ? g[i - 2] : 0, g1 = i >= 1 ? g[i - 1] : 0;
        g[i] = (hf[(size_t)i * B + s] - F[0][i] * g2 - F[1][i] * g1) * F[2][i];
      }
      for (int i = n - 1; i >= 0; i--) {
        const double x1 = i + 1 < n ? xe[i + 1] : 0, x2 = i + 2 < n ? xe[i + 2] : 0;
        xe[i] = g[i] - F[3][i] * x1 - F[4][i] * x2;
      }
      double xn = 0, dmax = 0, fn = 0, rn = 0;
      for (int i = 0; i < n; i++) {
        xn = fmax(xn, fabs(xe[i]));
        dmax = fmax(dmax, fabs(xe[i] - hx[(size_t)i * B + s]));
        double r = hf[(size_t)i * B + s];
        for (int q = 0; q < 5; q++) {
          const int col = i + q - 2;
          if (col >= 0 && col < n) r -= A[q][i] * hx[(size_t)col * B + s];
        }
        rn += r * r;
        fn += hf[(size_t)i * B + s] * hf[(size_t)i * B + s];
      }
      errmax = fmax(errmax, dmax / xn);
      resmax = fmax(resmax, sqrt(rn / fn));
    }
    free(g);
    free(xe);
    printf("%s: w %d, %d blocks/SM, smem %zu B: %.4f ms (min %.4f), %.1f %% of copy; "
           "max |x - x_exact| / |x|inf %.2e, max residual %.2e\n",
           c.name, w, nb, sm, tm[1 + (reps - 1) / 2], tm[1],
           100 * floor_ms / tm[1 + (reps - 1) / 2], errmax, resmax);
  }
  return 0;
}
