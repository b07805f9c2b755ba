/* bench_load: loading (mbs_builder_load) and compiling a URDF of an N-link chain (written
   here the way ROS writes it: inertial, visual, collision, limit and dynamics blocks), median
   ms per load; then the load alone of a 10^5-link chain, once (linear in links and joints:
   the names are hashed). Budget: a 30-link URDF under 5 ms, 10^5 links under 2 s.
   Usage: bench_load [--quick] [--cpu-time] */
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"

static const char *file_path;

static int call_load(void *ctx, int k)
{
    (void)ctx, (void)k;
    mbs_builder *b = mbs_builder_create();
    mbs_model *m = NULL;
    int st = mbs_builder_load(b, file_path);
    if (st == MBS_OK) st = mbs_compile(b, &m);
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    return st;
}

/* The URDF of an n-link chain into path. */
static int write_chain(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "<?xml version=\"1.0\"?>\n<robot name=\"chain%d\">\n  <link name=\"base_link\"/>\n", n);
    for (int i = 0; i < n; ++i) {
        fprintf(f, "  <link name=\"link%d\">\n    <inertial>\n      <origin xyz=\"0.15 0 0\" rpy=\"0 0 0\"/>\n"
                   "      <mass value=\"%.3f\"/>\n      <inertia ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/>\n"
                   "    </inertial>\n    <visual><origin xyz=\"0.15 0 0\" rpy=\"0 1.5708 0\"/><geometry><cylinder radius=\"0.03\" length=\"0.3\"/></geometry></visual>\n"
                   "    <collision><geometry><cylinder radius=\"0.03\" length=\"0.3\"/></geometry></collision>\n  </link>\n",
                i, 1.0 + 0.01 * i);
        char parent[32];
        if (i == 0)
            snprintf(parent, sizeof parent, "base_link");
        else
            snprintf(parent, sizeof parent, "link%d", i - 1);
        fprintf(f, "  <joint name=\"joint%d\" type=\"revolute\">\n    <parent link=\"%s\"/>\n    <child link=\"link%d\"/>\n"
                   "    <origin xyz=\"%s 0 0\" rpy=\"0 0 0\"/>\n    <axis xyz=\"0 %d %d\"/>\n"
                   "    <limit lower=\"-3\" upper=\"3\" effort=\"50\" velocity=\"2\"/>\n    <dynamics damping=\"0.05\"/>\n  </joint>\n",
                i, parent, i, i == 0 ? "0" : "0.3", i % 2, 1 - i % 2);
    }
    fputs("</robot>\n", f);
    return fclose(f);
}

/* The load alone (no compile) of an n-link chain, timed once; 0 or 1. */
static int load_large(int n)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/mbs_bench_load_%d.urdf", n);
    if (write_chain(path, n) != 0) return 1;
    mbs_builder *b = mbs_builder_create();
    const double t0 = bench_now();
    const int st = mbs_builder_load(b, path);
    const double s = bench_now() - t0;
    if (st != MBS_OK) fprintf(stderr, "%s\n", mbs_builder_error(b));
    else printf("chain %-6d load %8.3f s (budget 2 s)\n", n, s);
    mbs_builder_destroy(b);
    remove(path);
    return st != MBS_OK;
}

int main(int argc, char **argv)
{
    bench_opts opts;
    if (bench_parse_args(argc, argv, &opts) != 0) {
        fprintf(stderr, "usage: bench_load [--quick] [--cpu-time]\n");
        return 2;
    }
    bench_print_machine();
    printf("%-10s %14s\n", "URDF", "load+compile (median)");
    const int sizes[3] = {7, 30, 100};
    for (int i = 0; i < 3; ++i) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/mbs_bench_load_%d.urdf", sizes[i]);
        if (write_chain(path, sizes[i]) != 0) return 1;
        file_path = path;
        if (call_load(NULL, 0) != MBS_OK) {
            mbs_builder *b = mbs_builder_create();
            mbs_builder_load(b, path);
            fprintf(stderr, "%s\n", mbs_builder_error(b));
            mbs_builder_destroy(b);
            return 1;
        }
        const double ns = bench_time(call_load, NULL, &opts);
        printf("chain %-4d %11.3f ms\n", sizes[i], ns * 1e-6);
        remove(path);
    }
    return load_large(100000);
}
