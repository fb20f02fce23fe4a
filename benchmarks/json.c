/* JSON output of benchmark reports (the files in benchmarks/results). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vecbench.h"

/* Strings here come from the library or the device name: escape quotes and backslashes anyway. */
static void put_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if ((unsigned char)*s >= 0x20) fputc(*s, f);
  }
  fputc('"', f);
}

int GsBenchWriteJSON(GsContext ctx, const GsBenchReport *rep, const char *path, const char *suite,
                     const GsDeviceInfo *dev, const char *resource, double copy_gbps,
                     const char *extra_json) {
  FILE *f = fopen(path, "w");
  if (!f) return GsError(ctx, GS_ERR_FILE_OPEN, "cannot open '%s' for writing", path);
  char sha[128], date[64];
  GsBenchGitSha(sha, sizeof sha);
  time_t now = time(NULL);
  struct tm tmv;
  gmtime_r(&now, &tmv);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  int major, minor, patch;
  GsGetVersion(&major, &minor, &patch);
  fprintf(f, "{\n  \"suite\": ");
  put_str(f, suite);
  fprintf(f, ",\n  \"git_sha\": ");
  put_str(f, sha);
  fprintf(f, ",\n  \"date\": \"%s\",\n  \"gpusolve_version\": \"%d.%d.%d\",\n", date, major, minor,
          patch);
  fprintf(f, "  \"build\": ");
  put_str(f, GsGetBuildInfo());
  fprintf(f, ",\n  \"resource\": ");
  put_str(f, resource);
  fprintf(f, ",\n  \"device\": {\"name\": ");
  put_str(f, dev->name);
  fprintf(f,
          ", \"compute_capability\": \"%d.%d\", \"multiprocessors\": %d, \"memory_bytes\": %zu, "
          "\"l2_bytes\": %zu},\n",
          dev->compute_major, dev->compute_minor, dev->multiprocessors, dev->total_memory,
          dev->l2_cache);
  fprintf(f,
          "  \"floor\": {\"kind\": \"copy bandwidth, bytes read + written, same buffers size\", "
          "\"gbytes_per_s\": %.6g},\n",
          copy_gbps);
  if (extra_json && extra_json[0]) fprintf(f, "  %s,\n", extra_json);
  fprintf(f, "  \"records\": [\n");
  for (int i = 0; i < rep->nrec; i++) {
    const GsBenchRecord *r = &rep->rec[i];
    fprintf(f, "    {\"op\": ");
    put_str(f, r->op);
    fprintf(f, ", \"dtype\": ");
    put_str(f, r->dtype);
    fprintf(f, ", \"impl\": ");
    put_str(f, r->impl);
    fprintf(f, ", \"resource\": ");
    put_str(f, r->resource);
    fprintf(f,
            ", \"n\": %lld, \"repeats\": %d, \"bytes\": %.0f, \"median_s\": %.9g, \"min_s\": "
            "%.9g, \"gbytes_per_s\": %.6g, \"floor_gbytes_per_s\": %.6g, \"fraction_of_copy\": "
            "%.4f",
            r->n, r->repeats, r->bytes, r->median_s, r->min_s, r->gbps, r->floor_gbps, r->fraction);
    if (r->config[0]) { /* a batched banded record: its case, and the residual of its solution */
      fprintf(f, ", \"config\": ");
      put_str(f, r->config);
      fprintf(f, ", \"group\": ");
      put_str(f, r->group);
      fprintf(f, ", \"bands\": %d, \"batch\": %lld, \"unknowns\": %lld, \"layout\": ", r->bands,
              r->batch, r->n * r->batch);
      put_str(f, r->layout);
      fprintf(f, ", \"shared\": %s, \"periodic\": %s, \"spd\": %s, \"mode\": ",
              r->shared ? "true" : "false", r->periodic ? "true" : "false",
              r->spd ? "true" : "false");
      put_str(f, r->mode);
      if (r->residual >= 0 && isfinite(r->residual)) /* NaN or inf would not be JSON */
        fprintf(f, ", \"residual\": %.3e", r->residual);
      else
        fprintf(f, ", \"residual\": null");
    }
    fprintf(f, "}%s\n", i + 1 < rep->nrec ? "," : "");
  }
  fprintf(f, "  ]\n}\n");
  int bad = ferror(f);
  if (fclose(f) || bad) return GsError(ctx, GS_ERR_FILE_WRITE, "error writing '%s'", path);
  return 0;
}
