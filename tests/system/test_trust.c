/* Answers that must be right or refused (the second-wave elements and the fixed-step
 * steppers): RK4's divergence guard on by default -- a step beyond the method's stability
 * fails with MBS_ERR_SOLVER, state restored bit for bit, instead of returning MBS_OK while
 * the energy grows to 1e305; a stable step is never refused over 10^5 steps. Nodes (forces
 * in series): every balance returned is the closed-form equilibrium or refused naming the
 * element, and a start position picks the branch meant. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A mass of 1 kg on a prismatic joint with a spring of stiffness k, no gravity, started
   0.01 m from rest: omega = sqrt(k). */
static mbs_model *spring_model(double k, double g)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_gravity(b, (const double[3]){0, 0, -g}), MBS_OK);
    test_prismatic_body(b, "mass", "x");
    assert_int_equal(mbs_add_joint_spring_damper(b, 0, 0, k, 0.0, 0.0), 0);
    return test_compile_ok(b);
}

static double energy(mbs_data *d)
{
    double ke, pe;
    assert_int_equal(mbs_energy(d, &ke, &pe), MBS_OK);
    return ke + pe;
}

/* RK4 with the library's default stepper settings at h omega from 3 to 1e3: the first step
   fails, the state is restored, the message suggests a step; that step then runs 10^5 steps
   with MBS_OK and the energy within RK4's dissipation. */
static void test_guard_refuses_unstable_steps(void **state)
{
    (void)state;
    const double k = 1e8, w = 1e4, hw[] = {3.0, 5.0, 10.0, 1e3};
    mbs_model *m = spring_model(k, 0.0);
    for (int c = 0; c < 4; ++c) {
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.01;
        const double e0 = energy(d);
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        mbs_stepper *s = mbs_stepper_create(d, &def);
        const double h = hw[c] / w;
        assert_int_equal(mbs_stepper_step(s, h), MBS_ERR_SOLVER);
        assert_true(mbs_data_q(d)[0] == 0.01 && mbs_data_v(d)[0] == 0.0);
        assert_true(mbs_data_time(d) == 0.0);
        const char *msg = strstr(mbs_data_error(d), "use dt <= ");
        assert_non_null(strstr(mbs_data_error(d), "beyond the method's stability"));
        assert_non_null(msg);
        const double hs = strtod(msg + 10, NULL);
        assert_true(hs > 0.0 && hs * w <= 2.2 && hs * w >= 1.5);
        for (long i = 0; i < 100000; ++i)
            if (mbs_stepper_step(s, hs) != MBS_OK) fail_msg("%s", mbs_data_error(d));
        const double e = energy(d);
        assert_true(e <= e0 * (1.0 + 1e-9)); /* RK4 inside its region only dissipates */
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
    }
    mbs_model_destroy(m);
}

/* Without the guard (no_divergence_guard, a hard real-time loop) the old behaviour: MBS_OK
   while the energy explodes, until it overflows. */
static void test_guard_opt_out(void **state)
{
    (void)state;
    mbs_model *m = spring_model(1e8, 0.0);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.01;
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    def.no_divergence_guard = 1;
    mbs_stepper *s = mbs_stepper_create(d, &def);
    int n = 0;
    while (n < 1000 && mbs_stepper_step(s, 1e-3) == MBS_OK) ++n;
    assert_true(n > 50 && n < 1000);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* Stable steps are never refused: the spring at h omega 2.5 and 0.1, with and without
   gravity, from rest at its equilibrium (rounding only) and displaced, 10^5 steps each. */
static void test_guard_accepts_stable_steps(void **state)
{
    (void)state;
    const double hw[] = {2.5, 0.1}, q0[] = {0.0, 0.01, -9.81e-8};
    for (int gi = 0; gi < 2; ++gi) {
        mbs_model *m = spring_model(1e8, gi ? 9.81 : 0.0);
        for (int c = 0; c < 2; ++c)
            for (int k = 0; k < 3; ++k) {
                mbs_data *d = mbs_data_create(m);
                mbs_data_q(d)[0] = q0[k];
                mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
                mbs_stepper *s = mbs_stepper_create(d, &def);
                for (long i = 0; i < 100000; ++i)
                    if (mbs_stepper_step(s, hw[c] / 1e4) != MBS_OK)
                        fail_msg("g %d, h omega %g, q0 %g, step %ld: %s", gi, hw[c], q0[k], i,
                                 mbs_data_error(d));
                mbs_stepper_destroy(s);
                mbs_data_destroy(d);
            }
        mbs_model_destroy(m);
    }
}

/* Stiff contact, the common case the guard is for: a ball of 1 kg dropped 0.2 m onto an
   elastic stop of 1e8 N/m with RK4 at 1 ms fails (MBS_ERR_SOLVER) on the first step in
   contact, state restored, instead of returning MBS_OK from a bounce whose energy explodes;
   at 1e5 N/m (h omega 0.3) 10^5 steps run and the energy never rises. */
static void test_guard_stiff_contact(void **state)
{
    (void)state;
    const double k[2] = {1e8, 1e5};
    for (int c = 0; c < 2; ++c) {
        mbs_builder *b = mbs_builder_create();
        test_prismatic_body(b, "ball", "z");
        mbs_joint_stop_def sd = mbs_default_joint_stop_def();
        sd.joint = 0, sd.lower = 0.0, sd.law = MBS_STOP_ELASTIC, sd.stiffness = k[c];
        assert_int_equal(mbs_add_joint_stop(b, &sd), 0);
        mbs_model *m = test_compile_ok(b);
        mbs_data *d = mbs_data_create(m);
        mbs_data_q(d)[0] = 0.2;
        const double e0 = energy(d);
        mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
        mbs_stepper *s = mbs_stepper_create(d, &def);
        int st = MBS_OK;
        long i = 0;
        double emax = e0;
        for (; i < 100000 && st == MBS_OK; ++i) {
            st = mbs_stepper_step(s, 1e-3);
            emax = fmax(emax, energy(d));
        }
        if (c == 0) {
            assert_int_equal(st, MBS_ERR_SOLVER);
            assert_true(i > 150 && i < 250); /* the fall takes 0.2 s */
            print_message("stiff contact: refused at step %ld, q %.3g\n", i, mbs_data_q(d)[0]);
            /* restored: the state the last good step left (a piece into the contact) */
            assert_true(mbs_data_q(d)[0] > -1e-3 && energy(d) <= e0 * (1.0 + 1e-9));
            assert_non_null(strstr(mbs_data_error(d), "beyond the method's stability"));
        } else {
            assert_int_equal(st, MBS_OK);
        }
        assert_true(emax <= e0 * (1.0 + 1e-9));
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
}

/* ---------------------------------------------------------------- nodes */

/* Three collinear unit springs: world x = 0 to the node (rest 0.5), world x = 4 to the node
   (rest 8/3), the node to a unit mass on a prismatic joint at x = 2 + q (rest 1). While the
   node lies between 0 and the body, all three in tension or compression along x, its
   balance is -(x - 1/2) + (4 - x - 8/3) + (2 + q - x - 1) = 0: x = (17/6 + q) / 3. *node is
   the node's body id. start: NULL none. */
static mbs_model *collinear_springs(const double *start, int *node)
{
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_no_gravity(b), MBS_OK);
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "slider";
    assert_int_equal(mbs_add_body(b, &bd), 1);
    mbs_body_def nd = mbs_default_body_def();
    nd.name = "node";
    nd.mass = 0.0;
    memset(nd.inertia, 0, sizeof nd.inertia);
    *node = mbs_add_body(b, &nd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.name = "x";
    jd.child = 1;
    jd.axis[0] = 1.0, jd.axis[2] = 0.0;
    jd.frame_parent.pos[0] = 2.0;
    assert_int_equal(mbs_add_joint(b, &jd), 0);
    const double rest[3] = {0.5, 8.0 / 3.0, 1.0};
    const char *names[3] = {"left", "right", "link"};
    for (int e = 0; e < 3; ++e) {
        mbs_spring_damper_def sd = mbs_default_spring_damper_def();
        sd.name = names[e];
        sd.stiffness = 1.0, sd.rest_length = rest[e];
        sd.body_a = e == 2 ? *node : MBS_WORLD;
        sd.body_b = e == 2 ? 1 : *node;
        if (e == 1) sd.point_a[0] = 4.0;
        assert_int_equal(mbs_add_spring_damper(b, &sd), e);
    }
    if (start) assert_int_equal(mbs_set_node_start(b, *node, start), MBS_OK);
    return test_compile_ok(b);
}

/* Force on the node at x from a unit spring of rest r to the point a. */
static double pull(double x, double a, double r)
{
    return (fabs(a - x) - r) * (a > x ? 1.0 : -1.0);
}

/* The node's balance at slider coordinate q: MBS_OK with the node in an equilibrium (the
   closed form when meant, the one between 0 and the body), the slider accelerated by the link
   spring, or a refusal naming the element; returns the status. */
static int node_case(mbs_model *m, int node, double q, int meant)
{
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = q;
    const int st = mbs_forward_dynamics(d);
    if (st == MBS_OK) {
        double p[3], R[9];
        assert_int_equal(mbs_body_pose(d, node, p, R), MBS_OK);
        const double x = p[0], xs = 2.0 + q, xm = (17.0 / 6.0 + q) / 3.0;
        const double res = pull(x, 0.0, 0.5) + pull(x, 4.0, 8.0 / 3.0) + pull(x, xs, 1.0);
        if (fabs(res) > 1e-12 || fabs(mbs_data_qacc(d)[0] - pull(xs, x, 1.0)) > 1e-12 ||
            (meant && fabs(x - xm) > 1e-12))
            fail_msg("q %g: MBS_OK with the node at %.15g, unbalanced by %.3g (meant %.15g)", q,
                     x, res, xm);
    } else {
        assert_int_equal(st, MBS_ERR_SINGULAR);
        const char *msg = mbs_data_error(d);
        if (!strstr(msg, "node \"node\": line element") || !strstr(msg, "starting from"))
            fail_msg("q %g: %s", q, msg);
    }
    mbs_data_destroy(d);
    return st;
}

/* Without a start the zero-rest-length start puts the node on the body for q = 0 (it used to
   stall there and return MBS_OK with the node at x = 2, its forces unbalanced by 2.2 N):
   every answer is an equilibrium (for some q the one beyond the body, the link compressed)
   or a refusal naming the element at zero length. With the
   start x = 1 every q in [-0.8, 0.9] is answered, and a 10^5-step RK4 run keeps the energy
   of the spring chain. A start on a body that is no node is refused at compile. */
static void test_node_start(void **state)
{
    (void)state;
    int node = 0, refused = 0;
    mbs_model *m = collinear_springs(NULL, &node);
    for (int i = -8; i <= 9; ++i) refused += node_case(m, node, 0.1 * i, 0) != MBS_OK;
    assert_true(refused >= 1); /* q = 0 at least */
    assert_int_equal(node_case(m, node, 0.0, 0), MBS_ERR_SINGULAR);
    mbs_model_destroy(m);
    const double x0[3] = {1.0, 0.0, 0.0};
    m = collinear_springs(x0, &node);
    for (int i = -8; i <= 9; ++i) assert_int_equal(node_case(m, node, 0.1 * i, 1), MBS_OK);
    mbs_data *d = mbs_data_create(m);
    mbs_data_q(d)[0] = 0.5;
    const double e0 = energy(d);
    mbs_stepper_def def = mbs_default_stepper_def(MBS_STEP_RK4);
    mbs_stepper *s = mbs_stepper_create(d, &def);
    for (long i = 0; i < 100000; ++i)
        if (mbs_stepper_step(s, 1e-3) != MBS_OK) fail_msg("%s", mbs_data_error(d));
    assert_true(fabs(energy(d) - e0) <= 1e-9 * e0);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.name = "heavy";
    assert_int_equal(mbs_add_body(b, &bd), 1);
    assert_int_equal(mbs_set_node_start(b, 1, x0), MBS_OK);
    assert_int_equal(mbs_set_node_start(b, 2, x0), MBS_ERR_ARG);
    mbs_builder_clear_error(b);
    assert_int_equal(mbs_compile(b, &m), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "body \"heavy\" has a node start position but "
                                                 "is not a node"));
    mbs_builder_destroy(b);
}

/* The model-file attribute: <link node_start="x y z"> on the node. */
static void test_node_start_file(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/mbs_node_start_%ld.xml", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (long)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "<robot name=\"series\">\n  <gravity xyz=\"0 0 0\"/>\n  <link name=\"world\"/>\n"
               "  <link name=\"slider\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" "
               "ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
               "  <link name=\"node\" node_start=\"1 0 0\"/>\n"
               "  <joint name=\"x\" type=\"prismatic\"><parent link=\"world\"/><child "
               "link=\"slider\"/><origin xyz=\"2 0 0\"/><axis xyz=\"1 0 0\"/></joint>\n"
               "  <spring_damper name=\"left\" link_a=\"world\" link_b=\"node\" point_a=\"0 0 0\" "
               "point_b=\"0 0 0\" stiffness=\"1\" damping=\"0\" rest_length=\"0.5\"/>\n"
               "  <spring_damper name=\"right\" link_a=\"world\" link_b=\"node\" point_a=\"4 0 0\" "
               "point_b=\"0 0 0\" stiffness=\"1\" damping=\"0\" rest_length=\"2.6666666666666665\"/>\n"
               "  <spring_damper name=\"link\" link_a=\"node\" link_b=\"slider\" point_a=\"0 0 0\" "
               "point_b=\"0 0 0\" stiffness=\"1\" damping=\"0\" rest_length=\"1\"/>\n</robot>\n");
    fclose(f);
    mbs_builder *b = mbs_builder_create();
    const int st = mbs_builder_load(b, path);
    if (st != MBS_OK) fail_msg("%s", mbs_builder_error(b));
    remove(path);
    mbs_model *m = test_compile_ok(b);
    assert_int_equal(mbs_model_body_is_node(m, 2), 1);
    assert_int_equal(node_case(m, 2, 0.0, 1), MBS_OK);
    mbs_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guard_refuses_unstable_steps),
        cmocka_unit_test(test_guard_opt_out),
        cmocka_unit_test(test_guard_accepts_stable_steps),
        cmocka_unit_test(test_guard_stiff_contact),
        cmocka_unit_test(test_node_start),
        cmocka_unit_test(test_node_start_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
