/* Real-time guarantee through the FMU: once an instance is initialized, fmi2SetReal (joint
 * forces and wrench inputs), fmi2DoStep with the fixed-step stepper (several internal steps
 * per call) and fmi2GetReal (coordinates, rates, tracked points) allocate nothing, on a tree
 * and on a closed loop. The dlopen'ed runtime's malloc is this executable's counting one
 * (count_alloc.h). Env: MBS_FMU, MBS_FMU_RUNTIME, MBS_MODELS (set by meson). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "count_alloc.h"
#include "fmu_harness.h"

/* A model of the models folder with an <input> inserted, packed. */
static void open_with_input(fmu_unit *u, const char *model, const char *input, const char *ident)
{
    char path[512], text[65536];
    snprintf(path, sizeof path, "%s/%s", getenv("MBS_MODELS"), model);
    char *body = fmu_slurp(path, NULL);
    char *end = strstr(body, "</robot>");
    snprintf(text, sizeof text, "%.*s%s\n%s", (int)(end - body), body, input, end);
    free(body);
    char name[80];
    snprintf(name, sizeof name, "%s.xml", ident);
    fmu_unit_open(u, fmu_scratch(0, name, text), ident);
}

/* Set every input, step 10 communication steps of 10 internal steps, read every output:
   counted. */
static long counted_run(const fmu_unit *u, fmi2Component c)
{
    fmi2ValueReference in[64], out[64];
    int nin = 0, nout = 0;
    for (int vr = 0; vr < u->nvar && nin < 64 && nout < 64; ++vr) {
        if (!strcmp(u->causality[vr], "input")) in[nin++] = (fmi2ValueReference)vr;
        if (!strcmp(u->causality[vr], "output")) out[nout++] = (fmi2ValueReference)vr;
    }
    double value[64], t = 0.0;
    for (int k = 0; k < nin; ++k) value[k] = 0.1 * (k + 1);
    int bad = 0;
    count_begin();
    bad |= u->f.set_real(c, in, (size_t)nin, value) != fmi2OK;
    for (int k = 0; k < 10; ++k, t += 0.01) bad |= u->f.do_step(c, t, 0.01, fmi2True) != fmi2OK;
    bad |= u->f.get_real(c, out, (size_t)nout, value) != fmi2OK;
    const long n = count_end();
    assert_false(bad);
    assert_true(nin >= 6 && nout >= 3); /* a wrench input and a tracked point at least */
    return n;
}

static void test_fmu_no_alloc(void **state)
{
    (void)state;
    fmu_unit u[2];
    open_with_input(&u[0], "double_pendulum.xml", "<input name=\"push\" link=\"link2\" point=\"0.5 0 0\"/>", "tree");
    open_with_input(&u[1], "planar_loop_tilted.xml", "<input name=\"push\" link=\"rod3\" point=\"0 0.6 0.35\"/>", "loop");
    for (int i = 0; i < 2; ++i) {
        fmi2Component c = fmu_start(&u[i], "rt", 0.0, 0, 1e-3);
        const long n = counted_run(&u[i], c);
        if (n != 0) fail_msg("%s: %ld allocations and frees in set, step, get", u[i].ident, n);
        u[i].f.free_instance(c);
        fmu_unit_close(&u[i]);
    }
    fmu_scratch_clean();
}

int main(void)
{
    if (!getenv("MBS_FMU") || !getenv("MBS_FMU_RUNTIME") || !getenv("MBS_MODELS")) {
        printf("test_fmu_noalloc: MBS_FMU, MBS_FMU_RUNTIME and MBS_MODELS must be set (meson does)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fmu_no_alloc)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
