/* Output of the applications (apps/common/output): a VTK image file read back gives the field to
 * the last bit, a ParaView collection lists its datasets, a PNG read back with libpng has the
 * field's colours (the colour map's ends at the field's minimum and maximum), the colour bar and
 * the range in its text chunks; bad arguments and unwritable paths are named errors.
 * Usage: test_output /cpu */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/output.h"
#include "harness.h"

#ifdef GS_APPS_HAVE_PNG
#include <png.h>
#endif

/* The whole file as a string (hs_read_all reads up to the position of a file being written). */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  char *s = hs_read_all(f);
  fclose(f);
  return s;
}

static void test_vti(GsContext ctx, HsRng *r) {
  const GsInt nx = 13, ny = 7;
  double *v = hs_malloc((size_t)(nx * ny) * sizeof *v);
  hs_fill_d(r, nx * ny, v, -1, 1);
  v[5] = 1e-300;
  v[6] = -123456.78901234567;
  if (CHECK_OK(GsAppWriteVTI(ctx, "out-test.vti", nx, ny, 0.25, "C", v))) goto done;
  char *s = slurp("out-test.vti");
  CHECK(s && strstr(s, "WholeExtent=\"0 12 0 6 0 0\"") && strstr(s, "Spacing=\"0.25 0.25 1\"") &&
            strstr(s, "Name=\"C\""),
        "VTI header");
  const char *p = s ? strstr(s, "format=\"ascii\">") : NULL;
  GsInt bad = 0;
  if (p) {
    p += strlen("format=\"ascii\">");
    for (GsInt k = 0; k < nx * ny; k++) {
      char *end;
      const double x = strtod(p, &end);
      bad += end == p || memcmp(&x, &v[k], sizeof x) != 0;
      p = end;
    }
  }
  CHECK(p && bad == 0, "VTI data: %lld values differ from the field", (long long)bad);
  free(s);
  remove("out-test.vti");
  const double t[2] = {0, 0.5};
  const char *const files[2] = {"a.vti", "b.vti"};
  if (!CHECK_OK(GsAppWritePVD(ctx, "out-test.pvd", 2, t, files))) {
    s = slurp("out-test.pvd");
    CHECK(s && strstr(s, "type=\"Collection\"") &&
              strstr(s, "<DataSet timestep=\"0\" part=\"0\" file=\"a.vti\"/>") &&
              strstr(s, "<DataSet timestep=\"0.5\" part=\"0\" file=\"b.vti\"/>"),
          "PVD content: %s", s ? s : "(none)");
    free(s);
  }
  remove("out-test.pvd");
  CHECK_ERR(GsAppWriteVTI(ctx, "/no/such/dir/x.vti", nx, ny, 1, "C", v), GS_ERR_FILE_OPEN);
  CHECK_ERR(GsAppWriteVTI(ctx, "x.vti", 0, ny, 1, "C", v), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsAppWriteVTI(ctx, "x.vti", nx, ny, 1, "C", NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsAppWritePVD(ctx, "/no/such/dir/x.pvd", 2, t, files), GS_ERR_FILE_OPEN);
done:
  free(v);
}

static void test_colormap(void) {
  unsigned char a[3], b[3], m[3], n[3], lo[3], hi[3];
  GsAppColorMap(0, a);
  GsAppColorMap(1, b);
  GsAppColorMap(0.5, m);
  GsAppColorMap(NAN, n);
  GsAppColorMap(-3, lo);
  GsAppColorMap(7, hi);
  CHECK(!memcmp(a, lo, 3) && !memcmp(b, hi, 3), "the colour map does not clamp");
  CHECK(a[2] > a[0] && b[0] > b[2] && m[0] > 240 && m[1] > 240 && m[2] > 240,
        "colour map ends (%d %d %d), (%d %d %d), middle (%d %d %d)", a[0], a[1], a[2], b[0], b[1],
        b[2], m[0], m[1], m[2]);
  CHECK(n[0] == 128 && n[1] == 128 && n[2] == 128, "NaN is not grey");
}

#ifdef GS_APPS_HAVE_PNG
/* The RGB pixels of a PNG file (NULL after a recorded failure); *w, *h its size. */
static unsigned char *read_rgb(const char *path, GsInt *w, GsInt *h) {
  png_image img;
  memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  unsigned char *px = NULL;
  if (!CHECK(png_image_begin_read_from_file(&img, path), "PNG read of %s: %s", path, img.message))
    return NULL;
  img.format = PNG_FORMAT_RGB;
  px = hs_malloc(PNG_IMAGE_SIZE(img));
  if (!CHECK(png_image_finish_read(&img, NULL, px, 0, NULL), "PNG read of %s: %s", path,
             img.message)) {
    free(px);
    px = NULL;
  }
  *w = (GsInt)img.width;
  *h = (GsInt)img.height;
  png_image_free(&img);
  return px;
}
#endif

static void test_png(GsContext ctx) {
  const GsInt nx = 64, ny = 40;
  double *v = hs_malloc((size_t)(nx * ny) * sizeof *v);
  for (GsInt j = 0; j < ny; j++)
    for (GsInt i = 0; i < nx; i++)
      v[j * nx + i] = -2 + 5 * (double)i / (double)(nx - 1); /* -2 .. 3 along x */
#ifndef GS_APPS_HAVE_PNG
  CHECK_ERR(GsAppWritePNG(ctx, "out-test.png", nx, ny, v, 0, 0), GS_ERR_UNSUPPORTED);
  printf("SKIP test_output png: built without libpng\n");
#else
  if (!CHECK_OK(GsAppWritePNG(ctx, "out-test.png", nx, ny, v, 0, 0))) {
    GsInt w = 0, h = 0;
    unsigned char *px = read_rgb("out-test.png", &w, &h);
    if (px) {
      CHECK(w > nx && h == ny, "PNG %lld x %lld for a %lld x %lld field", (long long)w,
            (long long)h, (long long)nx, (long long)ny);
      unsigned char c0[3], c1[3];
      GsAppColorMap(0, c0);
      GsAppColorMap(1, c1);
      /* Field: left column the minimum, right column the maximum, in every row. Bar: its top is
       * the maximum's colour, its bottom the minimum's. */
      CHECK(!memcmp(px, c0, 3) && !memcmp(px + 3 * (nx - 1), c1, 3), "PNG field colours");
      const GsInt bar = nx + nx / 32 + 2;
      CHECK(!memcmp(px + 3 * bar, c1, 3) && !memcmp(px + 3 * ((ny - 1) * w + bar), c0, 3),
            "PNG colour bar ends");
      free(px);
    }
    /* The range as text chunks. */
    FILE *volatile f = fopen("out-test.png", "rb"); /* volatile: kept across png's longjmp */
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (f && png && info && !setjmp(png_jmpbuf(png))) {
      png_init_io(png, f);
      png_read_info(png, info);
      png_textp text = NULL;
      int nt = 0;
      png_get_text(png, info, &text, &nt);
      int seen = 0;
      for (int k = 0; k < nt; k++) {
        if (!strcmp(text[k].key, "gpusolve:min")) seen += strtod(text[k].text, NULL) == -2;
        if (!strcmp(text[k].key, "gpusolve:max")) seen += strtod(text[k].text, NULL) == 3;
      }
      CHECK(seen == 2, "PNG range chunks: %d of 2", seen);
    }
    png_destroy_read_struct(&png, &info, NULL);
    if (f) fclose(f);
  }
  remove("out-test.png");
  CHECK_ERR(GsAppWritePNG(ctx, "/no/such/dir/x.png", nx, ny, v, -1, 1), GS_ERR_FILE_OPEN);
  /* Three frames side by side: the first constant at the minimum, the last at the maximum, the
   * range over all three, one colour bar after the last frame. */
  double *lo = hs_malloc((size_t)(nx * ny) * sizeof *lo),
         *hi = hs_malloc((size_t)(nx * ny) * sizeof *hi);
  for (GsInt k = 0; k < nx * ny; k++) {
    lo[k] = -7;
    hi[k] = 9;
  }
  const double *frames[3] = {lo, v, hi};
  if (!CHECK_OK(GsAppWritePNGFrames(ctx, "out-frames.png", 3, nx, ny, frames, 0, 0))) {
    GsInt pw = 0, ph = 0;
    unsigned char *px = read_rgb("out-frames.png", &pw, &ph);
    const GsInt gap = nx / 32 + 2, bar_w = nx / 16 + 4, w = 3 * (nx + gap) + bar_w + 3;
    CHECK(px && pw == w && ph == ny, "PNG of 3 frames: %lld x %lld, expected %lld x %lld",
          (long long)pw, (long long)ph, (long long)w, (long long)ny);
    if (px && pw == w) {
      unsigned char c0[3], c1[3], mid[3];
      GsAppColorMap(0, c0);
      GsAppColorMap(1, c1);
      GsAppColorMap(5.0 / 16.0, mid); /* v's left column, -2, in the range [-7, 9] */
      const GsInt f2 = 2 * (nx + gap), bar = 3 * (nx + gap);
      CHECK(!memcmp(px, c0, 3) && !memcmp(px + 3 * (f2 + nx - 1), c1, 3) &&
                !memcmp(px + 3 * (nx + gap), mid, 3) && !memcmp(px + 3 * bar, c1, 3) &&
                !memcmp(px + 3 * ((ny - 1) * w + bar), c0, 3),
            "PNG frames: colours of the frames and of the bar");
    }
    free(px);
  }
  remove("out-frames.png");
  CHECK_ERR(GsAppWritePNGFrames(ctx, "x.png", 0, nx, ny, frames, -1, 1), GS_ERR_ARG_OUTOFRANGE);
  const double *holes[2] = {v, NULL};
  CHECK_ERR(GsAppWritePNGFrames(ctx, "x.png", 2, nx, ny, holes, -1, 1), GS_ERR_ARG_NULL);
  CHECK_MSG(ctx, "frame 1 is NULL");
  free(lo);
  free(hi);
#endif
  CHECK_ERR(GsAppWritePNG(ctx, "x.png", nx, 0, v, -1, 1), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsAppWritePNG(ctx, NULL, nx, ny, v, -1, 1), GS_ERR_ARG_NULL);
  free(v);
}

int main(int argc, char **argv) {
  hs_begin("test_output", "/cpu", argc, argv);
  GsContext ctx = NULL;
  int rc = hs_init_backend("/cpu", &ctx);
  if (rc == 77) return 77;
  if (rc) return hs_finish();
  HsRng r = hs_rng(17);
  test_vti(ctx, &r);
  test_colormap();
  test_png(ctx);
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  return hs_finish();
}
