/* Vector benchmarks: each operation timed on a context, beside the copy-bandwidth floor and peers.
 */
#ifndef GPUSOLVE_VECBENCH_H
#define GPUSOLVE_VECBENCH_H

#include <stdio.h>

#include <gpusolve.h>

typedef struct {
  char op[32];       /* "axpy", "dot", ... */
  char dtype[8];     /* "double" / "float" */
  char impl[32];     /* "gpusolve", "cublas" */
  char resource[32]; /* back end the figure was measured on */
  long long n;
  int repeats;
  double bytes;    /* fewest bytes one call must move */
  double median_s; /* median time of one call */
  double min_s;
  double gbps;       /* bytes / median_s / 1e9 */
  double floor_gbps; /* copy bandwidth measured in the same run on the same device */
  double fraction;   /* gbps / floor_gbps */
  /* Batched banded benchmarks (bandedbench.h) fill these; they go to JSON only when config is set,
   * so vector records keep their format. n above is then the rows of one system. */
  char config[128]; /* free text: "penta interleaved n=1024 batch=65536 solve" */
  char group[16];   /* "headline", "sweep" or "" */
  char layout[16];  /* "interleaved" / "contiguous" */
  char mode[16];    /* "solve" (factored once) / "factor_solve" / "restore" (a peer's copy) */
  long long batch;  /* systems */
  int bands, shared, periodic, spd;
  double residual; /* ||A x - f||_2 / ||f||_2 of the solution; < 0 when not checked */
} GsBenchRecord;

typedef struct {
  GsBenchRecord *rec;
  int nrec, cap;
} GsBenchReport;

/* Time the vector operations on ctx with n entries, `repeats` calls each (median), after measuring
 * the copy bandwidth with buffers of the same size; append records; progress lines go to log. */
int GsBenchVec(GsContext ctx, GsInt n, int repeats, GsBenchReport *rep, double *copy_gbps,
               FILE *log);
/* Time the cuBLAS peers (daxpy, ddot, dnrm2) on the same size; a no-op without CUDA. */
int GsBenchVecPeers(GsContext ctx, GsInt n, int repeats, double copy_gbps, GsBenchReport *rep,
                    FILE *log);
/* Print records as a table. */
void GsBenchPrintTable(const GsBenchReport *rep, FILE *f);
/* Write the report as JSON with the git SHA, device, sizes and floors. */
int GsBenchWriteJSON(GsContext ctx, const GsBenchReport *rep, const char *path, const char *suite,
                     const GsDeviceInfo *dev, const char *resource, double copy_gbps,
                     const char *extra_json);
void GsBenchReportFree(GsBenchReport *rep);
/* Append a copy of r (GS_ERR_MEMORY if the report cannot grow). */
int GsBenchReportAdd(GsBenchReport *rep, const GsBenchRecord *r);
/* The git SHA of the source tree ($GS_GIT_SHA, else `git rev-parse HEAD`, else "unknown"). */
void GsBenchGitSha(char *buf, size_t len);

#endif
