/* Output of 2D fields for the applications: VTK image data (.vti, ASCII) with a ParaView time
 * series (.pvd), and PNG snapshots with a colour map and a colour bar (libpng). Every file is
 * written to path.tmp and renamed over path. Fields are row-major nx x ny doubles on the host,
 * point (i, j) at j nx + i. */
#ifndef GPUSOLVE_APPS_OUTPUT_H
#define GPUSOLVE_APPS_OUTPUT_H

#include <gpusolve.h>

/* VTK XML image data: one point field `name` on an nx x ny grid of spacing h from the origin. */
int GsAppWriteVTI(GsContext ctx, const char *path, GsInt nx, GsInt ny, double h, const char *name,
                  const double *field);
/* A ParaView collection of n datasets: file[k] (relative to the .pvd) at time t[k]. */
int GsAppWritePVD(GsContext ctx, const char *path, int n, const double t[],
                  const char *const file[]);
/* A PNG of the field, one pixel per point (row j = 0 at the bottom), colours from the colour map
 * over [lo, hi] (lo == hi: the field's own range), with a colour bar on the right (ticks at the
 * ends and the middle) and the range in the file's text chunks ("gpusolve:min", "gpusolve:max").
 * GS_ERR_UNSUPPORTED when built without libpng. */
int GsAppWritePNG(GsContext ctx, const char *path, GsInt nx, GsInt ny, const double *field,
                  double lo, double hi);
/* The same with nframes fields side by side (a time sequence, left to right), one colour bar;
 * lo == hi: the range of all frames. */
int GsAppWritePNGFrames(GsContext ctx, const char *path, int nframes, GsInt nx, GsInt ny,
                        const double *const *fields, double lo, double hi);
/* The colour map: t in [0, 1] (clamped; NaN is grey) to 8-bit RGB. */
void GsAppColorMap(double t, unsigned char rgb[3]);

#endif
