/* gpusolve: the command-line program. One subcommand per job; options are PETSc-style
 * (-name value) and go to the library's options database, so -log_view, -options_left and
 * -gs_backend work everywhere. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gpusolve.h>

#include "bandedbench.h"
#include "cahnhilliard/cahnhilliard.h"
#include "common/apputil.h"
#include "common/output.h"
#include "hyperdiffusion/hyperdiffusion.h"
#include "sparsebench.h"
#include "vecbench.h"

/* Raise an error of the command itself on ctx, so that CLI_CALL prints it with its name. */
#define CLI_RAISE(ctx, code, ...)                                                                  \
  GsErrorRaise((ctx), (code), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* Print the library's message for a failed call and leave the subcommand with status 1. */
#define CLI_CALL(ctx, expr)                                                                        \
  do {                                                                                             \
    int cli_ierr_ = (expr);                                                                        \
    if (cli_ierr_) {                                                                               \
      fprintf(stderr, "gpusolve: %s\n", GsGetErrorMessage(ctx));                                   \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

static int wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-help") || !strcmp(argv[i], "-h")) return 1;
  return 0;
}

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: gpusolve <command> [options]\n\n"
      "commands:\n"
      "  info      version, build options, back ends, devices and their copy bandwidth\n"
      "  demo      the showcase: back ends and a vector benchmark (GPU when present)\n"
      "  bench     vector benchmarks beside the copy floor and the peers; writes JSON\n"
      "  banded    batched tri/pentadiagonal solvers: one case or a sweep, beside cuSPARSE\n"
      "  solve     a sparse linear system (Matrix Market or a Laplacian) by CG/BiCGStab/GMRES\n"
      "  spmv      sparse matrix-vector product and CG benchmarks beside the floor and cuSPARSE\n"
      "  hyperdiffusion  1D periodic hyperdiffusion (Crank-Nicolson): errors, orders, timing\n"
      "  ch        periodic Cahn-Hilliard, 1D or 2D (ADI), SBDF1/2: diagnostics as CSV\n"
      "  help      this text; 'gpusolve <command> --help' describes one command\n\n"
      "options common to all commands:\n"
      "  -gs_backend R     back end: /cpu, /gpu/cuda, /gpu/cuda:N (default: GPU if present)\n"
      "  -log_view         print the event log (calls, time, GB/s) at exit\n"
      "  -options_left     report options that were given but not used\n"
      "  -deterministic    bitwise reproducible reductions\n"
      "environment: GS_BACKEND (default back end), GS_OPTIONS (extra options)\n");
}

/* "NVIDIA H200" -> "nvidia-h200": a file-name friendly device name. */
static void slug(const char *in, char *out, size_t len) {
  size_t k = 0;
  int dash = 0;
  for (; *in && k + 1 < len; in++) {
    if (isalnum((unsigned char)*in)) {
      out[k++] = (char)tolower((unsigned char)*in);
      dash = 0;
    } else if (!dash && k) {
      out[k++] = '-';
      dash = 1;
    }
  }
  while (k && out[k - 1] == '-')
    k--;
  out[k] = 0;
}

/* A context from the command line (-gs_backend, GS_BACKEND, else the default), with its resource,
 * device and whether it computes on a GPU. Prints the error and returns 1 on failure. */
static int cli_open(int argc, char **argv, GsContext *ctx, const char **res, GsDeviceInfo *dev,
                    int *gpu) {
  GsMemType mem;
  CLI_CALL(NULL, GsInitWithArgs(argc, argv, NULL, ctx));
  CLI_CALL(*ctx, GsGetPreferredMemType(*ctx, &mem));
  CLI_CALL(*ctx, GsGetResource(*ctx, res));
  CLI_CALL(*ctx, GsGetDeviceInfo(*ctx, dev));
  *gpu = mem == GS_MEM_DEVICE;
  return 0;
}

/* The start of a subcommand: its help (returns -1: done) or an open context (0; 1 on error). */
static int cli_begin(int argc, char **argv, void (*help)(void), GsContext *ctx, const char **res,
                     GsDeviceInfo *dev, int *gpu) {
  if (wants_help(argc, argv)) {
    help();
    return -1;
  }
  return cli_open(argc, argv, ctx, res, dev, gpu) ? 1 : 0;
}

/* DIR/<suite>-<device>.json into json; prints the error and returns 1 if it does not fit. */
static int json_in_dir(char *json, size_t len, const char *dir, const char *suite, int gpu,
                       const GsDeviceInfo *dev) {
  char s[128];
  slug(gpu ? dev->name : "cpu", s, sizeof s);
  int n = snprintf(json, len, "%s/%s-%s.json", dir, suite, s);
  if (n < 0 || (size_t)n >= len) {
    fprintf(stderr, "gpusolve: -json_dir '%s' is too long\n", dir);
    return 1;
  }
  return 0;
}

static void print_device(const GsDeviceInfo *d) {
  if (d->device_id < 0) {
    printf("    %s, %d OpenMP threads\n", d->name, d->multiprocessors);
  } else {
    printf("    device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %.0f MiB\n",
           d->device_id, d->name, d->compute_major, d->compute_minor, d->multiprocessors,
           (double)d->total_memory / (1 << 30), (double)d->l2_cache / (1 << 20));
  }
}

static int cmd_info(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("usage: gpusolve info [-bw_bytes B]\n"
           "Prints the version, how the library was built, the back ends compiled in, and for\n"
           "the CPU and each GPU its description and measured copy bandwidth (read + write).\n");
    return 0;
  }
  int major, minor, patch;
  GsGetVersion(&major, &minor, &patch);
  printf("gpusolve %d.%d.%d\nbuild: %s\n\n", major, minor, patch, GsGetBuildInfo());
  GsBackendsView(stdout);
  printf("\ndevices:\n");
  int ngpu = 0;
  GsGetDeviceCount("/gpu/cuda", &ngpu);
  for (int d = -1; d < ngpu; d++) {
    char res[32];
    if (d < 0)
      snprintf(res, sizeof res, "/cpu");
    else
      snprintf(res, sizeof res, "/gpu/cuda:%d", d);
    GsContext ctx = NULL;
    CLI_CALL(NULL, GsInitWithArgs(argc, argv, res, &ctx));
    GsDeviceInfo info;
    CLI_CALL(ctx, GsGetDeviceInfo(ctx, &info));
    printf("  %s\n", res);
    print_device(&info);
    GsInt bytes = d < 0 ? (GsInt)1 << 27 : (GsInt)1 << 30;
    CLI_CALL(ctx, GsOptionsGetInt(ctx, "-bw_bytes", &bytes, NULL));
    double gbs = 0;
    CLI_CALL(ctx, GsMeasureCopyBandwidth(ctx, (size_t)bytes, 10, &gbs));
    printf("    copy bandwidth %.1f GB/s (%.0f MiB buffers, read + write counted)\n", gbs,
           (double)bytes / (1 << 20));
    CLI_CALL(ctx, GsDestroy(&ctx));
  }
  if (!ngpu) printf("  (no CUDA device visible)\n");
  return 0;
}

/* The vector benchmark on the chosen context, then peers (cuBLAS, the CPU back end). */
static int run_vec_bench(int argc, char **argv, int demo) {
  GsContext ctx = NULL;
  const char *res;
  GsDeviceInfo dev;
  int gpu;
  if (cli_open(argc, argv, &ctx, &res, &dev, &gpu)) return 1;
  GsInt n = gpu ? (GsInt)1 << 27 : (GsInt)1 << (demo ? 22 : 24);
  GsInt repeats = gpu ? 20 : 5;
  int cpu_peer = gpu, peers = 1;
  char json_dir[512] = "", json[768] = "";
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-n", &n, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-repeats", &repeats, NULL));
  GsInt cpu_n = n;
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-cpu_n", &cpu_n, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-cpu_peer", &cpu_peer, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-peers", &peers, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-json_dir", json_dir, sizeof json_dir, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-json", json, sizeof json, NULL));
  if (n <= 0 || repeats <= 0 || repeats > 100000 || cpu_n <= 0) {
    fprintf(stderr, "gpusolve: -n (%lld), -cpu_n (%lld) and -repeats (%lld) must be positive\n",
            (long long)n, (long long)cpu_n, (long long)repeats);
    GsDestroy(&ctx);
    return 1;
  }
  printf("vector benchmark on %s (%s)\n", res, dev.name);
  GsBenchReport rep = {0};
  double copy_gbps = 0, cpu_copy = 0;
  CLI_CALL(ctx, GsBenchVec(ctx, n, (int)repeats, &rep, &copy_gbps, stdout));
  if (peers) CLI_CALL(ctx, GsBenchVecPeers(ctx, n, (int)repeats, copy_gbps, &rep, stdout));
  if (gpu && cpu_peer) {
    /* The CPU back end is the peer a GPU kernel replaces: measure it in the same run. */
    GsContext cpu = NULL;
    CLI_CALL(NULL, GsInit("/cpu", &cpu));
    CLI_CALL(cpu, GsBenchVec(cpu, cpu_n, repeats > 5 ? 5 : (int)repeats, &rep, &cpu_copy, stdout));
    CLI_CALL(cpu, GsDestroy(&cpu));
  }
  printf("\n");
  GsBenchPrintTable(&rep, stdout);
  if (json_dir[0] && !json[0] && json_in_dir(json, sizeof json, json_dir, "vec", gpu, &dev)) {
    GsBenchReportFree(&rep);
    GsDestroy(&ctx);
    return 1;
  }
  if (json[0]) {
    char extra[256];
    snprintf(extra, sizeof extra, "\"cpu_peer_copy_gbytes_per_s\": %.2f", cpu_copy);
    CLI_CALL(ctx, GsBenchWriteJSON(ctx, &rep, json, "vec", &dev, res, copy_gbps, extra));
    printf("results written to %s\n", json);
  }
  GsBenchReportFree(&rep);
  CLI_CALL(ctx, GsDestroy(&ctx));
  return 0;
}

static int cmd_bench(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("usage: gpusolve bench [vec] [-n N] [-repeats R] [-json FILE | -json_dir DIR]\n"
           "                      [-cpu_peer 0|1] [-cpu_n N] [-peers 0|1]\n"
           "Times every vector operation (median of R calls, device-event timed on a GPU) and\n"
           "reports GB/s and the fraction of the copy bandwidth measured in the same run, beside\n"
           "cuBLAS and the CPU back end. -json_dir writes DIR/vec-<device>.json.\n"
           "Defaults: n = 2^27 and 20 repeats on a GPU, n = 2^24 and 5 repeats on the CPU.\n");
    return 0;
  }
  if (argc > 1 && argv[1][0] != '-' && strcmp(argv[1], "vec")) {
    fprintf(stderr, "gpusolve bench: unknown suite '%s' (available: vec)\n", argv[1]);
    return 1;
  }
  return run_vec_bench(argc, argv, 0);
}

static int cmd_banded(int argc, char **argv);
static int cmd_solve(int argc, char **argv);
static int cmd_ch(int argc, char **argv);

/* Append the -gs_backend choice of argv, if any, to a subcommand's argument list. */
static void pass_backend(int argc, char **argv, char **out, int *n) {
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "-gs_backend")) {
      out[(*n)++] = argv[i];
      out[(*n)++] = argv[i + 1];
    }
}

static int cmd_demo(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf(
        "usage: gpusolve demo [options of 'gpusolve bench']\n"
        "The showcase: lists the back ends, runs the vector benchmark (n = 2^27 on a GPU, 2^22\n"
        "on the CPU), then the batched pentadiagonal solver on 65536 systems of 1024 rows (4096\n"
        "on the CPU) beside cuSPARSE, then CG + Jacobi on a 48^3 Poisson problem and BiCGStab +\n"
        "Jacobi on sherman5 (when the test matrices are at hand), then a 256 x 256 Cahn-Hilliard\n"
        "coarsening run with PNG / VTK snapshots in gpusolve-demo/; on the GPU when one is\n"
        "present, else on the CPU.\n");
    return 0;
  }
  int major, minor, patch;
  GsGetVersion(&major, &minor, &patch);
  printf("=== gpusolve %d.%d.%d demo ===\n\n", major, minor, patch);
  GsBackendsView(stdout);
  printf("\n=== vectors ===\n");
  int rc = run_vec_bench(argc, argv, 1);
  if (rc) return rc;
  /* The batched banded solver on its headline case (65536 pentadiagonal systems of 1024 rows on a
   * GPU, 4096 on the CPU), beside cuSPARSE on a GPU; only the back-end choice is passed on. */
  printf("\n=== batched pentadiagonal solves ===\n");
  char *bargv[8] = {(char *)"banded", (char *)"-repeats", (char *)"5", NULL};
  int bargc = 3;
  pass_backend(argc, argv, bargv, &bargc);
  rc = cmd_banded(bargc, bargv);
  if (rc) return rc;
  /* Krylov: CG + Jacobi on a 3D Poisson problem, and BiCGStab + Jacobi on a shipped matrix when
   * the test collection is at hand. */
  printf("\n=== Krylov solvers ===\n");
  char *kargv[16] = {(char *)"solve",    (char *)"-laplacian",
                     (char *)"48,48,48", (char *)"-ksp_type",
                     (char *)"cg",       (char *)"-pc_type",
                     (char *)"jacobi",   (char *)"-ksp_rtol",
                     (char *)"1e-8",     NULL};
  int kargc = 9;
  pass_backend(argc, argv, kargv, &kargc);
  rc = cmd_solve(kargc, kargv);
  if (rc) return rc;
  static const char *const dirs[] = {"../shared/data/matrices", "../../shared/data/matrices",
                                     "/work/shared/data/matrices"};
  for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
    char path[512];
    snprintf(path, sizeof path, "%s/sherman5.mtx", dirs[d]);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    fclose(f);
    kargv[1] = (char *)"-A";
    kargv[2] = path;
    kargv[4] = (char *)"bicgstab";
    printf("\n");
    rc = cmd_solve(kargc, kargv);
    break;
  }
  if (rc) return rc;
  if (kargv[1][1] != 'A')
    printf("(the test matrix collection was not found beside the tree: skipping sherman5)\n");
  /* Applications: 2D Cahn-Hilliard coarsening, snapshots in gpusolve-demo/ (PNG, VTK). */
  printf("\n=== 2D Cahn-Hilliard coarsening (snapshots in gpusolve-demo/) ===\n");
  char *cargv[24] = {(char *)"ch",
                     (char *)"-n",
                     (char *)"256",
                     (char *)"-ny",
                     (char *)"256",
                     (char *)"-steps",
                     (char *)"2000",
                     (char *)"-every",
                     (char *)"500",
                     (char *)"-out",
                     (char *)"gpusolve-demo",
                     (char *)"-csv",
                     (char *)"gpusolve-demo/ch.csv",
                     NULL};
  int cargc = 13;
  pass_backend(argc, argv, cargv, &cargc);
  if (mkdir("gpusolve-demo", 0777) && errno != EEXIST) {
    fprintf(stderr, "gpusolve demo: cannot create gpusolve-demo/: %s\n", strerror(errno));
    return 1;
  }
  fflush(stdout); /* the run reports its progress on stderr */
  rc = cmd_ch(cargc, cargv);
  if (!rc)
    printf("free energy and mass every 500 steps: gpusolve-demo/ch.csv; fields: "
           "gpusolve-demo/ch_*.png, ch.pvd (ParaView)\n");
  return rc;
}

/* ---- gpusolve banded ------------------------------------------------------------------------ */

static void banded_help(void) {
  printf(
      "usage: gpusolve banded [-bands 3|5] [-n N] [-batch B] [-dtype double|float]\n"
      "                       [-layout interleaved|contiguous] [-shared 0|1] [-periodic 0|1]\n"
      "                       [-spd 0|1] [-stiff A] [-mode solve|factor_solve] [-repeats R]\n"
      "                       [-peers 0|1]\n"
      "                       [-json FILE | -json_dir DIR]\n"
      "       gpusolve banded -sweep 1 [-max_unknowns U] [-bands 3|5] [-dtype ...] [-layout ...]\n"
      "                       [-mode ...] [-repeats R] [-peers 0|1] [-json FILE | -json_dir DIR]\n"
      "       gpusolve banded -algos 1 [-max_unknowns U] [-repeats R] [-json FILE | -json_dir "
      "DIR]\n"
      "Times the batched banded solver on B random diagonally dominant systems of N rows\n"
      "(off-diagonals in [-1,1), main diagonal in [bands, bands+1)) and prints the relative\n"
      "residual ||Ax-f||/||f|| (must be < 1e-8 in double, 1e-4 in float), the median time,\n"
      "the GB/s of the bytes that must move, the copy bandwidth measured in the same run with\n"
      "buffers of that size (the floor) and the fraction of it reached. On a GPU, the cuSPARSE\n"
      "routine that solves the same systems runs beside it (-peers 0 to skip): gpsvInterleaved-\n"
      "Batch (penta, interleaved; it overwrites its diagonals, whose copy back is timed apart),\n"
      "gtsvInterleavedBatch (tri, interleaved), gtsv2StridedBatch (tri, contiguous) or\n"
      "gtsv2_nopivot (tri, shared, contiguous); none solves periodic or shared penta systems.\n"
      "\n"
      "  -bands 3|5          tridiagonal or pentadiagonal (default 5)\n"
      "  -n N -batch B       rows per system and systems (default 1024 x 65536 on a GPU,\n"
      "                      1024 x 4096 on the CPU)\n"
      "  -layout L           interleaved: entry i of system s at i*batch+s (default);\n"
      "                      contiguous: at s*n+i\n"
      "  -shared 1           one matrix for the whole batch;  -periodic 1  cyclic systems\n"
      "  -spd 1              symmetric positive definite hyperdiffusion-type matrices (rows\n"
      "                      1,-4,7,-4,1 or -1,3,-1), factored as LDL^T\n"
      "  -stiff A            stiff rows a,-4a,1+6a,-4a,a or -a,1+2a,-a (an ADI step's implicit\n"
      "                      factors; Cahn-Hilliard's a reaches 1e6) instead of random\n"
      "                      diagonally dominant ones, whose spikes decay and flatter SPIKE\n"
      "  -mode M             solve: factor once, time the solve (default);\n"
      "                      factor_solve: time factor + solve in one call (refactor each call)\n"
      "  -repeats R          timed calls, the median is reported (default 20 GPU, 5 CPU)\n"
      "  -json FILE          write the records (suite \"banded\") as JSON;\n"
      "  -json_dir DIR       the same into DIR/banded-<device>.json\n");
  printf(
      "  -sweep 1            batch in {256,1024,4096,16384,65536,262144} x n in\n"
      "                      {8,64,256,1024,4096,65536}, both band counts unless -bands is given,\n"
      "                      plus the headline cases (batch x n, interleaved): penta and tri at\n"
      "                      65536x1024 and 1024x1024, penta 1024x65536, and penta and tri\n"
      "                      shared, periodic and factor_solve at 65536x1024, penta shared\n"
      "                      periodic there, penta shared at 1024x1024, penta spd at 65536x1024,\n"
      "                      and penta and tri periodic and penta spd at 1024x1024\n"
      "  -max_unknowns U     sweep only cases with n*batch <= U (default 2^28 GPU, 2^22 CPU)\n"
      "  -algos 1            the algorithms side by side where the automatic choice moves\n"
      "                      between them (16 shapes: scan, spike and thread for systems of\n"
      "                      their own; tile, scan and spike for shared stiff ADI rows), each\n"
      "                      call deferred, no peers; records in the group \"algos\"\n"
      "                      (-json_dir: DIR/banded-algos-<device>.json)\n"
      "  -banded_algorithm A auto (default), thread (one thread per system), spike (each\n"
      "                      system in -banded_partitions P pieces), tile (shared matrix of at\n"
      "                      most 4096 rows, chunks on chip), scan (systems of at most 4096\n"
      "                      rows, periodic, LU or LDL^T, in chunks joined by their affine\n"
      "                      maps);\n"
      "                      the one used is printed as algo=\n"
      "  -banded_check deferred  calls do not wait for their status (checked once at the end):\n"
      "                      the time of the work alone, as in a loop of solves\n"
      "  -banded_partitions P  spike's partitions a system (default: from the batch)\n"
      "  -banded_view        describe the batch (layout, matrix, algorithm and why) after its\n"
      "                      first factorisation\n"
      "  -banded_tile_passes auto|one|two  tiled solves of 1025-4096 rows in one pass over f or\n"
      "                      two (the maps of the chunks between them)\n"
      "GPU execution strategies, each off|auto|on (auto, the default, takes them where they\n"
      "were measured faster; on wherever the kernel applies; off never):\n"
      "  -banded_staged      thread solves through TMA tiles in shared memory, g kept in L2 "
      "(sm_90)\n"
      "  -banded_scan_pair   scan blocks that take two groups of systems\n"
      "  -banded_scan_wide   scan blocks of 512 threads (tri; float penta LU)\n"
      "  -banded_scan_halves tri scan blocks of 512 threads sweeping the systems of 1024 threads\n"
      "                      in two halves\n"
      "  -banded_tile_image  one-pass tiled solves in double copy their shared-memory set-up\n"
      "                      from Factor's image instead of building it\n"
      "  -banded_tile_tail   periodic tiled solves (interleaved, 32-row chunks) leave the tail\n"
      "                      and the W correction to a kernel of their own\n"
      "  -banded_tile_next   wide tiled solves (interleaved, 32-row chunks, 16384 systems or\n"
      "                      more) copy the next group's f into shared memory by the TMA\n"
      "                      while they solve the present one (sm_90)\n"
      "Floors, in values per unknown (8 B each in double): solve 7 penta / 5 tri (factors, f, x;\n"
      "periodic too: E^-1 F is read only where it is above rounding), shared solve 2 (f, x),\n"
      "factor_solve 7 / 5 (diagonals, f, x).\n");
}

/* The sweep's list: headline cases first, then the grid, without repeating a case. */
static int banded_add_case(GsBenchBandedCase *list, int *count, int cap,
                           const GsBenchBandedCase *c) {
  for (int i = 0; i < *count; i++) {
    const GsBenchBandedCase *o = &list[i];
    if (o->bands == c->bands && o->n == c->n && o->batch == c->batch && o->dt == c->dt &&
        o->layout == c->layout && o->shared == c->shared && o->periodic == c->periodic &&
        o->mode == c->mode && o->spd == c->spd)
      return 0;
  }
  if (*count >= cap) return 1;
  list[(*count)++] = *c;
  return 0;
}

static int cmd_banded(int argc, char **argv) {
  GsContext ctx = NULL;
  const char *res;
  GsDeviceInfo dev;
  int gpu;
  const int begun = cli_begin(argc, argv, banded_help, &ctx, &res, &dev, &gpu);
  if (begun) return begun < 0 ? 0 : begun;
  GsInt bands = 5, n = 1024, batch = gpu ? 65536 : 4096, repeats = gpu ? 20 : 5;
  GsInt max_unknowns = gpu ? (GsInt)1 << 28 : (GsInt)1 << 22;
  int dt = GS_DOUBLE, layout = GS_BANDED_INTERLEAVED, mode = GS_BENCH_BANDED_SOLVE;
  int shared = 0, periodic = 0, spd = 0, peers = 1, sweep = 0, algos = 0, bands_set = 0;
  char json[768] = "", json_dir[512] = "";
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-bands", &bands, &bands_set));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-n", &n, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-batch", &batch, NULL));
  CLI_CALL(ctx, GsOptionsGetEnum(ctx, "-dtype", GsBenchBandedTypeNames, &dt, NULL));
  CLI_CALL(ctx, GsOptionsGetEnum(ctx, "-layout", GsBenchBandedLayoutNames, &layout, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-shared", &shared, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-periodic", &periodic, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-spd", &spd, NULL));
  double stiff = 0;
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-stiff", &stiff, NULL));
  CLI_CALL(ctx, GsOptionsGetEnum(ctx, "-mode", GsBenchBandedModeNames, &mode, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-repeats", &repeats, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-peers", &peers, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-sweep", &sweep, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-algos", &algos, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-max_unknowns", &max_unknowns, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-json", json, sizeof json, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-json_dir", json_dir, sizeof json_dir, NULL));
  /* -algos alone writes DIR/banded-algos-<device>.json, beside a sweep's banded-<device>.json. */
  if (json_dir[0] && !json[0] &&
      json_in_dir(json, sizeof json, json_dir, algos && !sweep ? "banded-algos" : "banded", gpu,
                  &dev)) {
    GsDestroy(&ctx);
    return 1;
  }
  if (bands != 3 && bands != 5) {
    fprintf(stderr, "gpusolve banded: -bands must be 3 or 5, not %lld\n", (long long)bands);
    GsDestroy(&ctx);
    return 1;
  }
  if (!(stiff >= 0 && stiff <= 1e12)) {
    fprintf(stderr, "gpusolve banded: -stiff %g must be in [0, 1e12] (0: random rows)\n", stiff);
    GsDestroy(&ctx);
    return 1;
  }
  if (n <= 0 || batch <= 0 || repeats <= 0 || repeats > 100000 || max_unknowns <= 0) {
    fprintf(stderr,
            "gpusolve banded: -n (%lld), -batch (%lld), -repeats (%lld) and -max_unknowns (%lld) "
            "must be positive\n",
            (long long)n, (long long)batch, (long long)repeats, (long long)max_unknowns);
    GsDestroy(&ctx);
    return 1;
  }

  enum { MAXCASES = 220 };
  GsBenchBandedCase cases[MAXCASES];
  const char *case_algo[MAXCASES] = {NULL}; /* -algos: the algorithm each case forces */
  int ncases = 0, skipped = 0;
  GsBenchBandedCase base = {.bands = (int)bands,
                            .n = n,
                            .batch = batch,
                            .dt = (GsDataType)dt,
                            .layout = (GsBandedLayout)layout,
                            .shared = shared,
                            .periodic = periodic,
                            .spd = spd,
                            .stiff = stiff,
                            .mode = (GsBenchBandedMode)mode,
                            .peers = peers,
                            .group = NULL};
  if (!sweep && !algos) {
    cases[ncases++] = base;
  } else if (sweep) {
    /* The headline cases (batch x n), interleaved, in the chosen type. */
    static const struct {
      int bands;
      long long batch, n;
      int shared, periodic, factor_solve, spd;
    } head[] = {
        {5, 65536, 1024, 0, 0, 0, 0}, {3, 65536, 1024, 0, 0, 0, 0}, {5, 1024, 1024, 0, 0, 0, 0},
        {3, 1024, 1024, 0, 0, 0, 0},  {5, 1024, 65536, 0, 0, 0, 0}, {5, 65536, 1024, 1, 0, 0, 0},
        {3, 65536, 1024, 1, 0, 0, 0}, {5, 65536, 1024, 0, 1, 0, 0}, {3, 65536, 1024, 0, 1, 0, 0},
        {5, 65536, 1024, 0, 0, 1, 0}, {3, 65536, 1024, 0, 0, 1, 0}, {5, 65536, 1024, 1, 1, 0, 0},
        {5, 1024, 1024, 1, 0, 0, 0},  {5, 65536, 1024, 0, 0, 0, 1}, {5, 1024, 1024, 0, 1, 0, 0},
        {3, 1024, 1024, 0, 1, 0, 0},  {5, 1024, 1024, 0, 0, 0, 1},
    };
    static const long long batches[] = {256, 1024, 4096, 16384, 65536, 262144};
    static const long long ns[] = {8, 64, 256, 1024, 4096, 65536};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) {
      GsBenchBandedCase c = base;
      c.bands = head[i].bands;
      c.batch = head[i].batch;
      c.n = head[i].n;
      c.layout = GS_BANDED_INTERLEAVED;
      c.shared = head[i].shared;
      c.periodic = head[i].periodic;
      c.spd = head[i].spd;
      c.mode = head[i].factor_solve ? GS_BENCH_BANDED_FACTOR_SOLVE : GS_BENCH_BANDED_SOLVE;
      c.group = "headline";
      if ((double)c.n * (double)c.batch > (double)max_unknowns)
        skipped++;
      else
        banded_add_case(cases, &ncases, MAXCASES, &c);
    }
    for (int b5 = 0; b5 < 2; b5++) {
      int nb = b5 ? 3 : 5;
      if (bands_set && nb != bands) continue;
      for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
          GsBenchBandedCase c = base;
          c.bands = nb;
          c.batch = batches[i];
          c.n = ns[j];
          c.shared = 0;
          c.periodic = 0;
          c.group = "sweep";
          if ((double)c.n * (double)c.batch > (double)max_unknowns)
            skipped++;
          else
            banded_add_case(cases, &ncases, MAXCASES, &c);
        }
    }
    printf("banded sweep on %s (%s): %d cases with n*batch <= %lld (%d skipped as larger), %lld "
           "repeats each\n\n",
           res, dev.name, ncases, (long long)max_unknowns, skipped, (long long)repeats);
  }
  if (algos) {
    /* The algorithms side by side where the automatic choice moves between them (batch x n,
     * interleaved unless marked, penta unless marked), each call deferred (the time of the work,
     * as in a loop of solves), no peers: per-system matrices under scan, SPIKE and one thread per
     * system; shared ones (stiff ADI rows, as Cahn-Hilliard's) under tile, scan and SPIKE. */
    static const struct {
      int bands;
      long long batch, n;
      int shared, periodic, spd, contiguous;
      double stiff;
    } shp[] = {
        {5, 1024, 1024, 0, 0, 0, 0, 0},   {3, 1024, 1024, 0, 0, 0, 0, 0},
        {5, 1024, 1024, 0, 1, 0, 0, 0},   {3, 1024, 1024, 0, 1, 0, 0, 0},
        {5, 1024, 1024, 0, 0, 1, 0, 0},   {5, 1024, 1024, 0, 0, 0, 1, 0},
        {5, 4096, 256, 0, 0, 0, 0, 0},    {5, 8192, 1024, 0, 0, 0, 0, 0},
        {5, 8192, 1024, 0, 1, 0, 0, 0},   {5, 16384, 1024, 0, 0, 0, 0, 0},
        {5, 256, 4096, 0, 0, 0, 0, 0},    {5, 1024, 4096, 0, 0, 0, 0, 0},
        {5, 1024, 1024, 1, 1, 0, 0, 1e4}, {5, 1024, 1024, 1, 1, 0, 1, 1e4},
        {5, 4096, 4096, 1, 1, 0, 0, 1e5}, {5, 4096, 4096, 1, 1, 0, 1, 1e5},
    };
    static const char *const own[] = {"scan", "spike", "thread"}, *const shd[] = {"tile", "scan",
                                                                                  "spike"};
    int na = 0;
    for (size_t i = 0; i < sizeof shp / sizeof shp[0]; i++)
      for (int q = 0; q < 3; q++) {
        GsBenchBandedCase c = base;
        c.bands = shp[i].bands;
        c.batch = shp[i].batch;
        c.n = shp[i].n;
        c.layout = shp[i].contiguous ? GS_BANDED_CONTIGUOUS : GS_BANDED_INTERLEAVED;
        c.shared = shp[i].shared;
        c.periodic = shp[i].periodic;
        c.spd = shp[i].spd;
        c.stiff = shp[i].stiff;
        c.mode = GS_BENCH_BANDED_SOLVE;
        c.peers = 0;
        c.group = "algos";
        if ((double)c.n * (double)c.batch > (double)max_unknowns) {
          skipped++;
          continue;
        }
        if (ncases >= MAXCASES) break;
        case_algo[ncases] = shp[i].shared ? shd[q] : own[q];
        cases[ncases++] = c;
        na++;
      }
    printf("banded algorithms on %s (%s): %d cases with n*batch <= %lld, deferred checks, %lld "
           "repeats each\n\n",
           res, dev.name, na, (long long)max_unknowns, (long long)repeats);
  }

  GsBenchReport rep = {0};
  double top_floor = 0, top_bytes = -1;
  for (int i = 0; i < ncases; i++) {
    int r0 = rep.nrec;
    int ierr = 0;
    if (case_algo[i]) { /* read by GsBandedCreate in the case */
      ierr = GsOptionsSetValue(ctx, "-banded_algorithm", case_algo[i]);
      if (!ierr) ierr = GsOptionsSetValue(ctx, "-banded_check", "deferred");
    }
    if (!ierr) ierr = GsBenchBanded(ctx, &cases[i], (int)repeats, &rep, stdout);
    if (ierr) {
      fprintf(stderr, "gpusolve: %s\n", GsGetErrorMessage(ctx));
      GsBenchReportFree(&rep);
      GsDestroy(&ctx);
      return 1;
    }
    /* The JSON's top-level floor: the one of the largest case (an HBM / DRAM figure). */
    if (rep.nrec > r0 && rep.rec[r0].bytes > top_bytes) {
      top_bytes = rep.rec[r0].bytes;
      top_floor = rep.rec[r0].floor_gbps;
    }
  }
  printf("\n");
  GsBenchBandedPrintTable(&rep, stdout);
  if (json[0]) {
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"banded\": {\"sweep\": %s, \"algos\": %s, \"max_unknowns\": %lld, "
             "\"floor_per_record\": true}",
             sweep ? "true" : "false", algos ? "true" : "false", (long long)max_unknowns);
    int ierr = GsBenchWriteJSON(ctx, &rep, json, "banded", &dev, res, top_floor, extra);
    if (ierr) {
      fprintf(stderr, "gpusolve: %s\n", GsGetErrorMessage(ctx));
      GsBenchReportFree(&rep);
      GsDestroy(&ctx);
      return 1;
    }
    printf("results written to %s\n", json);
  }
  GsBenchReportFree(&rep);
  CLI_CALL(ctx, GsDestroy(&ctx));
  return 0;
}

/* ---- gpusolve solve ------------------------------------------------------------------------- */

/* The matrix of -A FILE (path not NULL) or -laplacian NX,NY[,NZ] with -stencil (0: 5 in 2D, 7 in
 * 3D), and a label for it. Returns 0; 1 after a library error (printed); 2 for a bad -laplacian
 * (printed, the context destroyed). */
static int cli_matrix(GsContext ctx, const char *cmd, const char *path, const char *lap,
                      GsInt stencil, GsMat *A, char *label, size_t len) {
  if (path) {
    CLI_CALL(ctx, GsMatLoadMatrixMarket(ctx, path, A));
    const char *base = strrchr(path, '/');
    snprintf(label, len, "%.100s", base ? base + 1 : path);
    return 0;
  }
  long long d[3] = {1, 1, 1};
  int nd = sscanf(lap, "%lld,%lld,%lld", &d[0], &d[1], &d[2]);
  if (nd < 2) {
    fprintf(stderr, "gpusolve %s: -laplacian '%s': expected NX,NY or NX,NY,NZ\n", cmd, lap);
    GsDestroy(&ctx);
    return 2;
  }
  if (!stencil) stencil = nd == 2 ? 5 : 7;
  CLI_CALL(ctx, GsMatCreateLaplacian(ctx, d[0], d[1], nd == 3 ? d[2] : 1, (int)stencil, A));
  if (nd == 3)
    snprintf(label, len, "%d-point Laplacian %lldx%lldx%lld", (int)stencil, d[0], d[1], d[2]);
  else
    snprintf(label, len, "%d-point Laplacian %lldx%lld", (int)stencil, d[0], d[1]);
  return 0;
}

static void solve_help(void) {
  printf(
      "usage: gpusolve solve (-A A.mtx | -laplacian NX,NY[,NZ] [-stencil 5|7|27]) [-b b.mtx]\n"
      "                      [-x0 x.mtx] [-o x.mtx] [-ksp_type cg|bicgstab|gmres]\n"
      "                      [-pc_type none|jacobi] [-ksp_rtol R] [-ksp_atol A] [-ksp_dtol D]\n"
      "                      [-ksp_max_it N] [-ksp_min_it N] [-ksp_gmres_restart M]\n"
      "                      [-ksp_converged_use_initial_residual_norm]\n"
      "                      [-ksp_converged_use_min_initial_residual_norm]\n"
      "                      [-ksp_gmres_cgs_refinement_type refine_always|refine_ifneeded|\n"
      "                      refine_never] [-ksp_monitor]\n"
      "                      [-ksp_monitor_true_residual] [-ksp_converged_reason] [-ksp_view]\n"
      "                      [-log_view]\n"
      "Solves A x = b with a Krylov method (default gmres + jacobi, rtol 1e-5 as PETSc) and "
      "prints\n"
      "the iterations, the reason it stopped, the time and the true relative residual\n"
      "||b - A x|| / ||b||. b defaults to A * ones; x0 to zero. -laplacian builds the\n"
      "finite-difference Laplacian of an NX x NY (5-point) or NX x NY x NZ (7- or 27-point, "
      "default\n"
      "7) grid. -o writes x as a Matrix Market array. Exit status: 0 converged, 3 not converged,\n"
      "1 error.\n");
}

static int cmd_solve(int argc, char **argv) {
  GsContext ctx = NULL;
  const char *res;
  GsDeviceInfo dev;
  int gpu;
  const int begun = cli_begin(argc, argv, solve_help, &ctx, &res, &dev, &gpu);
  if (begun) return begun < 0 ? 0 : begun;
  char apath[1024] = "", bpath[1024] = "", x0path[1024] = "", opath[1024] = "", lap[128] = "";
  int set_a = 0, set_l = 0, set_b = 0, set_x0 = 0, set_o = 0;
  GsInt stencil = 0;
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-A", apath, sizeof apath, &set_a));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-laplacian", lap, sizeof lap, &set_l));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-stencil", &stencil, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-b", bpath, sizeof bpath, &set_b));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-x0", x0path, sizeof x0path, &set_x0));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-o", opath, sizeof opath, &set_o));
  if (set_a == set_l) {
    fprintf(stderr, "gpusolve solve: give exactly one of -A FILE.mtx and -laplacian NX,NY[,NZ]\n");
    GsDestroy(&ctx);
    return 2;
  }
  GsMat A = NULL;
  char what[160];
  int rc0 = cli_matrix(ctx, "solve", set_a ? apath : NULL, lap, stencil, &A, what, sizeof what);
  if (rc0) return rc0;
  GsInt m, n, nnz, lo, hi;
  double mean;
  CLI_CALL(ctx, GsMatGetSize(A, &m, &n, &nnz));
  CLI_CALL(ctx, GsMatGetRowStats(A, &lo, &hi, &mean, NULL));
  printf("matrix %s: %lld x %lld, %lld entries (%.1f per row, %lld to %lld) on %s\n", what,
         (long long)m, (long long)n, (long long)nnz, mean, (long long)lo, (long long)hi, res);
  GsVec b = NULL, x = NULL, r = NULL;
  if (set_b) {
    CLI_CALL(ctx, GsVecLoadMatrixMarket(ctx, bpath, &b));
  } else { /* b = A * ones */
    GsVec one = NULL;
    CLI_CALL(ctx, GsVecCreate(ctx, n, GS_DOUBLE, &one));
    CLI_CALL(ctx, GsVecSet(one, 1.0));
    CLI_CALL(ctx, GsVecCreate(ctx, m, GS_DOUBLE, &b));
    CLI_CALL(ctx, GsMatMult(A, 1.0, one, 0.0, b));
    GsVecDestroy(&one);
  }
  if (set_x0) {
    CLI_CALL(ctx, GsVecLoadMatrixMarket(ctx, x0path, &x));
  } else {
    CLI_CALL(ctx, GsVecCreate(ctx, n, GS_DOUBLE, &x));
    CLI_CALL(ctx, GsVecSet(x, 0.0));
  }
  GsKsp ksp = NULL;
  CLI_CALL(ctx, GsKspCreate(ctx, &ksp));
  CLI_CALL(ctx, GsKspSetOperator(ksp, A));
  if (set_x0) CLI_CALL(ctx, GsKspSetInitialGuessNonzero(ksp, 1));
  CLI_CALL(ctx, GsKspSetFromOptions(ksp));
  struct timespec t0, t1;
  CLI_CALL(ctx, GsSynchronize(ctx));
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CLI_CALL(ctx, GsKspSolve(ksp, b, x));
  CLI_CALL(ctx, GsSynchronize(ctx));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  GsInt its;
  GsConvergedReason reason;
  CLI_CALL(ctx, GsKspGetIterationNumber(ksp, &its));
  CLI_CALL(ctx, GsKspGetConvergedReason(ksp, &reason));
  double rn, bn;
  CLI_CALL(ctx, GsVecDuplicate(b, &r));
  CLI_CALL(ctx, GsMatMult(A, 1.0, x, 0.0, r));
  CLI_CALL(ctx, GsVecAXPBY(r, 1.0, -1.0, b));
  CLI_CALL(ctx, GsVecNorm(r, GS_NORM_2, &rn));
  CLI_CALL(ctx, GsVecNorm(b, GS_NORM_2, &bn));
  printf("%s after %lld iterations, %.3f s (%.3f ms per iteration); true relative residual "
         "%.3e\n",
         GsConvergedReasonName(reason), (long long)its, sec, its ? 1e3 * sec / (double)its : 0.0,
         bn > 0 ? rn / bn : rn);
  if (set_o) {
    CLI_CALL(ctx, GsVecSaveMatrixMarket(x, opath));
    printf("solution written to %s\n", opath);
  }
  GsKspDestroy(&ksp);
  GsVecDestroy(&r);
  GsVecDestroy(&b);
  GsVecDestroy(&x);
  GsMatDestroy(&A);
  CLI_CALL(ctx, GsDestroy(&ctx));
  return reason > 0 ? 0 : 3;
}

/* ---- gpusolve spmv -------------------------------------------------------------------------- */

static void spmv_help(void) {
  printf(
      "usage: gpusolve spmv (-A A.mtx | -laplacian NX,NY[,NZ] [-stencil S] | -powerlaw N |\n"
      "                     -suite 1) [-cg 1] [-forms 1] [-repeats R] [-json FILE | -json_dir "
      "DIR]\n"
      "Times y = A x (median of R calls, default 20 GPU / 5 CPU) against its floor, (12 nnz +\n"
      "20 n) bytes over the copy bandwidth measured in the same run, checks it against a\n"
      "long-double reference, and on a GPU runs cusparseSpMV (CSR_ALG1) on the same matrix and x.\n"
      "-cg 1 adds CG + Jacobi to rtol 1e-8 (b = A 1): time per iteration. -suite 1 runs the "
      "sparse\n"
      "issue's cases: 7-point 256^3, 27-point 160^3, 5-point 4096^2 and a power-law matrix\n"
      "(2^22 rows; on a GPU also 2^20 and 2^24), with CG on the 7-point one (smaller sizes on\n"
      "the CPU). -powerlaw N: N rows of power-law lengths (mean 12, exponent 1.5). -forms 1\n"
      "also times the CSR, SELL-32, merge and hybrid forms beside the automatic choice.\n"
      "-mat_spmv K forces a kernel, -mat_spmv_group G the GPU CSR kernel's threads per row,\n"
      "-mat_spmv_panels P the merge form's column panels (default: none while x takes at\n"
      "most 60%% of the GPU's L2, else enough to keep each panel's part within half of it).\n");
}

/* One case: SpMV with the automatic kernel beside cuSPARSE (and the CSR, SELL-32, merge and hybrid
 * forms when forms is set), and CG when asked. */
static int spmv_case(GsContext ctx, GsMat A, const char *name, int repeats, int cg, int forms,
                     GsBenchReport *rep) {
  CLI_CALL(ctx, GsBenchSpmv(ctx, A, name, repeats, 1, rep, stdout));
  if (cg) CLI_CALL(ctx, GsBenchCg(ctx, A, name, rep, stdout));
  static const GsMatSpMVType types[] = {GS_MAT_SPMV_CSR, GS_MAT_SPMV_SELL, GS_MAT_SPMV_MERGE,
                                        GS_MAT_SPMV_HYBRID};
  for (int k = 0; forms && k < 4; k++) {
    CLI_CALL(ctx, GsMatSetSpMVType(A, types[k], 32, 1));
    CLI_CALL(ctx, GsBenchSpmv(ctx, A, name, repeats, 0, rep, stdout));
  }
  return 0;
}

static int cmd_spmv(int argc, char **argv) {
  GsContext ctx = NULL;
  const char *res;
  GsDeviceInfo dev;
  int gpu;
  const int begun = cli_begin(argc, argv, spmv_help, &ctx, &res, &dev, &gpu);
  if (begun) return begun < 0 ? 0 : begun;
  char apath[1024] = "", lap[128] = "", json[768] = "", json_dir[512] = "";
  int set_a = 0, set_l = 0, set_p = 0, suite = 0, cg = 0, forms = 0;
  GsInt stencil = 0, repeats = gpu ? 20 : 5, npower = 0;
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-A", apath, sizeof apath, &set_a));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-laplacian", lap, sizeof lap, &set_l));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-stencil", &stencil, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-suite", &suite, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-cg", &cg, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-forms", &forms, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-powerlaw", &npower, &set_p));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-repeats", &repeats, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-json", json, sizeof json, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-json_dir", json_dir, sizeof json_dir, NULL));
  if (set_a + set_l + set_p + suite != 1 || repeats < 1) {
    fprintf(stderr, "gpusolve spmv: give one of -A FILE.mtx, -laplacian NX,NY[,NZ], -powerlaw N "
                    "and -suite 1 (and -repeats >= 1)\n");
    GsDestroy(&ctx);
    return 2;
  }
  if (json_dir[0] && !json[0] && json_in_dir(json, sizeof json, json_dir, "sparse", gpu, &dev)) {
    GsDestroy(&ctx);
    return 2;
  }
  printf("sparse benchmarks on %s (%s), %lld repeats\n\n", res, dev.name, (long long)repeats);
  GsBenchReport rep = {0};
  GsMat A = NULL;
  int rc = 0;
  if (set_a || set_l) {
    char name[160];
    rc = cli_matrix(ctx, "spmv", set_a ? apath : NULL, lap, stencil, &A, name, sizeof name);
    if (rc) return rc;
    rc = spmv_case(ctx, A, name, (int)repeats, cg, forms, &rep);
    GsMatDestroy(&A);
  } else if (set_p) {
    char name[64];
    snprintf(name, sizeof name, "power-law %lld mean 12 exponent 1.5", (long long)npower);
    CLI_CALL(ctx, GsMatCreatePowerLaw(ctx, npower, 12, 1.5, 7, &A));
    rc = spmv_case(ctx, A, name, (int)repeats, cg, forms, &rep);
    GsMatDestroy(&A);
  } else {
    const long long s7 = gpu ? 256 : 64, s27 = gpu ? 160 : 40, s5 = gpu ? 4096 : 1024;
    const GsInt npl = gpu ? (GsInt)1 << 22 : (GsInt)1 << 18;
    char name[64];
    snprintf(name, sizeof name, "7-point %lld^3", s7);
    CLI_CALL(ctx, GsMatCreateLaplacian(ctx, s7, s7, s7, 7, &A));
    rc = spmv_case(ctx, A, name, (int)repeats, 1, forms, &rep);
    GsMatDestroy(&A);
    snprintf(name, sizeof name, "27-point %lld^3", s27);
    if (!rc) CLI_CALL(ctx, GsMatCreateLaplacian(ctx, s27, s27, s27, 27, &A));
    if (!rc) rc = spmv_case(ctx, A, name, (int)repeats, 0, forms, &rep);
    GsMatDestroy(&A);
    snprintf(name, sizeof name, "5-point %lld^2", s5);
    if (!rc) CLI_CALL(ctx, GsMatCreateLaplacian(ctx, s5, s5, 1, 5, &A));
    if (!rc) rc = spmv_case(ctx, A, name, (int)repeats, 0, forms, &rep);
    GsMatDestroy(&A);
    snprintf(name, sizeof name, "power-law 2^%d mean 12 exponent 1.5", gpu ? 22 : 18);
    if (!rc) CLI_CALL(ctx, GsMatCreatePowerLaw(ctx, npl, 12, 1.5, 7, &A));
    if (!rc) rc = spmv_case(ctx, A, name, (int)repeats, 0, forms, &rep);
    GsMatDestroy(&A);
    /* On a GPU also x well inside L2 (2^20 rows) and x twice its size (2^24: column panels). */
    for (int e = 20; gpu && e <= 24 && !rc; e += 4) {
      snprintf(name, sizeof name, "power-law 2^%d mean 12 exponent 1.5", e);
      CLI_CALL(ctx, GsMatCreatePowerLaw(ctx, (GsInt)1 << e, 12, 1.5, 7, &A));
      rc = spmv_case(ctx, A, name, (int)repeats, 0, forms, &rep);
      GsMatDestroy(&A);
    }
  }
  if (!rc && json[0]) {
    char extra[128];
    snprintf(extra, sizeof extra, "\"sparse\": {\"suite\": %s}", suite ? "true" : "false");
    double top = rep.nrec ? rep.rec[0].floor_gbps : 0;
    if (GsBenchWriteJSON(ctx, &rep, json, "sparse", &dev, res, top, extra)) {
      fprintf(stderr, "gpusolve: %s\n", GsGetErrorMessage(ctx));
      rc = 1;
    } else {
      printf("\nresults written to %s\n", json);
    }
  }
  GsBenchReportFree(&rep);
  if (!rc) CLI_CALL(ctx, GsDestroy(&ctx));
  return rc;
}

/* ---- gpusolve hyperdiffusion ---------------------------------------------------------------- */

static void hyperdiffusion_help(void) {
  printf(
      "usage: gpusolve hyperdiffusion [-n N] [-dim 1|2] [-dt DT] [-T T] [-ensemble E] [-k K]\n"
      "                                [-L L] [-g G] [-float 1] [-convergence 1]\n"
      "dC/dt = -g d^4C/dx^4 on a periodic (0, L) (with -dim 2: -g lap^2 C on (0, L)^2, N x N,\n"
      "ADI with a predictor-corrector mixed term), Crank-Nicolson with centred differences,\n"
      "from C = cos(2 pi K x / L) (2D: times cos(2 pi K y / L)) in every member of an ensemble\n"
      "of E runs advanced together (1D); -float 1 computes in single precision, solving for\n"
      "each step's change, whose rounding grows with sigma = g dt / (2 dx^4) (about 1 at n 64,\n"
      "dt 1e-7; 214 at the defaults); it is refused where sigma times the float epsilon > 1e-2.\n"
      "Prints the L2 error at T against the exact solution and against the semi-discrete one,\n"
      "and the time per step. Defaults: n 256, dt 1e-7, T 1e-4, E 1, K 2, L 1, g 1 (the\n"
      "cuPentBatch seed's problem), double.\n"
      "-convergence 1: error tables in space (n = 32..256, dt = DT) and in time (n = 64,\n"
      "dt = T / 10 / 2^j, against the semi-discrete solution) with the fitted orders.\n");
}

/* Run one case from the cosine and report its errors; *e / *et get them, *sec the stepping time. */
static int hd_run(GsContext ctx, const GsHyperdiffusionDesc *d, double T, double k, double *e,
                  double *et, double *sec) {
  GsHyperdiffusion h = NULL;
  CLI_CALL(ctx, GsHyperdiffusionCreate(ctx, d, &h));
  const GsInt steps = (GsInt)llround(T / d->dt);
  const int twod = d->ny > 1;
  int ierr = twod ? GsHyperdiffusionSetCosine2D(h, 1.0, k, k)
                  : GsHyperdiffusionSetCosine(h, -1, 1.0, k, 0.0);
  if (!ierr) ierr = GsSynchronize(ctx);
  const double t0 = GsWallTime();
  if (!ierr) ierr = GsHyperdiffusionStep(h, steps);
  if (!ierr) ierr = GsSynchronize(ctx);
  *sec = GsWallTime() - t0;
  if (!ierr)
    ierr = twod ? GsHyperdiffusionCosineError2D(h, 1.0, k, k, e, et)
                : GsHyperdiffusionCosineError(h, 0, 1.0, k, 0.0, e, et);
  GsHyperdiffusionDestroy(&h);
  CLI_CALL(ctx, ierr);
  return 0;
}

static int cmd_hyperdiffusion(int argc, char **argv) {
  GsContext ctx = NULL;
  const char *res;
  GsDeviceInfo dev;
  int gpu, conv = 0;
  const int begun = cli_begin(argc, argv, hyperdiffusion_help, &ctx, &res, &dev, &gpu);
  if (begun) return begun < 0 ? 0 : begun;
  GsHyperdiffusionDesc d = {.n = 256, .ensemble = 1, .length = 1.0, .coeff = 1.0, .dt = 1e-7};
  double T = 1e-4, k = 2;
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-n", &d.n, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-ensemble", &d.ensemble, NULL));
  GsInt dim = 1;
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-dim", &dim, NULL));
  const int twod = dim == 2;
  if (dim != 1 && dim != 2) {
    fprintf(stderr, "gpusolve hyperdiffusion: -dim %lld: 1 or 2\n", (long long)dim);
    GsDestroy(&ctx);
    return 2;
  }
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-dt", &d.dt, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-L", &d.length, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-g", &d.coeff, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-T", &T, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-k", &k, NULL));
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-convergence", &conv, NULL));
  int single = 0;
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-float", &single, NULL));
  d.precision = single ? GS_FLOAT : GS_DOUBLE;
  if (!(T >= 0) || !isfinite(k)) {
    fprintf(stderr, "gpusolve hyperdiffusion: -T %g must be >= 0 and -k finite\n", T);
    GsDestroy(&ctx);
    return 2;
  }
  printf("hyperdiffusion on %s (%s), %s precision\n", res, dev.name, single ? "single" : "double");
  if (conv) {
    double hx[4], es[4], order = 0;
    printf("\nspace (dt = %g, T = %g, k = %g):\n%8s %14s %14s\n", d.dt, T, k, "n", "L2 error",
           "in time alone");
    for (int j = 0; j < 4; j++) {
      GsHyperdiffusionDesc dj = d;
      double et, sec;
      dj.n = (GsInt)32 << j;
      dj.ensemble = 1;
      dj.ny = twod ? dj.n : 0;
      if (hd_run(ctx, &dj, T, k, &es[j], &et, &sec)) return 1;
      hx[j] = d.length / (double)dj.n;
      printf("%8lld %14.4e %14.4e\n", (long long)dj.n, es[j], et);
    }
    CLI_CALL(ctx, GsConvergenceOrder(ctx, 4, hx, es, &order));
    printf("fitted order in space: %.3f\n", order);
    printf("\ntime (n = 64, T = %g, against the semi-discrete solution):\n%12s %14s\n", T, "dt",
           "L2 error");
    for (int j = 0; j < 4; j++) {
      GsHyperdiffusionDesc dj = d;
      double e, sec;
      dj.n = 64;
      dj.ensemble = 1;
      dj.ny = twod ? dj.n : 0;
      dj.dt = T / 10 / (double)(1 << j);
      if (hd_run(ctx, &dj, T, k, &e, &es[j], &sec)) return 1;
      hx[j] = dj.dt;
      printf("%12.4e %14.4e\n", dj.dt, es[j]);
    }
    CLI_CALL(ctx, GsConvergenceOrder(ctx, 4, hx, es, &order));
    printf("fitted order in time: %.3f\n", order);
  } else {
    double e, et, sec;
    if (twod) d.ny = d.n;
    if (hd_run(ctx, &d, T, k, &e, &et, &sec)) return 1;
    const GsInt steps = (GsInt)llround(T / d.dt);
    printf("n %lld%s, ensemble %lld, dt %g, %lld steps to T = %g\n", (long long)d.n,
           twod ? " x n (2D)" : "", (long long)d.ensemble, d.dt, (long long)steps, T);
    printf("L2 error %.4e against the exact solution, %.4e against the semi-discrete one\n", e, et);
    printf("%.3f s, %.3f us per step, %.2f ns per step per grid point\n", sec,
           steps ? 1e6 * sec / (double)steps : 0.0,
           steps ? 1e9 * sec / (double)steps / (double)(d.n * (twod ? d.n : d.ensemble)) : 0.0);
  }
  CLI_CALL(ctx, GsDestroy(&ctx));
  return 0;
}

/* ---- gpusolve ch ---------------------------------------------------------------------------- */

static void ch_help(void) {
  printf(
      "usage: gpusolve ch [-n N] [-ny NY] [-ensemble E] [-steps S] [-dt DT] [-D D] [-gamma G]\n"
      "                   [-L L] [-order 1|2] [-stabilize S] [-float 1] [-mean M] [-amplitude A]\n"
      "                   [-seed S] [-init FILE] [-gamma_range A,B] [-D_range A,B] [-every K]\n"
      "                   [-csv FILE] [-checkpoint FILE] [-restart FILE] [-out DIR]\n"
      "                   [-sequence FILE]\n"
      "       gpusolve ch -bench 1 [-bench_steps S] [-json FILE | -json_dir DIR]\n"
      "Periodic Cahn-Hilliard dC/dt = D lap (C^3 - C - G lap C), 1D, or 2D with -ny NY > 1 (an\n"
      "N x NY grid, ADI: periodic pentadiagonal solves along rows and, in place, columns),\n"
      "semi-implicit SBDF1 or SBDF2 (nonlinear term explicit, hyperdiffusion implicit; -stabilize\n"
      "S makes S D lap C implicit, for larger dt; -float 1 computes in single precision), from\n"
      "M + A u with u uniform in [-1, 1) (member e seeded S + e), or from a Matrix Market vector\n"
      "(-init); -gamma_range / -D_range spread G / D linearly over the members. Every K steps:\n"
      "step, time and each member's mass, free energy, min, max and domain size (from the\n"
      "structure factor) as CSV (to FILE with -csv); with -checkpoint a checkpoint (written\n"
      "atomically) that -restart continues from bit for bit; with -out (2D) DIR/ch_<step>.vti\n"
      "(ParaView series DIR/ch.pvd) and DIR/ch_<step>.png (colour bar -1 .. 1); with -sequence\n"
      "(2D) up to 6 evenly spaced snapshots side by side in one PNG. Progress on\n"
      "stderr. Defaults: n 256, NY 1, E 1, S 2000, dt 5e-4, D 1, G 0.01, L 2 pi, order 2, no\n"
      "stabilization, double, M 0, A 0.05, seed 1, K 200.\n"
      "-bench 1: time per step of 2D SBDF2 at 1024^2, 2048^2, 4096^2 (and 4096^2 in float, at\n"
      "dt / 4096, where single precision still holds) and of\n"
      "a 1D ensemble of 65536 x 1024 (smaller on the CPU) against 10 (2D) or 2 (1D) words per\n"
      "point over the copy bandwidth measured in the same run; JSON suite apps.\n");
}

/* Snapshots of a 2D run: DIR/ch_<step>.vti and .png, and DIR/ch.pvd listing the .vti files (with
 * -out DIR); a sequence of up to 6 evenly spaced snapshots side by side in one PNG (-sequence). */
#define CH_SEQ_FRAMES 6
typedef struct {
  char dir[768], seq[768]; /* "" where not asked for */
  GsInt n, ny;
  double h;
  int count, cap;
  double *t;
  char **file;
  double *field;
  GsVec c;
  int nout, nframes, stored, seen; /* outputs of the run, frames kept, kept so far, outputs seen */
  double *frames;
} ChOutput;

static int ch_output_open(GsContext ctx, ChOutput *o, const char *dir, const char *seq,
                          const GsCahnHilliardDesc *d, int nout) {
  if (d->ny <= 1 || d->ensemble != 1)
    return CLI_RAISE(ctx, GS_ERR_ARG_INCOMP,
                     "gpusolve ch: -out and -sequence write 2D fields: give -ny > 1 (and one "
                     "member)");
  if (dir[0] && mkdir(dir, 0777) && errno != EEXIST)
    return CLI_RAISE(ctx, GS_ERR_FILE_OPEN, "gpusolve ch: cannot create '%s': %s", dir,
                     strerror(errno));
  snprintf(o->dir, sizeof o->dir, "%s", dir);
  snprintf(o->seq, sizeof o->seq, "%s", seq);
  o->n = d->n;
  o->ny = d->ny;
  o->h = d->length / (double)d->n;
  o->nout = nout;
  o->nframes = seq[0] ? (nout < CH_SEQ_FRAMES ? nout : CH_SEQ_FRAMES) : 0;
  o->field = malloc((size_t)(d->n * d->ny) * sizeof *o->field);
  o->frames = malloc((size_t)(d->n * d->ny * (o->nframes + 1)) * sizeof *o->frames);
  if (!o->field || !o->frames)
    return CLI_RAISE(ctx, GS_ERR_MEMORY, "gpusolve ch: cannot allocate the output frames");
  CLI_CALL(ctx, GsVecCreate(ctx, d->n * d->ny, GS_DOUBLE, &o->c));
  return 0;
}

/* The output index of sequence frame f: evenly spaced from the first output to the last. */
static int ch_frame_output(const ChOutput *o, int f) {
  return o->nframes > 1 ? (int)lround((double)f * (o->nout - 1) / (o->nframes - 1)) : 0;
}

static int ch_output_write(GsContext ctx, ChOutput *o, GsCahnHilliard ch, GsInt step, double t) {
  char vti[1024], png[1024], pvd[1024], name[64];
  snprintf(name, sizeof name, "ch_%06lld.vti", (long long)step);
  snprintf(vti, sizeof vti, "%.767s/%s", o->dir, name);
  snprintf(png, sizeof png, "%.767s/ch_%06lld.png", o->dir, (long long)step);
  snprintf(pvd, sizeof pvd, "%.767s/ch.pvd", o->dir);
  CLI_CALL(ctx, GsCahnHilliardGetState(ch, o->c));
  CLI_CALL(ctx, GsVecGetValuesHost(o->c, o->field));
  const size_t pts = (size_t)(o->n * o->ny);
  if (o->stored < o->nframes && o->seen++ == ch_frame_output(o, o->stored))
    memcpy(o->frames + pts * (size_t)o->stored++, o->field, pts * sizeof *o->field);
  if (!o->dir[0]) return 0;
  CLI_CALL(ctx, GsAppWriteVTI(ctx, vti, o->n, o->ny, o->h, "C", o->field));
  const int pr = GsAppWritePNG(ctx, png, o->n, o->ny, o->field, -1.0, 1.0);
  if (pr == GS_ERR_UNSUPPORTED && o->count == 0)
    fprintf(stderr, "gpusolve ch: %s\n", GsGetErrorMessage(ctx));
  else if (pr)
    CLI_CALL(ctx, pr);
  if (o->count == o->cap) {
    const int cap = o->cap ? 2 * o->cap : 16;
    double *t2 = realloc(o->t, (size_t)cap * sizeof *t2);
    if (t2) o->t = t2;
    char **f2 = realloc(o->file, (size_t)cap * sizeof *f2);
    if (f2) o->file = f2;
    if (!t2 || !f2) return CLI_RAISE(ctx, GS_ERR_MEMORY, "gpusolve ch: cannot grow the series");
    o->cap = cap;
  }
  o->t[o->count] = t;
  o->file[o->count] = malloc(strlen(name) + 1);
  if (!o->file[o->count]) return CLI_RAISE(ctx, GS_ERR_MEMORY, "gpusolve ch: out of memory");
  strcpy(o->file[o->count++], name);
  CLI_CALL(ctx, GsAppWritePVD(ctx, pvd, o->count, o->t, (const char *const *)o->file));
  return 0;
}

/* The sequence PNG, once every frame of it has been seen. */
static int ch_output_finish(GsContext ctx, ChOutput *o) {
  if (!o->seq[0] || o->stored == 0) return 0;
  const double *f[CH_SEQ_FRAMES];
  for (int k = 0; k < o->stored; k++)
    f[k] = o->frames + (size_t)(o->n * o->ny) * (size_t)k;
  const int pr = GsAppWritePNGFrames(ctx, o->seq, o->stored, o->n, o->ny, f, -1.0, 1.0);
  if (pr == GS_ERR_UNSUPPORTED)
    fprintf(stderr, "gpusolve ch: %s\n", GsGetErrorMessage(ctx));
  else if (pr)
    CLI_CALL(ctx, pr);
  else
    fprintf(stderr, "%d snapshots side by side in %s\n", o->stored, o->seq);
  return 0;
}

static void ch_output_close(ChOutput *o) {
  for (int k = 0; k < o->count; k++)
    free(o->file[k]);
  free(o->file);
  free(o->t);
  free(o->field);
  free(o->frames);
  GsVecDestroy(&o->c);
}

/* Milliseconds per step in the right-hand-side stencil and in the banded solves, from `steps` more
 * steps with the event log on (each logged event waits for the device, so these steps are not the
 * timed ones). */
static int ch_breakdown(GsContext ctx, GsCahnHilliard ch, GsInt steps, double *stencil_ms,
                        double *solve_ms) {
  const char *names[2] = {"StencilApply", "BandedSolve"};
  double before[2] = {0, 0}, after[2] = {0, 0};
  GsLogEvent ev[2];
  for (int k = 0; k < 2; k++) {
    GsCall(GsLogEventRegister(ctx, names[k], &ev[k]));
    GsCall(GsLogEventGetInfo(ctx, ev[k], NULL, &before[k], NULL, NULL));
  }
  GsCall(GsLogEnable(ctx, 1));
  const int ierr = GsCahnHilliardStep(ch, steps);
  GsCall(GsLogEnable(ctx, 0));
  GsCall(ierr);
  for (int k = 0; k < 2; k++)
    GsCall(GsLogEventGetInfo(ctx, ev[k], NULL, &after[k], NULL, NULL));
  *stencil_ms = 1e3 * (after[0] - before[0]) / (double)steps;
  *solve_ms = 1e3 * (after[1] - before[1]) / (double)steps;
  return 0;
}

/* gpusolve ch -bench 1: time per step of the cases (2D SBDF2 at 1024^2, 2048^2, 4096^2,
 * the last also in float, and a 1D ensemble of 65536 x 1024 on a GPU; smaller on the CPU) against
 * a floor of 10 words per point per 2D step (80 bytes in double, the figure) and 2 per 1D
 * step (read and write the state once) over the copy bandwidth measured in the same run; then
 * where the time goes (stencil, solves). The passes themselves must move 7 words per point in 2D
 * (stencil: c, cprev in, rhs out; each solve one in, one out) and 5 in 1D. JSON suite "apps". */
static int ch_bench(GsContext ctx, const char *res, const GsDeviceInfo *dev, int gpu, GsInt steps,
                    const char *json) {
  /* n, ny, ensemble, float. Single precision holds in 2D only while a = D gamma dt / dx^4 stays
   * small (the ADI splitting term rounds by a^2 u, u the unit roundoff; below about 1e-3): at dt
   * 5e-4 it fails from 1024^2 up, so the float case at 4096^2 takes dt / 8^4, the a of 512^2. */
  static const GsInt gpu_cases[][4] = {{1024, 1024, 1, 0},
                                       {2048, 2048, 1, 0},
                                       {4096, 4096, 1, 0},
                                       {1024, 1, 65536, 0},
                                       {4096, 4096, 1, 1}};
  static const GsInt cpu_cases[][4] = {
      {256, 256, 1, 0}, {512, 512, 1, 0}, {1024, 1, 4096, 0}, {512, 512, 1, 1}};
  const GsInt(*cases)[4] = gpu ? gpu_cases : cpu_cases;
  const int ncases = gpu ? 5 : 4;
  GsBenchReport rep = {0};
  double copy = 0;
  CLI_CALL(ctx, GsMeasureCopyBandwidth(ctx, (size_t)1 << 28, 5, &copy));
  int ierr = 0;
  for (int c = 0; c < ncases && !ierr; c++) {
    GsCahnHilliardDesc d = {.n = cases[c][0],
                            .ensemble = cases[c][2],
                            .length = 2 * GS_APP_PI,
                            .D = 1.0,
                            .gamma = 0.01,
                            .dt = 5e-4,
                            .order = 2,
                            .ny = cases[c][1]};
    d.precision = cases[c][3] ? GS_FLOAT : GS_DOUBLE;
    if (cases[c][3] && d.n > 512) d.dt *= pow(512.0 / (double)d.n, 4);
    const int twod = d.ny > 1;
    const double word = cases[c][3] ? 4.0 : 8.0, perpoint = (twod ? 10.0 : 2.0) * word;
    const double points = (double)d.n * (double)d.ny * (double)d.ensemble;
    GsCahnHilliard ch = NULL;
    ierr = GsCahnHilliardCreate(ctx, &d, &ch);
    if (!ierr) ierr = GsCahnHilliardSetRandom(ch, -1, 0.0, 0.05, 1);
    if (!ierr) ierr = GsCahnHilliardStep(ch, 5); /* warm-up, and SBDF2's first step */
    if (!ierr) ierr = GsSynchronize(ctx);
    const double t0 = GsWallTime();
    if (!ierr) ierr = GsCahnHilliardStep(ch, steps);
    if (!ierr) ierr = GsSynchronize(ctx);
    const double per = (GsWallTime() - t0) / (double)steps;
    double st_ms = 0, sv_ms = 0;
    if (!ierr) ierr = ch_breakdown(ctx, ch, steps < 20 ? steps : 20, &st_ms, &sv_ms);
    GsCahnHilliardDestroy(&ch);
    if (ierr) break;
    GsBenchRecord r;
    memset(&r, 0, sizeof r);
    snprintf(r.op, sizeof r.op, "ch_step");
    snprintf(r.dtype, sizeof r.dtype, "%s", cases[c][3] ? "float" : "double");
    snprintf(r.impl, sizeof r.impl, "gpusolve");
    snprintf(r.resource, sizeof r.resource, "%.31s", res);
    snprintf(r.config, sizeof r.config,
             "%s SBDF2 %s %lld x %lld x %lld dt=%g ns/point/step=%.3f stencil_ms=%.4f "
             "solves_ms=%.4f",
             twod ? "2D" : "1D ensemble", r.dtype, (long long)d.n, (long long)d.ny,
             (long long)d.ensemble, d.dt, 1e9 * per / points, st_ms, sv_ms);
    r.n = twod ? (long long)points : (long long)d.n; /* a record's unknowns are n x batch */
    r.batch = (long long)d.ensemble;
    r.repeats = (int)steps;
    r.bytes = perpoint * points;
    r.median_s = r.min_s = per;
    r.gbps = r.bytes / per / 1e9;
    r.floor_gbps = copy;
    r.fraction = copy > 0 ? r.gbps / copy : 0;
    r.residual = -1;
    /* The stencil's own floor: 3 words per point; the solves': 2 words per point each. */
    const double st_floor = 3 * word * points / (copy * 1e9) * 1e3;
    const double sv_floor = (twod ? 4 : 2) * word * points / (copy * 1e9) * 1e3;
    char label[96];
    snprintf(label, sizeof label, "%s SBDF2 %s %lld x %lld x %lld", twod ? "2D" : "1D ensemble",
             r.dtype, (long long)d.n, (long long)d.ny, (long long)d.ensemble);
    printf("%-40s %10.4f ms per step  %8.3f ns per point  %5.1f%% of the %.0f-byte floor\n"
           "    logged: stencil %.4f ms (%.0f%% of its floor), banded solves %.4f ms (%.0f%%)\n",
           label, 1e3 * per, 1e9 * per / points, 100 * r.fraction, perpoint, st_ms,
           st_ms > 0 ? 100 * st_floor / st_ms : 0.0, sv_ms,
           sv_ms > 0 ? 100 * sv_floor / sv_ms : 0.0);
    if (GsBenchReportAdd(&rep, &r)) ierr = CLI_RAISE(ctx, GS_ERR_MEMORY, "cannot grow the report");
  }
  if (!ierr && json[0])
    ierr = GsBenchWriteJSON(ctx, &rep, json, "apps", dev, res, copy, "\"apps\": {\"app\": \"ch\"}");
  if (!ierr && json[0]) printf("results written to %s\n", json);
  GsBenchReportFree(&rep);
  CLI_CALL(ctx, ierr);
  return 0;
}

/* "A,B" into E values spaced linearly from A to B (A alone for one member); 1 (after a message) if
 * the text is not two numbers. */
static int ch_range(const char *text, const char *opt, GsInt E, double **out) {
  double a, b;
  char tail;
  if (sscanf(text, "%lf,%lf%c", &a, &b, &tail) != 2) {
    fprintf(stderr, "gpusolve ch: %s '%s': give two numbers A,B\n", opt, text);
    return 1;
  }
  *out = malloc((size_t)E * sizeof **out);
  if (!*out) return 1;
  for (GsInt e = 0; e < E; e++)
    (*out)[e] = E > 1 ? a + (b - a) * (double)e / (double)(E - 1) : a;
  return 0;
}

static int cmd_ch(int argc, char **argv) {
  GsContext ctx = NULL;
  const char *res;
  GsDeviceInfo dev;
  int gpu;
  const int begun = cli_begin(argc, argv, ch_help, &ctx, &res, &dev, &gpu);
  if (begun) return begun < 0 ? 0 : begun;
  GsCahnHilliardDesc d = {.n = 256,
                          .ensemble = 1,
                          .length = 2 * GS_APP_PI,
                          .D = 1.0,
                          .gamma = 0.01,
                          .dt = 5e-4,
                          .order = 2,
                          .ny = 1};
  GsInt steps = 2000, every = 200, order = 2, seed = 1;
  double mean = 0, amp = 0.05;
  char csv[1024] = "", ckpt[1024] = "", restart[1024] = "", outdir[768] = "", init[1024] = "",
       seq[768] = "";
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-n", &d.n, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-ensemble", &d.ensemble, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-ny", &d.ny, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-steps", &steps, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-every", &every, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-order", &order, NULL));
  CLI_CALL(ctx, GsOptionsGetInt(ctx, "-seed", &seed, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-dt", &d.dt, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-D", &d.D, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-gamma", &d.gamma, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-L", &d.length, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-mean", &mean, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-amplitude", &amp, NULL));
  CLI_CALL(ctx, GsOptionsGetReal(ctx, "-stabilize", &d.stabilize, NULL));
  int single = 0;
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-float", &single, NULL));
  d.precision = single ? GS_FLOAT : GS_DOUBLE;
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-csv", csv, sizeof csv, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-checkpoint", ckpt, sizeof ckpt, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-restart", restart, sizeof restart, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-out", outdir, sizeof outdir, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-sequence", seq, sizeof seq, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-init", init, sizeof init, NULL));
  char grange[128] = "", drange[128] = "";
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-gamma_range", grange, sizeof grange, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-D_range", drange, sizeof drange, NULL));
  int bench = 0;
  char json[768] = "", json_dir[512] = "";
  CLI_CALL(ctx, GsOptionsGetBool(ctx, "-bench", &bench, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-json", json, sizeof json, NULL));
  CLI_CALL(ctx, GsOptionsGetString(ctx, "-json_dir", json_dir, sizeof json_dir, NULL));
  if (bench) {
    GsInt bsteps = gpu ? 50 : 10;
    CLI_CALL(ctx, GsOptionsGetInt(ctx, "-bench_steps", &bsteps, NULL));
    if (json_dir[0] && !json[0] && json_in_dir(json, sizeof json, json_dir, "apps", gpu, &dev)) {
      GsDestroy(&ctx);
      return 2;
    }
    if (bsteps < 1 || ch_bench(ctx, res, &dev, gpu, bsteps, json)) return 1;
    CLI_CALL(ctx, GsDestroy(&ctx));
    return 0;
  }
  if (steps < 0 || every < 1) {
    fprintf(stderr, "gpusolve ch: -steps must be >= 0 and -every >= 1\n");
    GsDestroy(&ctx);
    return 2;
  }
  d.order = (int)order;
  /* -gamma_range A,B / -D_range A,B: member e gets A + (B - A) e / (E - 1). */
  double *gm = NULL, *dm = NULL;
  if ((grange[0] && ch_range(grange, "-gamma_range", d.ensemble, &gm)) ||
      (drange[0] && ch_range(drange, "-D_range", d.ensemble, &dm))) {
    free(gm);
    GsDestroy(&ctx);
    return 2;
  }
  d.gamma_member = gm;
  d.D_member = dm;
  GsCahnHilliard ch = NULL;
  const int cerr = GsCahnHilliardCreate(ctx, &d, &ch);
  free(gm);
  free(dm);
  CLI_CALL(ctx, cerr);
  if (restart[0]) {
    CLI_CALL(ctx, GsCahnHilliardLoadCheckpoint(ch, restart));
  } else if (init[0]) {
    GsVec c0 = NULL;
    CLI_CALL(ctx, GsVecLoadMatrixMarket(ctx, init, &c0));
    const int ierr0 = GsCahnHilliardSetState(ch, c0);
    GsVecDestroy(&c0);
    CLI_CALL(ctx, ierr0);
  } else
    CLI_CALL(ctx, GsCahnHilliardSetRandom(ch, -1, mean, amp, (uint64_t)seed));
  GsInt start = 0;
  CLI_CALL(ctx, GsCahnHilliardGetTime(ch, NULL, &start));
  FILE *out = stdout;
  if (csv[0]) {
    out = fopen(csv, "w");
    if (!out) {
      fprintf(stderr, "gpusolve ch: cannot open '%s' for writing\n", csv);
      GsCahnHilliardDestroy(&ch);
      GsDestroy(&ctx);
      return 1;
    }
  }
  fprintf(stderr,
          "Cahn-Hilliard on %s (%s): n %lld x %lld, ensemble %lld, SBDF%d, dt %g, %lld steps\n",
          res, dev.name, (long long)d.n, (long long)(d.ny > 1 ? d.ny : 1), (long long)d.ensemble,
          d.order, d.dt, (long long)steps);
  fprintf(out, "step,time,member,mass,energy,min,max,domain_size\n");
  ChOutput o = {0};
  const int snap = outdir[0] || seq[0];
  int ierr = snap ? ch_output_open(ctx, &o, outdir, seq, &d, (int)(steps / every + 1)) : 0;
  double busy = 0;
  const int tty = isatty(fileno(stderr));
  for (GsInt s = 0; s <= steps && !ierr; s += every) {
    double t = 0;
    ierr = GsCahnHilliardGetTime(ch, &t, NULL);
    for (GsInt mb = 0; mb < d.ensemble && !ierr; mb++) {
      double m, e, lo, hi, size = 0;
      ierr = GsCahnHilliardDiagnostics(ch, mb, &m, &e, &lo, &hi);
      if (!ierr) ierr = GsCahnHilliardDomainSize(ch, mb, &size);
      if (!ierr)
        fprintf(out, "%lld,%.6g,%lld,%.17g,%.17g,%.17g,%.17g,%.6g\n", (long long)(start + s), t,
                (long long)mb, m, e, lo, hi, size);
    }
    if (!ierr && ckpt[0]) ierr = GsCahnHilliardSaveCheckpoint(ch, ckpt);
    if (!ierr && snap) ierr = ch_output_write(ctx, &o, ch, start + s, t);
    if (!ierr && s > 0) {
      const double rate = busy > 0 ? (double)s / busy : 0;
      fprintf(stderr, "%sstep %lld/%lld  t %.6g  %.1f steps/s  ETA %.1f s%s", tty ? "\r" : "",
              (long long)s, (long long)steps, t, rate, rate > 0 ? (double)(steps - s) / rate : 0.0,
              tty ? "   " : "\n");
    }
    const GsInt k = s + every <= steps ? every : steps - s;
    if (k <= 0) break;
    const double t0 = GsWallTime();
    if (!ierr) ierr = GsCahnHilliardStep(ch, k);
    if (!ierr) ierr = GsSynchronize(ctx);
    busy += GsWallTime() - t0;
  }
  if (tty && steps > 0) fprintf(stderr, "\n");
  if (!ierr && snap) ierr = ch_output_finish(ctx, &o);
  ch_output_close(&o);
  if (out != stdout) fclose(out);
  if (!ierr)
    fprintf(stderr, "%.3f s stepping, %.2f us per step, %.2f ns per step per grid point\n", busy,
            steps ? 1e6 * busy / (double)steps : 0.0,
            steps ? 1e9 * busy / (double)steps / (double)(d.n * (d.ny > 1 ? d.ny : 1) * d.ensemble)
                  : 0.0);
  GsCahnHilliardDestroy(&ch);
  CLI_CALL(ctx, ierr);
  CLI_CALL(ctx, GsDestroy(&ctx));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  /* GNU spelling of the options is accepted too: --name is -name (the options database, like
   * PETSc's, takes names with one dash); "--" alone and values are left as they are. */
  for (int i = 2; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1] == '-' && isalpha((unsigned char)argv[i][2]))
      memmove(argv[i], argv[i] + 1, strlen(argv[i]));
  const char *cmd = argv[1];
  /* The subcommand sees its own arguments, with its name as argv[0]. */
  int sargc = argc - 1;
  char **sargv = argv + 1;
  if (!strcmp(cmd, "info")) return cmd_info(sargc, sargv);
  if (!strcmp(cmd, "demo")) return cmd_demo(sargc, sargv);
  if (!strcmp(cmd, "bench")) return cmd_bench(sargc, sargv);
  if (!strcmp(cmd, "banded")) return cmd_banded(sargc, sargv);
  if (!strcmp(cmd, "solve")) return cmd_solve(sargc, sargv);
  if (!strcmp(cmd, "spmv")) return cmd_spmv(sargc, sargv);
  if (!strcmp(cmd, "hyperdiffusion")) return cmd_hyperdiffusion(sargc, sargv);
  if (!strcmp(cmd, "ch")) return cmd_ch(sargc, sargv);
  if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-help") ||
      !strcmp(cmd, "-h")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    int major, minor, patch;
    GsGetVersion(&major, &minor, &patch);
    printf("gpusolve %d.%d.%d\n", major, minor, patch);
    return 0;
  }
  fprintf(stderr, "gpusolve: unknown command '%s'\n\n", cmd);
  usage(stderr);
  return 2;
}
