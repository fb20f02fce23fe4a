/* Output of 2D fields: VTK image data, ParaView collections, PNG (see output.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#ifdef GS_APPS_HAVE_PNG
#include <png.h>
#endif

/* Open path.tmp for writing (tmp gets its name). */
static int open_tmp(GsContext ctx, const char *path, char *tmp, size_t len, FILE **f) {
  const int k = snprintf(tmp, len, "%s.tmp", path);
  GsCheck(k >= 0 && (size_t)k < len, ctx, GS_ERR_ARG_OUTOFRANGE, "path too long: %.200s", path);
  *f = fopen(tmp, "wb");
  GsCheck(*f != NULL, ctx, GS_ERR_FILE_OPEN, "cannot open %s for writing: %s", tmp,
          strerror(errno));
  return 0;
}

/* Close f and rename tmp over path; remove tmp when anything failed (ok = 0 on entry). */
static int close_rename(GsContext ctx, FILE *f, const char *tmp, const char *path, int ok) {
  const int err = ferror(f);
  if (fclose(f) || err || !ok) {
    remove(tmp);
    return GsError(ctx, GS_ERR_FILE_WRITE, "cannot write %s: %s", tmp,
                   errno ? strerror(errno) : "write error");
  }
  if (rename(tmp, path)) {
    remove(tmp);
    return GsError(ctx, GS_ERR_FILE_WRITE, "cannot rename %s to %s: %s", tmp, path,
                   strerror(errno));
  }
  return 0;
}

int GsAppWriteVTI(GsContext ctx, const char *path, GsInt nx, GsInt ny, double h, const char *name,
                  const double *field) {
  GsCheck(path && name && field, ctx, GS_ERR_ARG_NULL, "VTI output: NULL argument");
  GsCheck(nx >= 1 && ny >= 1 && h > 0, ctx, GS_ERR_ARG_OUTOFRANGE,
          "VTI output: %lld x %lld points, spacing %g", (long long)nx, (long long)ny, h);
  char tmp[4096];
  FILE *f = NULL;
  GsCall(open_tmp(ctx, path, tmp, sizeof tmp, &f));
  fprintf(f, "<?xml version=\"1.0\"?>\n");
  fprintf(f, "<VTKFile type=\"ImageData\" version=\"0.1\" byte_order=\"LittleEndian\">\n");
  fprintf(f,
          "  <ImageData WholeExtent=\"0 %lld 0 %lld 0 0\" Origin=\"0 0 0\" "
          "Spacing=\"%.17g %.17g 1\">\n",
          (long long)(nx - 1), (long long)(ny - 1), h, h);
  fprintf(f, "    <Piece Extent=\"0 %lld 0 %lld 0 0\">\n", (long long)(nx - 1),
          (long long)(ny - 1));
  fprintf(f, "      <PointData Scalars=\"%s\">\n", name);
  fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" format=\"ascii\">\n", name);
  for (GsInt j = 0; j < ny; j++) {
    fprintf(f, "         ");
    for (GsInt i = 0; i < nx; i++)
      fprintf(f, " %.17g", field[j * nx + i]);
    fprintf(f, "\n");
  }
  fprintf(f,
          "        </DataArray>\n      </PointData>\n    </Piece>\n  </ImageData>\n</VTKFile>\n");
  GsCall(close_rename(ctx, f, tmp, path, 1));
  return 0;
}

int GsAppWritePVD(GsContext ctx, const char *path, int n, const double t[],
                  const char *const file[]) {
  GsCheck(path && (n == 0 || (t && file)), ctx, GS_ERR_ARG_NULL, "PVD output: NULL argument");
  char tmp[4096];
  FILE *f = NULL;
  GsCall(open_tmp(ctx, path, tmp, sizeof tmp, &f));
  fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n"
             "  <Collection>\n");
  for (int k = 0; k < n; k++)
    fprintf(f, "    <DataSet timestep=\"%.17g\" part=\"0\" file=\"%s\"/>\n", t[k], file[k]);
  fprintf(f, "  </Collection>\n</VTKFile>\n");
  GsCall(close_rename(ctx, f, tmp, path, 1));
  return 0;
}

void GsAppColorMap(double t, unsigned char rgb[3]) {
  /* Dark blue - blue - white - orange - dark red: a diverging map whose ends stay apart for the
   * two phases of a Cahn-Hilliard field. Linear between control points. */
  static const double cp[5][3] = {{0.02, 0.09, 0.35},
                                  {0.20, 0.45, 0.85},
                                  {0.97, 0.97, 0.97},
                                  {0.93, 0.50, 0.18},
                                  {0.45, 0.04, 0.05}};
  if (t != t) {
    rgb[0] = rgb[1] = rgb[2] = 128;
    return;
  }
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const double x = t * 4;
  int k = (int)x;
  if (k > 3) k = 3;
  const double w = x - k;
  for (int c = 0; c < 3; c++)
    rgb[c] = (unsigned char)lround(255 * ((1 - w) * cp[k][c] + w * cp[k + 1][c]));
}

#ifdef GS_APPS_HAVE_PNG
/* The image (w wide): the fields (nx x ny each, row 0 at the top = j = ny - 1) side by side,
 * gap apart, and after a gap the colour bar (bar_w wide, top = hi) with black ticks at hi, the
 * middle and lo. */
static void render(int nf, GsInt nx, GsInt ny, const double *const *fields, double lo, double hi,
                   GsInt gap, GsInt bar_w, GsInt w, unsigned char *img) {
  const GsInt bar0 = nf * (nx + gap);
  memset(img, 255, (size_t)(w * ny * 3));
  for (GsInt r = 0; r < ny; r++) {
    unsigned char *row = img + (size_t)(r * w * 3);
    for (int f = 0; f < nf; f++) {
      const double *src = fields[f] + (ny - 1 - r) * nx;
      unsigned char *dst = row + 3 * f * (nx + gap);
      for (GsInt i = 0; i < nx; i++)
        GsAppColorMap(hi > lo ? (src[i] - lo) / (hi - lo) : 0.5, dst + 3 * i);
    }
    const double t = ny > 1 ? 1 - (double)r / (double)(ny - 1) : 0.5;
    for (GsInt i = 0; i < bar_w; i++)
      GsAppColorMap(t, row + 3 * (bar0 + i));
    const int tick = r == 0 || r == ny - 1 || r == (ny - 1) / 2;
    for (GsInt i = 0; tick && i < 3; i++) {
      unsigned char *p = row + 3 * (bar0 + bar_w + i);
      p[0] = p[1] = p[2] = 0;
    }
  }
}

/* The RGB rows of img (w x h) as a PNG on f, with the range as text chunks; 1 on success. libpng
 * reports errors by longjmp, so nothing set before the setjmp changes after it. */
static int write_rgb(FILE *f, png_uint_32 w, png_uint_32 h, const unsigned char *img,
                     const char *smin, const char *smax) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  if (!png) return 0;
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, NULL);
    return 0;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return 0;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_text text[2];
  memset(text, 0, sizeof text);
  text[0].compression = text[1].compression = PNG_TEXT_COMPRESSION_NONE;
  text[0].key = (png_charp) "gpusolve:min";
  text[0].text = (png_charp)smin;
  text[1].key = (png_charp) "gpusolve:max";
  text[1].text = (png_charp)smax;
  png_set_text(png, info, text, 2);
  png_write_info(png, info);
  for (png_uint_32 r = 0; r < h; r++)
    png_write_row(png, img + (size_t)r * w * 3);
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return 1;
}
#endif

int GsAppWritePNG(GsContext ctx, const char *path, GsInt nx, GsInt ny, const double *field,
                  double lo, double hi) {
  GsCall(GsAppWritePNGFrames(ctx, path, 1, nx, ny, &field, lo, hi));
  return 0;
}

int GsAppWritePNGFrames(GsContext ctx, const char *path, int nframes, GsInt nx, GsInt ny,
                        const double *const *fields, double lo, double hi) {
  GsCheck(path && fields, ctx, GS_ERR_ARG_NULL, "PNG output: NULL argument");
  GsCheck(nframes >= 1 && nframes <= 64, ctx, GS_ERR_ARG_OUTOFRANGE,
          "PNG output: %d frames (1 to 64)", nframes);
  for (int f = 0; f < nframes; f++)
    GsCheck(fields[f] != NULL, ctx, GS_ERR_ARG_NULL, "PNG output: frame %d is NULL", f);
  GsCheck(nx >= 1 && ny >= 1 && nx <= 65536 && ny <= 65536, ctx, GS_ERR_ARG_OUTOFRANGE,
          "PNG output: %lld x %lld pixels", (long long)nx, (long long)ny);
#ifndef GS_APPS_HAVE_PNG
  (void)lo;
  (void)hi;
  return GsError(ctx, GS_ERR_UNSUPPORTED, "PNG output: built without libpng (%s not written)",
                 path);
#else
  if (!(lo < hi)) {
    lo = INFINITY;
    hi = -INFINITY;
    for (int f = 0; f < nframes; f++)
      for (GsInt k = 0; k < nx * ny; k++)
        if (isfinite(fields[f][k])) {
          lo = fields[f][k] < lo ? fields[f][k] : lo;
          hi = fields[f][k] > hi ? fields[f][k] : hi;
        }
    if (!(lo <= hi)) lo = hi = 0;
  }
  const GsInt gap = nx / 32 + 2, bar_w = nx / 16 + 4, w = nframes * (nx + gap) + bar_w + 3;
  unsigned char *img = malloc((size_t)(w * ny * 3));
  GsCheck(img != NULL, ctx, GS_ERR_MEMORY, "PNG output: cannot allocate %lld x %lld pixels",
          (long long)w, (long long)ny);
  render(nframes, nx, ny, fields, lo, hi, gap, bar_w, w, img);
  char tmp[4096], smin[64], smax[64];
  snprintf(smin, sizeof smin, "%.17g", lo);
  snprintf(smax, sizeof smax, "%.17g", hi);
  FILE *f = NULL;
  int ierr = open_tmp(ctx, path, tmp, sizeof tmp, &f);
  if (ierr) {
    free(img);
    return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  }
  const int ok = write_rgb(f, (png_uint_32)w, (png_uint_32)ny, img, smin, smax);
  free(img);
  GsCall(close_rename(ctx, f, tmp, path, ok));
  return 0;
#endif
}
