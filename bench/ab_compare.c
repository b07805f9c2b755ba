/* ab_compare A.so B.so [FUNCS] [REPS]: load two ab_runner builds (bench/ab.sh makes them) and
   time them alternately, batch for batch, on the benchmark models; prints the smallest CPU
   ns per body of each over REPS batch pairs and the ratio B/A. FUNCS: letters of a (ABA,
   mbs_forward_dynamics), r (RNEA, mbs_inverse_dynamics), c (mbs_mass_matrix), p
   (mbs_forward_dynamics on bench_planar's planar chains, planar path); default arc. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef double (*ab_run_fn)(char func, int model, long n);

/* The ab_run of a runner shared object, or NULL with a message. */
static ab_run_fn load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "ab_compare: %s\n", dlerror());
        return NULL;
    }
    ab_run_fn f;
    *(void **)(&f) = dlsym(h, "ab_run");
    if (!f) fprintf(stderr, "ab_compare: %s has no ab_run\n", path);
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s A.so B.so [FUNCS] [REPS]\n", argv[0]);
        return 2;
    }
    const ab_run_fn ra = load(argv[1]), rb = load(argv[2]);
    if (!ra || !rb) return 1;
    const char *funcs = argc > 3 ? argv[3] : "arc";
    const int reps = argc > 4 ? atoi(argv[4]) : 40;
    static const char *const names[5] = {"chain 7", "chain 30", "chain 100", "chain 1000",
                                         "humanoid"};
    static const char *const pnames[4] = {"planar 7", "planar 30", "planar 100", "planar 1000"};
    for (const char *f = funcs; *f; ++f) {
        printf("%s: CPU ns per body, smallest of %d alternating batches\n",
               *f == 'a' ? "ABA" : *f == 'r' ? "RNEA" : *f == 'p' ? "planar ABA" : "mass matrix",
               reps);
        printf("  %-10s %9s %9s %7s\n", "model", "A", "B", "B/A");
        for (int i = 0; i < (*f == 'p' ? 4 : 5); ++i) {
            const long n = i == 3 ? (*f == 'c' ? 1 : 20) : i == 2 ? 100 : 300;
            double ba = 1e300, bb = 1e300;
            for (int r = 0; r < reps; ++r) {
                const double a = ra(*f, i, n), b = rb(*f, i, n);
                if (a < 0 || b < 0) {
                    fprintf(stderr, "ab_compare: a call failed\n");
                    return 1;
                }
                if (a < ba) ba = a;
                if (b < bb) bb = b;
            }
            printf("  %-10s %9.1f %9.1f %7.3f\n", *f == 'p' ? pnames[i] : names[i], ba, bb,
                   bb / ba);
            fflush(stdout);
        }
    }
    return 0;
}
