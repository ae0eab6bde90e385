/* A perceptron in C that speaks markone's conformance protocol: it reads one problem
 * as JSON on stdin and writes its answer as JSON on stdout.
 *
 *   cc -O2 -ffp-contract=off -o perceptron examples/perceptron.c
 *   markone adversary check suite/ --cmd ./perceptron
 *
 * Options (to see the checker's diagnoses): --rule strict  (update only when y w.x < 0)
 *                                           --rule zero-correct  (0 predicts +1)
 *                                           --eta 0.5  (a learning rate other than 1)
 * Convention: --start 0.5  (every weight starts at 0.5, not 0; declare it with
 *                          --profile arithmetic=float64,start=0.5)
 * C doubles are float64, so it declares arithmetic float64 when markone's handshake
 * asks what it claims. Every sum runs in index order from 0 (-ffp-contract=off: no
 * fused multiply-add), as the checker's float64 replay does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct J { char type; double num; char *str; struct J **item; char **key; int n; } J;
static const char *p;   /* the parser's position in the input */

static void die(const char *why) { fprintf(stderr, "perceptron: %s\n", why); exit(2); }
static void *grow(void *a, int n, size_t size) {
  void *b = realloc(a, (size_t)(n + 1) * size);
  if (!b) die("out of memory");
  return b;
}
static void ws(void) { while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++; }

static char *string(void) {             /* escapes kept as written: names need none */
  const char *start = ++p;
  while (*p && *p != '"') p += (*p == '\\' && p[1]) ? 2 : 1;
  if (!*p) die("unterminated string");
  char *s = malloc((size_t)(p - start) + 1);
  if (!s) die("out of memory");
  memcpy(s, start, (size_t)(p - start));
  s[p++ - start] = 0;
  return s;
}

static J *value(void) {
  J *v = calloc(1, sizeof *v);
  if (!v) die("out of memory");
  ws();
  v->type = *p;
  if (*p == '{' || *p == '[') {
    char close = *p == '{' ? '}' : ']';
    p++, ws();
    while (*p && *p != close) {
      if (close == '}') {
        if (*p != '"') die("expected a key");
        v->key = grow(v->key, v->n, sizeof *v->key);
        v->key[v->n] = string();
        ws();
        if (*p++ != ':') die("expected ':'");
      }
      v->item = grow(v->item, v->n, sizeof *v->item);
      v->item[v->n++] = value();
      ws();
      if (*p == ',') p++, ws();
    }
    if (*p++ != close) die("unterminated array or object");
  } else if (*p == '"') {
    v->str = string();
  } else if (*p == 't' || *p == 'f' || *p == 'n') {
    v->num = *p == 't';
    p += *p == 'f' ? 5 : 4;
  } else {
    char *end;
    v->type = '0';
    v->num = strtod(p, &end);
    if (end == p) die("not JSON");
    p = end;
  }
  return v;
}

static J *get(const J *o, const char *k) {
  for (int i = 0; i < o->n; i++) if (!strcmp(o->key[i], k)) return o->item[i];
  return NULL;
}

static const char *rule = "textbook";
static double eta = 1;
static double start = 0;   /* --start: every weight's first value */
static int mistake(double y, double s) {
  if (!strcmp(rule, "strict")) return y * s < 0;
  if (!strcmp(rule, "zero-correct")) return (s >= 0 ? 1 : -1) != y;
  return y * s <= 0;                    /* a zero score is a mistake */
}
static double dot(const double *a, const double *b, int d) {
  double s = 0;
  for (int j = 0; j < d; j++) s += a[j] * b[j];
  return s;
}
static int sign(double s) { return s >= 0 ? 1 : -1; }
static double *row(const J *x, int d) {  /* x, with the constant 1 last when d says */
  double *r = calloc((size_t)d, sizeof *r);
  if (!r) die("out of memory");
  for (int j = 0; j < d; j++) r[j] = j < x->n ? x->item[j]->num : 1;
  return r;
}
static void vector(const double *v, int d) {
  for (int j = 0; j < d; j++) printf("%s%.17g", j ? ", " : "[", v[j]);
  printf(d ? "]" : "[]");
}

static void kernel(const J *pr) {
  J *G = get(pr, "gram"), *y = get(pr, "y"), *order = get(pr, "order");
  int n = y->n, *alpha = calloc((size_t)n, sizeof *alpha), m = 0;
  for (int t = 0; t < order->n; t++) {
    int i = (int)order->item[t]->num;
    double f = 0;
    for (int j = 0; j < n; j++) f += alpha[j] * y->item[j]->num * G->item[j]->item[i]->num;
    if (mistake(y->item[i]->num, f)) alpha[i] += 1, m++;
  }
  printf("{\"alpha\": [");
  for (int i = 0; i < n; i++) printf("%s%d", i ? ", " : "", alpha[i]);
  printf("], \"mistakes\": %d}\n", m);
}

/* d weights, each starting at v */
static double *filled(int d, double v) {
  double *w = calloc((size_t)d, sizeof *w);
  if (!w) die("out of memory");
  for (int j = 0; j < d; j++) w[j] = v;
  return w;
}

static void multiclass(const J *pr, double **X, int d) {
  J *y = get(pr, "y"), *order = get(pr, "order"), *q = get(pr, "queries");
  int K = (int)get(pr, "n_classes")->num, m = 0;
  double **W = calloc((size_t)K, sizeof *W);
  for (int k = 0; k < K; k++) W[k] = filled(d, start);
  for (int t = 0; t < order->n; t++) {
    int i = (int)order->item[t]->num, c = (int)y->item[i]->num, best = 0;
    for (int k = 1; k < K; k++) if (dot(W[k], X[i], d) > dot(W[best], X[i], d)) best = k;
    if (best != c) {
      for (int j = 0; j < d; j++) W[c][j] += eta * X[i][j], W[best][j] -= eta * X[i][j];
      m++;
    }
  }
  printf("{\"W\": [");
  for (int k = 0; k < K; k++) fputs(k ? ", " : "", stdout), vector(W[k], d);
  printf("], \"mistakes\": %d, \"predictions\": [", m);
  for (int t = 0; t < q->n; t++) {
    double *x = row(q->item[t], d);
    int best = 0;
    for (int k = 1; k < K; k++) if (dot(W[k], x, d) > dot(W[best], x, d)) best = k;
    printf("%s%d", t ? ", " : "", best);
  }
  printf("]}\n");
}

static void binary(const J *pr, double **X, int d) {
  J *y = get(pr, "y"), *order = get(pr, "order"), *q = get(pr, "queries");
  const char *variant = get(pr, "variant")->str;
  int T = order->n, m = 0, run = 0, best = 0, last = 0;
  double *w = filled(d, start), *pocket = filled(d, start);
  double *sum = calloc((size_t)d, sizeof *w), **iterate = calloc((size_t)T + 1, sizeof *iterate);
  int *votes = calloc((size_t)T + 1, sizeof *votes);
  iterate[0] = filled(d, start);  /* the start, with 0 votes so far */
  for (int t = 0; t < T; t++) {
    int i = (int)order->item[t]->num;
    double yi = y->item[i]->num;
    if (mistake(yi, dot(w, X[i], d))) {
      for (int j = 0; j < d; j++) w[j] += eta * yi * X[i][j];
      m++, run = 0;
      iterate[++last] = memcpy(grow(NULL, d - 1, sizeof *w), w, (size_t)d * sizeof *w);
    } else {
      run++, votes[last]++;
      if (run > best) best = run, memcpy(pocket, w, (size_t)d * sizeof *w);
    }
    for (int j = 0; j < d; j++) sum[j] += w[j];
  }
  if (!strcmp(variant, "voted")) {
    printf("{\"predictions\": [");
    for (int t = 0; t < q->n; t++) {
      double *x = row(q->item[t], d), s = 0;
      for (int k = 0; k <= last; k++) s += votes[k] * sign(dot(iterate[k], x, d));
      printf("%s%d", t ? ", " : "", sign(s));
    }
    printf("], \"mistakes\": %d}\n", m);
    return;
  }
  if (!strcmp(variant, "averaged")) for (int j = 0; j < d; j++) w[j] = sum[j] / T;
  printf("{\"w\": ");
  vector(strcmp(variant, "pocket") ? w : pocket, d);
  printf(", \"mistakes\": %d}\n", m);
}

int main(int argc, char **argv) {
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--rule")) rule = argv[a + 1];
    else if (!strcmp(argv[a], "--eta")) eta = strtod(argv[a + 1], NULL);
    else if (!strcmp(argv[a], "--start")) start = strtod(argv[a + 1], NULL);
    else die("options: --rule textbook|strict|zero-correct, --eta NUMBER, --start NUMBER");
  }
  size_t n = 0, cap = 1 << 16;
  char *text = malloc(cap);
  for (size_t got; text && (got = fread(text + n, 1, cap - n - 1, stdin)) > 0;)
    if ((n += got) + 1 == cap) text = realloc(text, cap *= 2);
  if (!text) die("out of memory");
  text[n] = 0, p = text;
  J *pr = value(), *format = get(pr, "format");
  if (format && !strcmp(format->str, "markone.conformance.handshake/1")) {
    printf("{\"profile\": {\"arithmetic\": \"float64\"}}\n");
    return 0;
  }
  if (!strcmp(get(pr, "task")->str, "kernel")) return kernel(pr), 0;
  J *Xs = get(pr, "X");
  int d = Xs->item[0]->n + (int)get(pr, "intercept")->num;
  double **X = calloc((size_t)Xs->n, sizeof *X);
  for (int i = 0; i < Xs->n; i++) X[i] = row(Xs->item[i], d);
  if (!strcmp(get(pr, "task")->str, "multiclass")) multiclass(pr, X, d);
  else binary(pr, X, d);
  return 0;
}
