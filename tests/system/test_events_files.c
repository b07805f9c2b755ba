/* Model-file elements of friction, brakes and stops (src/io/io_elements.c) and the
 * mechanisms in models/ that use them, each against its closed form: blocks thrown up two
 * slopes (slope_blocks.xml), a pendulum with Coulomb friction (friction_pendulum.xml), a
 * bouncing ball on a restitution stop (bouncing_ball.xml), a pendulum between elastic stops
 * (limited_pendulum.xml). The mbs-sim elements (<simulation>, <initial>, <track>, <plot>)
 * are read here for the start values and removed before mbs_builder_load, so the test does
 * not depend on the loader knowing them. Malformed elements: status, file:line, builder as
 * it was. Env: MBS_MODELS (models/), MBS_TEST_DATA. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double G = 9.81;

/* ------------------------------------------------------------ reading a mechanism file */

/* The file's text (malloc'd) or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

/* Remove every <tag .../> element (possibly over several lines) from s in place. */
static void strip_element(char *s, const char *tag)
{
    char open[32];
    snprintf(open, sizeof open, "<%s", tag);
    for (char *p = strstr(s, open); p; p = strstr(p, open)) {
        char *end = strstr(p, "/>");
        if (!end) return;
        memmove(p, end + 2, strlen(end + 2) + 1);
    }
}

/* The value of attribute name in the element text starting at e (up to its "/>"). */
static int attribute(const char *e, const char *name, char *out, size_t len)
{
    char key[48];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *end = strstr(e, "/>"), *p = strstr(e, key);
    if (!p || (end && p > end)) return 0;
    p += strlen(key);
    const char *q = strchr(p, '"');
    if (!q || (size_t)(q - p) >= len) return 0;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return 1;
}

/* Load models/NAME.xml without its mbs-sim elements, compile it, create data and set the
   <initial> q and v of its joints. */
static mbs_data *load_mechanism(const char *name, mbs_model **m)
{
    char path[512], tmp[] = "/tmp/mbs_events_XXXXXX";
    snprintf(path, sizeof path, "%s/%s.xml", getenv("MBS_MODELS"), name);
    char *text = slurp(path), *copy = text ? strdup(text) : NULL;
    if (!text || !copy) fail_msg("cannot read %s", path);
    static const char *const sim[] = {"simulation", "initial", "track", "plot"};
    for (int k = 0; k < 4; ++k) strip_element(copy, sim[k]);
    const int fd = mkstemp(tmp);
    FILE *f = fdopen(fd, "w");
    fputs(copy, f);
    fclose(f);
    mbs_builder *b = mbs_builder_create();
    if (mbs_builder_load(b, tmp) != MBS_OK) fail_msg("%s: %s", path, mbs_builder_error(b));
    remove(tmp);
    *m = test_compile_ok(b);
    mbs_data *d = mbs_data_create(*m);
    for (const char *e = strstr(text, "<initial"); e; e = strstr(e + 1, "<initial")) {
        char joint[64], q[64], v[64];
        assert_true(attribute(e, "joint", joint, sizeof joint) && attribute(e, "q", q, sizeof q) &&
                    attribute(e, "v", v, sizeof v));
        const int j = mbs_model_find_joint(*m, joint);
        assert_true(j >= 0);
        mbs_data_q(d)[mbs_model_joint_qadr(*m, j)] = atof(q);
        mbs_data_v(d)[mbs_model_joint_vadr(*m, j)] = atof(v);
    }
    free(text);
    free(copy);
    return d;
}

/* ------------------------------------------------------------ the mechanisms */

/* slope_blocks: up the slope at -1.5 m/s, stop at v0 / (g (sin a + mu cos a)); the shallow
   block sticks, the steep one slides back with g (sin a - mu cos a). */
static void test_slope_blocks(void **state)
{
    (void)state;
    mbs_model *m;
    mbs_data *d = load_mechanism("slope_blocks", &m);
    const char *names[2] = {"shallow", "steep"};
    const double slope[2] = {0.4, 0.6}, mu = 0.3, v0 = -1.5;
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    double worst = 0.0;
    for (int i = 1; i <= 1500; ++i) {
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        const double t = mbs_data_time(d);
        for (int k = 0; k < 2; ++k) {
            const double a = slope[k], up = G * (sin(a) + mu * cos(a)), dn = G * (sin(a) - mu * cos(a));
            const double ts = -v0 / up, xs = v0 * ts + 0.5 * up * ts * ts, tt = t - ts;
            const double x = t <= ts ? v0 * t + 0.5 * up * t * t : xs + (k ? 0.5 * dn * tt * tt : 0.0);
            const double v = t <= ts ? v0 + up * t : (k ? dn * tt : 0.0);
            const int j = mbs_model_find_joint(m, names[k]);
            worst = fmax(worst, fabs(mbs_data_q(d)[mbs_model_joint_qadr(m, j)] - x));
            worst = fmax(worst, fabs(mbs_data_v(d)[mbs_model_joint_vadr(m, j)] - v));
            if (t > ts) assert_int_equal(mbs_joint_is_locked(d, j, 0), k == 0);
        }
    }
    print_message("slope_blocks.xml: error against the closed form %.2e\n", worst);
    assert_true(worst <= 1e-9);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* friction_pendulum: it rests where the chain of turning points of the energy balance
   m g l (cos b - cos a) = tc (|a| + |b|) from 0.1 rad first falls inside the band. */
static void test_friction_pendulum(void **state)
{
    (void)state;
    mbs_model *m;
    mbs_data *d = load_mechanism("friction_pendulum", &m);
    const double mgl = 1.0 * G * 0.5, tc = 0.02, ts = 0.03;
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    double a = mbs_data_q(d)[0], worst = 0.0;
    for (int i = 0; i < 12000; ++i) assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
    int k = 0;
    while (fabs(mgl * sin(a)) > ts && k < 30) {
        const double sa = a > 0.0 ? 1.0 : -1.0;
        double b = -a + 2.0 * sa * tc / mgl;
        for (int it = 0; it < 50; ++it)
            b -= (mgl * (cos(b) - cos(a)) - tc * (fabs(a) + fabs(b))) /
                 (-mgl * sin(b) - tc * (b > 0.0 ? 1.0 : -1.0));
        a = b;
        ++k;
    }
    worst = fabs(mbs_data_q(d)[0] - a);
    print_message("friction_pendulum.xml: %d half swings, rests at %.12f rad (energy balance "
                  "%.12f), locked %d\n", k, mbs_data_q(d)[0], a, mbs_joint_is_locked(d, 0, 0));
    assert_true(worst <= 1e-9);
    assert_int_equal(mbs_joint_is_locked(d, 0, 0), 1);
    assert_true(fabs(mgl * sin(mbs_data_q(d)[0])) <= ts);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* bouncing_ball: the ball is highest between impacts at e^(2k) h; it ends resting on the
   stop. The impact times are checked through the rebound apexes t_k + e^k v1 / g. */
static void test_bouncing_ball(void **state)
{
    (void)state;
    mbs_model *m;
    mbs_data *d = load_mechanism("bouncing_ball", &m);
    const double e = 0.8, h = 1.0, v1 = sqrt(2.0 * G * h);
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    double tk = sqrt(2.0 * h / G), vk = v1, worst = 0.0;
    int apex = 0;
    for (int i = 0; i < 5000; ++i) {
        const double v0 = mbs_data_v(d)[0];
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        if (v0 > 0.0 && mbs_data_v(d)[0] <= 0.0 && apex < 8) { /* passed an apex: check it */
            const double t = mbs_data_time(d), ta = tk + e * vk / G;
            const double z = e * vk * (ta - tk) - 0.5 * G * (ta - tk) * (ta - tk) -
                             0.5 * G * (t - ta) * (t - ta);
            worst = fmax(worst, fabs(mbs_data_q(d)[0] - z));
            tk += 2.0 * e * vk / G, vk *= e, ++apex;
        }
    }
    print_message("bouncing_ball.xml: %d apexes within %.2e m of the closed form; rest: state "
                  "%d, q %.1e\n", apex, worst, mbs_joint_stop_state(d, 0, 0), mbs_data_q(d)[0]);
    assert_true(apex >= 8 && worst <= 1e-8);
    assert_int_equal(mbs_joint_stop_state(d, 0, 0), 1);
    assert_true(mbs_data_q(d)[0] == 0.0 && mbs_data_v(d)[0] == 0.0);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* limited_pendulum: energy (the stops' springs included) conserved, the swing bounded. */
static void test_limited_pendulum(void **state)
{
    (void)state;
    mbs_model *m;
    mbs_data *d = load_mechanism("limited_pendulum", &m);
    mbs_stepper *s = test_stepper_tight(d, MBS_STEP_RK4);
    double T, V, E0, qmax = 0.0, drift = 0.0;
    mbs_energy(d, &T, &V);
    E0 = T + V;
    int contacts = 0, was = 0;
    for (int i = 0; i < 5000; ++i) {
        assert_int_equal(mbs_stepper_step(s, 1e-3), MBS_OK);
        mbs_energy(d, &T, &V);
        drift = fmax(drift, fabs(T + V - E0) / fabs(E0));
        qmax = fmax(qmax, fabs(mbs_data_q(d)[0]));
        const int at = mbs_joint_stop_state(d, 0, 0);
        contacts += at != 0 && !was;
        was = at != 0;
    }
    print_message("limited_pendulum.xml: %d contacts, largest angle %.4f rad, energy drift "
                  "%.2e\n", contacts, qmax, drift);
    assert_true(contacts >= 4);
    assert_true(drift <= 1e-6);
    assert_true(qmax > 0.4 && qmax < 0.5);
    mbs_stepper_destroy(s);
    mbs_data_destroy(d);
    mbs_model_destroy(m);
}

/* ------------------------------------------------------------ elements, malformed */

#define HEAD "<robot>\n<link name=\"world\"/>\n<link name=\"b\"><inertial><mass value=\"1\"/>" \
             "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n" \
             "<joint name=\"j\" type=\"prismatic\"><parent link=\"world\"/><child link=\"b\"/></joint>\n"

/* Load text from a temporary file into b; the status. */
static int load_text(mbs_builder *b, const char *text, char *path, size_t len)
{
    snprintf(path, len, "/tmp/mbs_elements_XXXXXX");
    const int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    const int st = mbs_builder_load(b, path);
    remove(path);
    return st;
}

/* The three elements load with the values C gives (bitwise equal runs); each malformed one
   names the file, its line and the problem, the builder unchanged. */
static void test_elements(void **state)
{
    (void)state;
    char path[64];
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(load_text(b, HEAD "<link name=\"c\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" "
                     "ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"
                     "<joint name=\"k\" type=\"revolute\"><parent link=\"b\"/><child link=\"c\"/></joint>\n"
                     "<joint_friction joint=\"j\" coulomb=\"2\" stiction=\"3\" "
                     "viscous=\"0.5\"/>\n<joint_brake name=\"bk\" joint=\"k\" limit=\"0.5\" peak=\"1.2\"/>\n"
                     "<joint_stop joint=\"j\" lower=\"-0.3\" law=\"elastic\" stiffness=\"1e4\" damping=\"3\"/>\n"
                     "</robot>", path, sizeof path), MBS_OK);
    mbs_model *mf = test_compile_ok(b);
    b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    bd.inertia[0] = bd.inertia[4] = bd.inertia[8] = 1.0;
    mbs_add_body(b, &bd);
    mbs_joint_def jd = mbs_default_joint_def(MBS_JOINT_PRISMATIC);
    jd.child = 1, jd.axis[0] = 1.0, jd.axis[2] = 0.0; /* URDF's default axis */
    mbs_add_joint(b, &jd);
    mbs_add_body(b, &bd);
    jd = mbs_default_joint_def(MBS_JOINT_REVOLUTE);
    jd.parent = 1, jd.child = 2, jd.axis[0] = 1.0, jd.axis[2] = 0.0;
    mbs_add_joint(b, &jd);
    mbs_joint_friction_def f = mbs_default_joint_friction_def();
    f.joint = 0, f.coulomb = 2.0, f.stiction = 3.0, f.viscous = 0.5;
    mbs_add_joint_friction(b, &f);
    mbs_joint_brake_def bk = mbs_default_joint_brake_def();
    bk.joint = 1, bk.limit = 0.5, bk.peak = 1.2;
    mbs_add_joint_brake(b, &bk);
    mbs_joint_stop_def sp = mbs_default_joint_stop_def();
    sp.joint = 0, sp.lower = -0.3, sp.law = MBS_STOP_ELASTIC, sp.stiffness = 1e4, sp.damping = 3.0;
    mbs_add_joint_stop(b, &sp);
    mbs_model *mc = test_compile_ok(b);
    assert_int_equal(mbs_model_nforce(mf), 3);
    mbs_data *d[2] = {mbs_data_create(mf), mbs_data_create(mc)};
    mbs_stepper *s[2];
    for (int k = 0; k < 2; ++k) {
        mbs_data_v(d[k])[0] = 2.0, mbs_data_v(d[k])[1] = 1.0;
        mbs_data_tau(d[k])[0] = -1.0;
        s[k] = test_stepper_tight(d[k], MBS_STEP_RK4);
    }
    for (int i = 0; i < 2000; ++i) {
        assert_int_equal(mbs_stepper_step(s[0], 1e-3), MBS_OK);
        assert_int_equal(mbs_stepper_step(s[1], 1e-3), MBS_OK);
        assert_memory_equal(mbs_data_q(d[0]), mbs_data_q(d[1]), 2 * sizeof(double));
        assert_memory_equal(mbs_data_v(d[0]), mbs_data_v(d[1]), 2 * sizeof(double));
    }
    for (int k = 0; k < 2; ++k) mbs_stepper_destroy(s[k]), mbs_data_destroy(d[k]);
    mbs_model_destroy(mf);
    mbs_model_destroy(mc);
    static const struct { const char *text, *msg; } bad[] = {
        {HEAD "<joint_friction joint=\"j\" coulomb=\"2\" stiction=\"1\"/>\n</robot>", "stiction = 1 is below coulomb = 2"},
        {HEAD "<joint_friction joint=\"x\" coulomb=\"2\"/>\n</robot>", "joint \"x\" is not a joint of the file"},
        {HEAD "<joint_friction coulomb=\"2\"/>\n</robot>", "attribute joint is missing"},
        {HEAD "<joint_brake joint=\"j\" dof=\"0.5\"/>\n</robot>", "dof=\"0.5\": expected an integer"},
        {HEAD "<joint_stop joint=\"j\" lower=\"0\" law=\"sticky\"/>\n</robot>", "law \"sticky\""},
        {HEAD "<joint_stop joint=\"j\" lower=\"1\" upper=\"0\"/>\n</robot>", "lower = 1 must be below upper = 0"},
        {HEAD "<joint_stop joint=\"j\" lower=\"nan\"/>\n</robot>", "finite"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        b = mbs_builder_create();
        const int st = load_text(b, bad[k].text, path, sizeof path);
        char place[80];
        snprintf(place, sizeof place, "%s:5:", path);
        if (st >= 0 || !strstr(mbs_builder_error(b), bad[k].msg) || !strstr(mbs_builder_error(b), place))
            fail_msg("case %zu: status %d, message '%s'", k, st, mbs_builder_error(b));
        mbs_model *m = NULL;
        assert_int_equal(mbs_compile(b, &m), st); /* the file's failure is sticky */
        assert_non_null(strstr(mbs_builder_error(b), "an earlier call failed: mbs_builder_load: "));
        assert_non_null(strstr(mbs_builder_error(b), bad[k].msg));
        mbs_builder_clear_error(b); /* the failures above were handled */
        assert_int_equal(mbs_compile(b, &m), MBS_OK); /* the builder is empty again */
        assert_int_equal(mbs_model_nbody(m), 1);
        mbs_model_destroy(m);
        mbs_builder_destroy(b);
    }
}

int main(void)
{
    if (!getenv("MBS_MODELS")) {
        printf("test_events_files: MBS_MODELS must be set (meson does)\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slope_blocks),
        cmocka_unit_test(test_friction_pendulum),
        cmocka_unit_test(test_bouncing_ball),
        cmocka_unit_test(test_limited_pendulum),
        cmocka_unit_test(test_elements),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
