/* gpusolve: the command-line program. One subcommand per job; options are PETSc-style
 * (-name value) and go to the library's options database, so -log_view, -options_left and
 * -gs_backend work everywhere. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpusolve.h>

#include "vecbench.h"

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
  fprintf(f,
          "usage: gpusolve <command> [options]\n\n"
          "commands:\n"
          "  info      version, build options, back ends, devices and their copy bandwidth\n"
          "  demo      the showcase: back ends and a vector benchmark (GPU when present)\n"
          "  bench     vector benchmarks beside the copy floor and the peers; writes JSON\n"
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
  CLI_CALL(NULL, GsInitWithArgs(argc, argv, NULL, &ctx));
  GsMemType mem;
  const char *res;
  GsDeviceInfo dev;
  CLI_CALL(ctx, GsGetPreferredMemType(ctx, &mem));
  CLI_CALL(ctx, GsGetResource(ctx, &res));
  CLI_CALL(ctx, GsGetDeviceInfo(ctx, &dev));
  int gpu = mem == GS_MEM_DEVICE;
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
  if (json_dir[0] && !json[0]) {
    char s[128];
    slug(gpu ? dev.name : "cpu", s, sizeof s);
    int len = snprintf(json, sizeof json, "%s/vec-%s.json", json_dir, s);
    if (len < 0 || (size_t)len >= sizeof json) {
      fprintf(stderr, "gpusolve: -json_dir '%s' is too long\n", json_dir);
      GsBenchReportFree(&rep);
      GsDestroy(&ctx);
      return 1;
    }
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

static int cmd_demo(int argc, char **argv) {
  if (wants_help(argc, argv)) {
    printf("usage: gpusolve demo [options of 'gpusolve bench']\n"
           "The showcase: lists the back ends, then runs the vector benchmark on the GPU when one\n"
           "is present and on the CPU otherwise (n = 2^27 on a GPU, 2^22 on the CPU).\n");
    return 0;
  }
  int major, minor, patch;
  GsGetVersion(&major, &minor, &patch);
  printf("=== gpusolve %d.%d.%d demo ===\n\n", major, minor, patch);
  GsBackendsView(stdout);
  printf("\n");
  return run_vec_bench(argc, argv, 1);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  /* The subcommand sees its own arguments, with its name as argv[0]. */
  int sargc = argc - 1;
  char **sargv = argv + 1;
  if (!strcmp(cmd, "info")) return cmd_info(sargc, sargv);
  if (!strcmp(cmd, "demo")) return cmd_demo(sargc, sargv);
  if (!strcmp(cmd, "bench")) return cmd_bench(sargc, sargv);
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
