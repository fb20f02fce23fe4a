/* The options database: argv, strings with quotes, $GS_OPTIONS, typed getters with defaults and
 * `set` flags, bad values, unused-option reports (GsOptionsLeft and -options_left at GsDestroy). */
#include "harness.h"

static const char *const ksp_types[] = {"cg", "bicgstab", "gmres", NULL};

static void test_argv(GsContext ctx) {
  /* clang-format off */
  char *argv[] = {"-prog_name_is_skipped",
                  "-n", "42", "-rtol", "1e-8", "-monitor", "-shift", "-1.5", "positional",
                  "-name", "foo", "-n", "43", "-neg", "-7", "-type", "gmres",
                  "-b1", "yes", "-b2", "off", "-b3", "TRUE", "-b4", "0", "-b5", "On",
                  "-b6", "false", "-b7", "1", "-b8", "No", "-big", "9007199254740993",
                  "-last_flag", NULL};
  /* clang-format on */
  int argc = (int)(sizeof argv / sizeof argv[0]) - 1;
  if (CHECK_OK(GsOptionsInsertArgs(ctx, argc, argv))) return;

  int set = -1;
  GsInt n = 0;
  CHECK_OK(GsOptionsGetInt(ctx, "-n", &n, &set));
  CHECK(n == 43 && set == 1, "-n: value %lld set %d, expected 43 (the later one) and 1",
        (long long)n, set);
  GsInt big = 0;
  CHECK_OK(GsOptionsGetInt(ctx, "-big", &big, NULL));
  CHECK(big == 9007199254740993LL, "-big read as %lld", (long long)big);
  double rtol = 0;
  CHECK_OK(GsOptionsGetReal(ctx, "-rtol", &rtol, &set));
  CHECK(rtol == 1e-8 && set == 1, "-rtol: %g set %d", rtol, set);
  double shift = 0;
  CHECK_OK(GsOptionsGetReal(ctx, "-shift", &shift, &set));
  CHECK(shift == -1.5 && set == 1, "-shift: %g (a negative number is a value, not an option)",
        shift);
  GsInt neg = 0;
  CHECK_OK(GsOptionsGetInt(ctx, "-neg", &neg, NULL));
  CHECK(neg == -7, "-neg: %lld", (long long)neg);
  int flag = 0;
  CHECK_OK(GsOptionsHasName(ctx, "-monitor", &flag));
  CHECK(flag == 1, "-monitor not found");
  int b = 0;
  CHECK_OK(GsOptionsGetBool(ctx, "-monitor", &b, &set));
  CHECK(b == 1 && set == 1, "bare flag -monitor reads as %d", b);
  CHECK_OK(GsOptionsGetBool(ctx, "-last_flag", &b, &set));
  CHECK(b == 1 && set == 1, "trailing flag -last_flag reads as %d set %d", b, set);
  const struct {
    const char *name;
    int want;
  } bools[] = {{"-b1", 1}, {"-b2", 0}, {"-b3", 1}, {"-b4", 0},
               {"-b5", 1}, {"-b6", 0}, {"-b7", 1}, {"-b8", 0}};
  for (int k = 0; k < 8; k++) {
    b = !bools[k].want;
    set = 0;
    CHECK_OK(GsOptionsGetBool(ctx, bools[k].name, &b, &set));
    CHECK(b == bools[k].want && set == 1, "%s reads as %d, expected %d", bools[k].name, b,
          bools[k].want);
  }
  char name[16] = "";
  CHECK_OK(GsOptionsGetString(ctx, "-name", name, sizeof name, &set));
  CHECK(!strcmp(name, "foo") && set == 1, "-name: '%s'", name);
  int type = -1;
  CHECK_OK(GsOptionsGetEnum(ctx, "-type", ksp_types, &type, &set));
  CHECK(type == 2 && set == 1, "-type gmres gives index %d", type);

  /* argv[0] is the program, and positional words are not options. */
  CHECK_OK(GsOptionsHasName(ctx, "-prog_name_is_skipped", &flag));
  CHECK(flag == 0, "argv[0] was inserted as an option");
  FILE *f = tmpfile();
  if (f) {
    CHECK_OK(GsOptionsView(ctx, f));
    char *s = hs_read_all(f);
    CHECK(s && !strstr(s, "positional") && strstr(s, "-type gmres") && strstr(s, "-n 43"),
          "GsOptionsView wrote:\n%s", s ? s : "");
    free(s);
    fclose(f);
  }

  /* Absent options keep the defaults and report set = 0. */
  GsInt di = 17;
  double dr = 2.5;
  int dbool = 1, denum = 1;
  char ds[8] = "keep";
  set = -1;
  CHECK_OK(GsOptionsGetInt(ctx, "-absent", &di, &set));
  CHECK(di == 17 && set == 0, "absent int: %lld set %d", (long long)di, set);
  set = -1;
  CHECK_OK(GsOptionsGetReal(ctx, "-absent", &dr, &set));
  CHECK(dr == 2.5 && set == 0, "absent real: %g set %d", dr, set);
  set = -1;
  CHECK_OK(GsOptionsGetBool(ctx, "-absent", &dbool, &set));
  CHECK(dbool == 1 && set == 0, "absent bool: %d set %d", dbool, set);
  set = -1;
  CHECK_OK(GsOptionsGetString(ctx, "-absent", ds, sizeof ds, &set));
  CHECK(!strcmp(ds, "keep") && set == 0, "absent string: '%s' set %d", ds, set);
  set = -1;
  CHECK_OK(GsOptionsGetEnum(ctx, "-absent", ksp_types, &denum, &set));
  CHECK(denum == 1 && set == 0, "absent enum: %d set %d", denum, set);
  CHECK_OK(GsOptionsHasName(ctx, "-absent", &flag));
  CHECK(flag == 0, "HasName(-absent) = %d", flag);
  CHECK_OK(GsOptionsGetInt(ctx, "-absent", &di, NULL)); /* set may be NULL */

  /* SetValue: later settings override, flags, bad names. */
  CHECK_OK(GsOptionsSetValue(ctx, "-n", "44"));
  CHECK_OK(GsOptionsGetInt(ctx, "-n", &n, NULL));
  CHECK(n == 44, "-n after SetValue: %lld", (long long)n);
  CHECK_OK(GsOptionsSetValue(ctx, "-newflag", NULL));
  b = 0;
  CHECK_OK(GsOptionsGetBool(ctx, "-newflag", &b, &set));
  CHECK(b == 1 && set == 1, "-newflag: %d", b);
  CHECK_ERR(GsOptionsSetValue(ctx, "noDash", "1"), GS_ERR_OPTION);
  CHECK_ERR(GsOptionsSetValue(ctx, "-1", "1"), GS_ERR_OPTION);
  CHECK_ERR(GsOptionsSetValue(ctx, NULL, "1"), GS_ERR_ARG_NULL);
}

static void test_string(GsContext ctx) {
  CHECK_OK(GsOptionsInsertString(
      ctx, "  -title \"hello world\" -path '/tmp/a b'\t-x 3 -empty \"\" -mix a\"b c\"d -tail  "));
  char s[64] = "";
  int set = 0;
  CHECK_OK(GsOptionsGetString(ctx, "-title", s, sizeof s, &set));
  CHECK(!strcmp(s, "hello world") && set, "-title: '%s'", s);
  CHECK_OK(GsOptionsGetString(ctx, "-path", s, sizeof s, &set));
  CHECK(!strcmp(s, "/tmp/a b") && set, "-path: '%s'", s);
  CHECK_OK(GsOptionsGetString(ctx, "-mix", s, sizeof s, &set));
  CHECK(!strcmp(s, "ab cd") && set, "-mix: '%s'", s);
  strcpy(s, "x");
  CHECK_OK(GsOptionsGetString(ctx, "-empty", s, sizeof s, &set));
  CHECK(!strcmp(s, "") && set, "-empty: '%s'", s);
  GsInt x = 0;
  CHECK_OK(GsOptionsGetInt(ctx, "-x", &x, NULL));
  CHECK(x == 3, "-x: %lld", (long long)x);
  int b = 0;
  CHECK_OK(GsOptionsGetBool(ctx, "-tail", &b, NULL));
  CHECK(b == 1, "-tail: %d", b);
  CHECK_OK(GsOptionsInsertString(ctx, ""));
  CHECK_OK(GsOptionsInsertString(ctx, "   "));
  GsClearError(ctx);
  CHECK_ERR(GsOptionsInsertString(ctx, "-q \"unterminated"), GS_ERR_OPTION);
  CHECK_MSG(ctx, "quote");
  CHECK_ERR(GsOptionsInsertString(ctx, NULL), GS_ERR_ARG_NULL);
}

/* A bad value gives GS_ERR_OPTION with a message naming the option and the value. */
static void test_bad_values(GsContext ctx) {
  CHECK_OK(GsOptionsInsertString(ctx, "-bn abc -bn2 12abc -bn3 99999999999999999999999 -brtol 1e "
                                      "-bflag maybe -btype sor -bname toolongvalue -bmissing "
                                      "-bnan nan"));
  GsInt n = 5;
  double r = 0.5;
  int b = 0, e = 0;
  char s[8];
  GsClearError(ctx);
  CHECK_ERR(GsOptionsGetInt(ctx, "-bn", &n, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-bn");
  CHECK_MSG(ctx, "abc");
  CHECK(n == 5, "a failed GetInt changed the value to %lld", (long long)n);
  CHECK_ERR(GsOptionsGetInt(ctx, "-bn2", &n, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "12abc");
  CHECK_ERR(GsOptionsGetInt(ctx, "-bn3", &n, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "99999999999999999999999");
  CHECK_ERR(GsOptionsGetReal(ctx, "-brtol", &r, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-brtol");
  CHECK_MSG(ctx, "'1e'");
  CHECK(r == 0.5, "a failed GetReal changed the value to %g", r);
  CHECK_ERR(GsOptionsGetReal(ctx, "-bnan", &r, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-bnan");
  CHECK_ERR(GsOptionsGetBool(ctx, "-bflag", &b, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-bflag");
  CHECK_MSG(ctx, "maybe");
  CHECK_ERR(GsOptionsGetEnum(ctx, "-btype", ksp_types, &e, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-btype");
  CHECK_MSG(ctx, "sor");
  CHECK_MSG(ctx, "bicgstab"); /* names the choices */
  CHECK_ERR(GsOptionsGetString(ctx, "-bname", s, sizeof s, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-bname");
  CHECK_MSG(ctx, "toolongvalue");
  CHECK_ERR(GsOptionsGetInt(ctx, "-bmissing", &n, NULL), GS_ERR_OPTION);
  CHECK_MSG(ctx, "-bmissing");
  CHECK_ERR(GsOptionsGetReal(ctx, "-bmissing", &r, NULL), GS_ERR_OPTION);
  CHECK_ERR(GsOptionsGetString(ctx, "-bmissing", s, sizeof s, NULL), GS_ERR_OPTION);
  CHECK_ERR(GsOptionsGetEnum(ctx, "-bmissing", ksp_types, &e, NULL), GS_ERR_OPTION);
  /* Exactly len-1 characters fit. */
  CHECK_OK(GsOptionsSetValue(ctx, "-fit", "1234567"));
  CHECK_OK(GsOptionsGetString(ctx, "-fit", s, sizeof s, NULL));
  CHECK(!strcmp(s, "1234567"), "-fit: '%s'", s);
  CHECK_OK(GsOptionsSetValue(ctx, "-fit", "12345678"));
  CHECK_ERR(GsOptionsGetString(ctx, "-fit", s, sizeof s, NULL), GS_ERR_OPTION);

  /* Argument errors. */
  CHECK_ERR(GsOptionsGetInt(NULL, "-n", &n, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsGetInt(ctx, NULL, &n, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsGetInt(ctx, "-n", NULL, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsGetReal(ctx, "-n", NULL, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsGetBool(ctx, "-n", NULL, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsGetString(ctx, "-n", NULL, 8, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsGetString(ctx, "-n", s, 0, NULL), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsOptionsGetEnum(ctx, "-n", NULL, &e, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsGetEnum(ctx, "-n", ksp_types, NULL, NULL), GS_ERR_ARG_NULL);
  char *argv[] = {"prog", "-a", NULL};
  CHECK_ERR(GsOptionsInsertArgs(ctx, 2, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsInsertArgs(ctx, -1, argv), GS_ERR_ARG_OUTOFRANGE);
  CHECK_ERR(GsOptionsInsertArgs(NULL, 2, argv), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsLeft(NULL, NULL, NULL), GS_ERR_ARG_NULL);
}

/* $GS_OPTIONS is read by GsInit; argv given to GsInitWithArgs comes later and wins; two contexts
 * have separate databases. */
static void test_env(void) {
  setenv("GS_OPTIONS", "-foo 5 -bar -ksp_type 'bicgstab'", 1);
  GsContext c1 = NULL, c2 = NULL;
  if (!CHECK_OK(GsInit("/cpu", &c1))) {
    GsInt foo = 0;
    int bar = 0, t = -1;
    CHECK_OK(GsOptionsGetInt(c1, "-foo", &foo, NULL));
    CHECK_OK(GsOptionsHasName(c1, "-bar", &bar));
    CHECK_OK(GsOptionsGetEnum(c1, "-ksp_type", ksp_types, &t, NULL));
    CHECK(foo == 5 && bar == 1 && t == 1, "GS_OPTIONS read as foo=%lld bar=%d ksp_type=%d",
          (long long)foo, bar, t);
  }
  char *argv[] = {"prog", "-foo", "6", "-only_c2", NULL};
  if (!CHECK_OK(GsInitWithArgs(4, argv, "/cpu", &c2))) {
    GsInt foo = 0;
    CHECK_OK(GsOptionsGetInt(c2, "-foo", &foo, NULL));
    CHECK(foo == 6, "argv did not override GS_OPTIONS: -foo = %lld", (long long)foo);
  }
  unsetenv("GS_OPTIONS");
  if (c1 && c2) {
    int has = -1;
    CHECK_OK(GsOptionsHasName(c1, "-only_c2", &has));
    CHECK(has == 0, "an option of one context is visible in another");
    CHECK_OK(GsOptionsSetValue(c1, "-foo", "7"));
    GsInt foo = 0;
    CHECK_OK(GsOptionsGetInt(c2, "-foo", &foo, NULL));
    CHECK(foo == 6, "setting -foo on one context changed the other (%lld)", (long long)foo);
  }
  CHECK_OK(GsDestroy(&c1));
  CHECK_OK(GsDestroy(&c2));
}

/* Options never read are counted and named. */
static void test_left(void) {
  GsContext ctx = NULL;
  if (CHECK_OK(GsInit("/cpu", &ctx))) return;
  hs_watch(ctx);
  CHECK_OK(GsOptionsInsertString(ctx, "-used 1 -unused_a 2 -unused_b -checked"));
  GsInt u = 0;
  int has = 0;
  CHECK_OK(GsOptionsGetInt(ctx, "-used", &u, NULL));
  CHECK_OK(GsOptionsHasName(ctx, "-checked", &has));
  int count = -1;
  CHECK_OK(GsOptionsLeft(ctx, NULL, &count));
  CHECK(count == 2, "GsOptionsLeft counts %d unused, expected 2", count);
  FILE *f = tmpfile();
  if (f) {
    count = -1;
    CHECK_OK(GsOptionsLeft(ctx, f, &count));
    char *s = hs_read_all(f);
    CHECK(count == 2, "count %d", count);
    CHECK(s && strstr(s, "-unused_a") && strstr(s, "-unused_b") && !strstr(s, "-used") &&
              !strstr(s, "-checked"),
          "GsOptionsLeft wrote:\n%s", s ? s : "");
    free(s);
    fclose(f);
  }
  CHECK_OK(GsOptionsLeft(ctx, NULL, NULL));
  /* Reading them empties the report. */
  CHECK_OK(GsOptionsHasName(ctx, "-unused_a", &has));
  CHECK_OK(GsOptionsHasName(ctx, "-unused_b", &has));
  CHECK_OK(GsOptionsLeft(ctx, NULL, &count));
  CHECK(count == 0, "%d options left after reading all", count);
  /* Setting an option again makes it unused again. */
  CHECK_OK(GsOptionsSetValue(ctx, "-used", "2"));
  CHECK_OK(GsOptionsLeft(ctx, NULL, &count));
  CHECK(count == 1, "re-set option: %d left, expected 1", count);
  /* Clearing it: absent again (the getter keeps its default, *set 0), no longer reported, the
   * others still there in their order; clearing an absent option does nothing; bad names. */
  CHECK_OK(GsOptionsInsertString(ctx, "-later 5"));
  CHECK_OK(GsOptionsClearValue(ctx, "-used"));
  CHECK_OK(GsOptionsLeft(ctx, NULL, &count));
  CHECK(count == 1, "after clearing -used: %d left, expected 1 (-later)", count);
  u = -7;
  int set = -1;
  CHECK_OK(GsOptionsGetInt(ctx, "-used", &u, &set));
  CHECK(u == -7 && set == 0, "cleared -used reads %lld (set %d), expected the default -7 (0)",
        (long long)u, set);
  CHECK_OK(GsOptionsClearValue(ctx, "-used"));
  CHECK_OK(GsOptionsClearValue(ctx, "-never_set"));
  f = tmpfile();
  if (f) {
    CHECK_OK(GsOptionsView(ctx, f));
    char *s = hs_read_all(f);
    const char *a = s ? strstr(s, "-unused_a 2") : NULL, *l = s ? strstr(s, "-later 5") : NULL;
    CHECK(s && strstr(s, "#Options (4):") && !strstr(s, "-used ") && a && l && a < l,
          "GsOptionsView after clearing -used:\n%s", s ? s : "");
    free(s);
    fclose(f);
  }
  u = 0;
  CHECK_OK(GsOptionsGetInt(ctx, "-later", &u, NULL));
  CHECK(u == 5, "-later reads %lld after a clear before it, expected 5", (long long)u);
  CHECK_ERR(GsOptionsClearValue(ctx, "noDash"), GS_ERR_OPTION);
  CHECK_MSG(ctx, "noDash");
  CHECK_ERR(GsOptionsClearValue(ctx, NULL), GS_ERR_ARG_NULL);
  CHECK_ERR(GsOptionsClearValue(NULL, "-used"), GS_ERR_ARG_NULL);
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));

  /* -options_left prints the report to stdout at GsDestroy, -options_left 0 prints nothing;
   * without either, the unused options are named on stderr (a misspelled option must not pass
   * silently), and nothing is said when every option was read. */
  const char *variants[][4] = {{"prog", "-options_left", "-zzz_unused", "1"},
                               {"prog", "-options_left", "0", "-zzz_unused"},
                               {"prog", "-zzz_unused", "1", NULL},
                               {"prog", "-zzz_read", "1", NULL}};
  const int want_out[] = {1, 0, 0, 0}, want_err[] = {0, 0, 1, 0};
  for (int k = 0; k < 4; k++) {
    int argc = variants[k][3] ? 4 : 3;
    if (CHECK_OK(GsInitWithArgs(argc, (char **)variants[k], "/cpu", &ctx))) continue;
    if (k == 3) {
      GsInt v = 0;
      CHECK_OK(GsOptionsGetInt(ctx, "-zzz_read", &v, NULL));
    }
    hs_capture_begin();
    hs_capture_stderr_begin();
    int rc = GsDestroy(&ctx);
    char *err = hs_capture_stderr_end();
    char *out = hs_capture_end();
    CHECK(rc == 0, "GsDestroy returned %d", rc);
    CHECK(out != NULL && err != NULL, "stdout or stderr capture failed");
    if (out && err) {
      const int printed = strstr(out, "-zzz_") != NULL, warned = strstr(err, "-zzz_") != NULL;
      CHECK(printed == want_out[k], "variant %d: -options_left report %s:\n%s", k,
            printed ? "printed but not asked for" : "missing", out);
      CHECK(warned == want_err[k], "variant %d: unused-option warning %s:\n%s", k,
            warned ? "given" : "missing", err);
      if (want_out[k])
        CHECK(!strstr(out, "-options_left"), "-options_left reported itself as unused:\n%s", out);
      if (want_err[k])
        CHECK(strstr(err, "Option left: name:-zzz_unused value: 1") &&
                  strstr(err, "-options_left 0 silences this"),
              "variant %d: the warning does not name the option and the way to silence it:\n%s", k,
              err);
    }
    free(out);
    free(err);
    if (ctx) GsDestroy(&ctx);
  }
}

/* GsDestroy always frees the context (and clears the handle), even when an option it reads at the
 * end has an unreadable value. */
static void test_destroy_bad_option(void) {
  const char *names[] = {"-options_left", "-log_view"};
  for (int k = 0; k < 2; k++) {
    GsContext ctx = NULL;
    if (CHECK_OK(GsInit("/cpu", &ctx))) return;
    CHECK_OK(GsOptionsSetValue(ctx, names[k], "maybe"));
    hs_capture_begin();
    int rc = GsDestroy(&ctx);
    free(hs_capture_end());
    CHECK(ctx == NULL, "GsDestroy with %s maybe returned %d (%s) and kept the context", names[k],
          rc, GsErrorName(rc));
    if (ctx) { /* free it for the leak checker */
      GsOptionsSetValue(ctx, names[k], "0");
      GsDestroy(&ctx);
    }
  }
}

int main(int argc, char **argv) {
  hs_begin("test_options", "/cpu", argc, argv);
  GsContext ctx = NULL;
  if (hs_init_backend("/cpu", &ctx)) return hs_finish();
  test_argv(ctx);
  test_string(ctx);
  test_bad_values(ctx);
  hs_unwatch(ctx);
  CHECK_OK(GsDestroy(&ctx));
  test_env();
  test_left();
  test_destroy_bad_option();
  return hs_finish();
}
