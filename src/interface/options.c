/* Options database in PETSc's style: "-name value" pairs from argv, a string or $GS_OPTIONS, read
 * through typed getters; options never read can be reported (-options_left). Each context has its
 * own database, so two contexts in one process do not see each other's options. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../gsimpl.h"

/* "-name" starts an option; "-1.5" or "-" alone does not (it is a value). */
static int is_option_name(const char *s) {
  return s[0] == '-' && s[1] != '-' && (isalpha((unsigned char)s[1]) || s[1] == '_');
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static GsOption *find(GsContext ctx, const char *name) {
  for (int i = ctx->noptions - 1; i >= 0; i--)
    if (!strcmp(ctx->options[i].name, name)) return &ctx->options[i];
  return NULL;
}

int GsOptionsSetValue(GsContext ctx, const char *name, const char *value) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheck(is_option_name(name), ctx, GS_ERR_OPTION,
          "option name '%s' must start with '-' followed by a letter", name);
  GsOption *o = find(ctx, name);
  char *v = NULL;
  if (value) {
    v = dup_str(value);
    GsCheck(v != NULL, ctx, GS_ERR_MEMORY, "cannot store option %s", name);
  }
  if (o) { /* a later setting overrides an earlier one */
    free(o->value);
    o->value = v;
    o->used = 0;
    return 0;
  }
  if (ctx->noptions == ctx->cap_options) {
    int cap = ctx->cap_options ? 2 * ctx->cap_options : 16;
    GsOption *grown = realloc(ctx->options, (size_t)cap * sizeof *grown);
    if (!grown) free(v);
    GsCheck(grown != NULL, ctx, GS_ERR_MEMORY, "cannot grow the options database");
    ctx->options = grown;
    ctx->cap_options = cap;
  }
  char *n = dup_str(name);
  if (!n) free(v);
  GsCheck(n != NULL, ctx, GS_ERR_MEMORY, "cannot store option %s", name);
  ctx->options[ctx->noptions++] = (GsOption){n, v, 0};
  return 0;
}

int GsOptionsClearValue(GsContext ctx, const char *name) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheck(is_option_name(name), ctx, GS_ERR_OPTION,
          "option name '%s' must start with '-' followed by a letter", name);
  GsOption *o = find(ctx, name);
  if (!o) return 0;
  free(o->name);
  free(o->value);
  const int i = (int)(o - ctx->options);
  memmove(o, o + 1, (size_t)(ctx->noptions - i - 1) * sizeof *o); /* keep the order of the rest */
  ctx->noptions--;
  return 0;
}

static int insert_tokens(GsContext ctx, int ntok, char **tok) {
  for (int i = 0; i < ntok; i++) {
    if (!is_option_name(tok[i])) continue; /* positional arguments belong to the program */
    const char *name = tok[i], *value = NULL;
    if (i + 1 < ntok && !is_option_name(tok[i + 1])) value = tok[++i];
    GsCall(GsOptionsSetValue(ctx, name, value));
  }
  return 0;
}

int GsOptionsInsertArgs(GsContext ctx, int argc, char **argv) {
  GsCheckHandle(NULL, ctx);
  GsCheck(argc >= 0, ctx, GS_ERR_ARG_OUTOFRANGE, "argc = %d is negative", argc);
  GsCheck(argc == 0 || argv, ctx, GS_ERR_ARG_NULL, "argv is NULL with argc = %d", argc);
  if (argc <= 1) return 0;
  GsCall(insert_tokens(ctx, argc - 1, argv + 1));
  return 0;
}

void GsOptionsFree(GsContext ctx) {
  for (int i = 0; i < ctx->noptions; i++) {
    free(ctx->options[i].name);
    free(ctx->options[i].value);
  }
  free(ctx->options);
  ctx->options = NULL;
  ctx->noptions = ctx->cap_options = 0;
}

int GsOptionsInsertString(GsContext ctx, const char *str) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, str);
  /* Split on blanks; single or double quotes group words into one value. */
  size_t len = strlen(str);
  char *buf = malloc(len + 1);
  char **tok = malloc((len / 2 + 2) * sizeof *tok);
  if (!buf || !tok) {
    free(buf);
    free(tok);
    return GsError(ctx, GS_ERR_MEMORY, "cannot parse an options string of %zu characters", len);
  }
  int ntok = 0;
  size_t k = 0;
  const char *p = str;
  int ierr = 0;
  while (*p) {
    while (*p && isspace((unsigned char)*p))
      p++;
    if (!*p) break;
    tok[ntok++] = buf + k;
    while (*p && !isspace((unsigned char)*p)) {
      if (*p == '"' || *p == '\'') {
        char q = *p++;
        while (*p && *p != q)
          buf[k++] = *p++;
        if (!*p) {
          ierr =
              GsError(ctx, GS_ERR_OPTION, "unterminated %c quote in options string \"%s\"", q, str);
          break;
        }
        p++;
      } else {
        buf[k++] = *p++;
      }
    }
    buf[k++] = 0;
    if (ierr) break;
  }
  if (!ierr) ierr = insert_tokens(ctx, ntok, tok);
  free(buf);
  free(tok);
  if (ierr) return GsErrorTrace(ierr, __FILE__, __LINE__, __func__);
  return 0;
}

/* Look an option up for a getter and mark it used. */
static GsOption *lookup(GsContext ctx, const char *name, int *set) {
  GsOption *o = find(ctx, name);
  if (o) o->used = 1;
  if (set) *set = o != NULL;
  return o;
}

int GsOptionsHasName(GsContext ctx, const char *name, int *set) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheckHandle(ctx, set);
  lookup(ctx, name, set);
  return 0;
}

int GsOptionsGetInt(GsContext ctx, const char *name, GsInt *value, int *set) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheckHandle(ctx, value);
  GsOption *o = lookup(ctx, name, set);
  if (!o) return 0;
  GsCheck(o->value, ctx, GS_ERR_OPTION, "option %s needs an integer value", name);
  char *end = NULL;
  errno = 0;
  long long v = strtoll(o->value, &end, 10);
  GsCheck(end != o->value && *end == 0 && errno == 0, ctx, GS_ERR_OPTION,
          "option %s: cannot read '%s' as an integer", name, o->value);
  *value = (GsInt)v;
  return 0;
}

int GsOptionsGetReal(GsContext ctx, const char *name, double *value, int *set) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheckHandle(ctx, value);
  GsOption *o = lookup(ctx, name, set);
  if (!o) return 0;
  GsCheck(o->value, ctx, GS_ERR_OPTION, "option %s needs a real value", name);
  char *end = NULL;
  errno = 0;
  double v = strtod(o->value, &end);
  GsCheck(end != o->value && *end == 0 && errno == 0 && isfinite(v), ctx, GS_ERR_OPTION,
          "option %s: cannot read '%s' as a finite real number", name, o->value);
  *value = v;
  return 0;
}

int GsOptionsGetBool(GsContext ctx, const char *name, int *value, int *set) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheckHandle(ctx, value);
  GsOption *o = lookup(ctx, name, set);
  if (!o) return 0;
  if (!o->value) {
    *value = 1;
    return 0;
  }
  static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no",
                                                                              "off"};
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(o->value, yes[i])) {
      *value = 1;
      return 0;
    }
    if (!strcasecmp(o->value, no[i])) {
      *value = 0;
      return 0;
    }
  }
  return GsError(ctx, GS_ERR_OPTION,
                 "option %s: '%s' is not a boolean (use 1/0, true/false, yes/no or on/off)", name,
                 o->value);
}

int GsOptionsGetString(GsContext ctx, const char *name, char *value, size_t len, int *set) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheckHandle(ctx, value);
  GsCheck(len > 0, ctx, GS_ERR_ARG_OUTOFRANGE, "buffer length for option %s is 0", name);
  GsOption *o = lookup(ctx, name, set);
  if (!o) return 0;
  GsCheck(o->value, ctx, GS_ERR_OPTION, "option %s needs a value", name);
  size_t n = strlen(o->value);
  GsCheck(n < len, ctx, GS_ERR_OPTION, "option %s: value '%s' is longer than %zu characters", name,
          o->value, len - 1);
  memcpy(value, o->value, n + 1);
  return 0;
}

int GsOptionsGetEnum(GsContext ctx, const char *name, const char *const *choices, int *value,
                     int *set) {
  GsCheckHandle(NULL, ctx);
  GsCheckHandle(ctx, name);
  GsCheckHandle(ctx, choices);
  GsCheckHandle(ctx, value);
  GsOption *o = lookup(ctx, name, set);
  if (!o) return 0;
  char list[512] = "";
  size_t k = 0;
  for (int i = 0; choices[i]; i++) {
    if (o->value && !strcmp(o->value, choices[i])) {
      *value = i;
      return 0;
    }
    int m = snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", choices[i]);
    if (m > 0 && (size_t)m < sizeof list - k) k += (size_t)m;
  }
  return GsError(ctx, GS_ERR_OPTION, "option %s: '%s' is not one of: %s", name,
                 o->value ? o->value : "(no value)", list);
}

int GsOptionsLeft(GsContext ctx, FILE *f, int *count) {
  GsCheckHandle(NULL, ctx);
  int n = 0;
  for (int i = 0; i < ctx->noptions; i++) {
    const GsOption *o = &ctx->options[i];
    if (o->used) continue;
    if (f) {
      if (!n) fprintf(f, "WARNING! There are options you set that were not used:\n");
      fprintf(f, "  Option left: name:%s%s%s\n", o->name, o->value ? " value: " : " (no value)",
              o->value ? o->value : "");
    }
    n++;
  }
  if (f && !n) fprintf(f, "There are no unused options.\n");
  if (count) *count = n;
  return 0;
}

int GsOptionsView(GsContext ctx, FILE *f) {
  GsCheckHandle(NULL, ctx);
  if (!f) f = stdout;
  fprintf(f, "#Options (%d):\n", ctx->noptions);
  for (int i = 0; i < ctx->noptions; i++)
    fprintf(f, "%s%s%s\n", ctx->options[i].name, ctx->options[i].value ? " " : "",
            ctx->options[i].value ? ctx->options[i].value : "");
  return 0;
}
