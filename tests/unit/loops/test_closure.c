/* Loops closed in closed form (src/loops/analytic/; Otter, Elmqvist, Mattsson 2003, "The New
 * Modelica MultiBody Library", §7.2-7.3) against the Newton path of the same mechanism
 * (mbs_builder_set_closure(MBS_CLOSURE_NEWTON)), which is independent of them: a different
 * algorithm (Newton-Raphson on the constraint rows, projection, multipliers from
 * J M^-1 J^T) on the same model.
 *   - compile finds every assembly (and none where there is none);
 *   - from the same start, both branches of every assembly: positions to 1e-12, and at the
 *     same closed state velocities and accelerations (and multipliers) to 1e-10;
 *   - no Newton iteration on the analytic side, nothing but closed forms.
 * Trajectories, singular positions and bad input: test_closure_run.c. */
#include "common.h"
#include "loop_assemblies.h"
#include "loop_mechanisms.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PI 3.14159265358979323846

/* One mechanism compiled both ways. */
typedef struct pair {
    lm_mech ma, mn;
    mbs_data *da, *dn;
    int nq, nv, ncon;
} pair;

typedef int (*build_fn)(int arg, lm_mech *mech);

static int build_fourbar(int cut, lm_mech *mech)
{
    lm_fourbar p = lm_default_fourbar();
    p.cut = cut;
    return lm_build_fourbar(&p, mech);
}
static int build_slider(int cut, lm_mech *mech)
{
    lm_slider_crank p = lm_default_slider_crank();
    p.cut = cut;
    return lm_build_slider_crank(&p, mech);
}
static int build_asm(int kind, lm_mech *mech) { return lm_build_assembly((lm_asm_kind)kind, mech); }

/* Build and create data of both versions. */
static void pair_make(pair *p, build_fn build, int arg)
{
    lm_set_closure(MBS_CLOSURE_ANALYTIC);
    int rc = build(arg, &p->ma);
    lm_set_closure(MBS_CLOSURE_NEWTON);
    if (rc == MBS_OK) rc = build(arg, &p->mn);
    lm_set_closure(MBS_CLOSURE_ANALYTIC);
    if (rc != MBS_OK) print_error("build: %s %s\n", p->ma.error, p->mn.error);
    assert_int_equal(rc, MBS_OK);
    p->da = mbs_data_create(p->ma.model);
    p->dn = mbs_data_create(p->mn.model);
    assert_non_null(p->da);
    assert_non_null(p->dn);
    p->nq = mbs_model_nq(p->ma.model), p->nv = mbs_model_nv(p->ma.model);
    p->ncon = mbs_model_ncon(p->ma.model);
}

static void pair_free(pair *p)
{
    mbs_data_destroy(p->da);
    mbs_data_destroy(p->dn);
    lm_mech_free(&p->ma);
    lm_mech_free(&p->mn);
}

/* Copy q, v of data s into data t (same layout). */
static void copy_state(const pair *p, mbs_data *s, mbs_data *t)
{
    memcpy(mbs_data_q(t), mbs_data_q(s), (size_t)p->nq * sizeof(double));
    memcpy(mbs_data_v(t), mbs_data_v(s), (size_t)p->nv * sizeof(double));
}

/* max |a - b| / (1 + max |b|) */
static double rel(const double *a, const double *b, int n) { return test_rel_diff(a, b, n); }

/* max |a_i - b_i| */
static double absdiff(const double *a, const double *b, int n)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i) e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

/* Both assemble from the start in da (q, v); max |q_a - q_n|. */
static double assemble_both(pair *p, const char *what)
{
    copy_state(p, p->da, p->dn);
    const int ra = mbs_assemble(p->da), rn = mbs_assemble(p->dn);
    if (ra != MBS_OK || rn != MBS_OK)
        print_error("%s: %s / %s\n", what, mbs_data_error(p->da), mbs_data_error(p->dn));
    assert_int_equal(ra, MBS_OK);
    assert_int_equal(rn, MBS_OK);
    assert_int_equal(mbs_cut_joint_closure(p->da, p->ma.cut_id[0]), MBS_CLOSURE_ANALYTIC);
    return absdiff(mbs_data_q(p->da), mbs_data_q(p->dn), p->nq);
}

/* The start in da assembled both ways (positions within tq: Newton stops at its tolerance,
   a scaled residual of 1e-12, so from far off the two agree to ~1e-11), then from that
   closed state moved by 1e-8 in every coordinate but the crank (Newton then converges to
   rounding): positions within 1e-12 (tq2); at the closed state with the start's v: v, qacc
   and lambda within 1e-10. No Newton iteration on the analytic side. The closed state
   (branch) is left in da. */
static void compare_from(pair *p, double tq, double tq2, const char *what)
{
    double v0[64], dq[64];
    assert_true(p->nv <= 64);
    memcpy(v0, mbs_data_v(p->da), (size_t)p->nv * sizeof(double));
    const long it0 = mbs_loop_newton_iterations(p->da);
    const double eq = assemble_both(p, what);
    for (int i = 0; i < p->nv; ++i) dq[i] = 1e-8 * (1.0 + 0.1 * i);
    dq[mbs_model_joint_vadr(p->ma.model, p->ma.joint[0])] = 0.0;
    assert_int_equal(mbs_integrate_q(p->ma.model, mbs_data_q(p->da), dq, 1.0, mbs_data_q(p->da)), MBS_OK);
    const double eq2 = assemble_both(p, what);
    const double res = lm_residual(&p->ma, p->da);
    memcpy(mbs_data_v(p->da), v0, (size_t)p->nv * sizeof(double));
    copy_state(p, p->da, p->dn);
    assert_int_equal(mbs_assemble(p->da), MBS_OK);
    assert_int_equal(mbs_assemble(p->dn), MBS_OK);
    const double ev = rel(mbs_data_v(p->da), mbs_data_v(p->dn), p->nv);
    assert_int_equal(mbs_forward_dynamics(p->da), MBS_OK);
    assert_int_equal(mbs_forward_dynamics(p->dn), MBS_OK);
    const double ea = rel(mbs_data_qacc(p->da), mbs_data_qacc(p->dn), p->nv);
    const double el = rel(mbs_data_lambda(p->da), mbs_data_lambda(p->dn), p->ncon);
    print_message("%-26s q %.1e, near %.1e  v %.1e  qacc %.1e  lambda %.1e  residual %.1e\n",
                  what, eq, eq2, ev, ea, el, res);
    assert_true(eq <= tq && eq2 <= tq2 && res <= 1e-12);
    assert_true(ev <= 1e-10 && ea <= 1e-10 && el <= 1e-10);
    assert_int_equal(mbs_loop_newton_iterations(p->da), it0); /* no Newton iteration */
}

/* ---------------------------------------------------------------- detection */

/* Compile finds the assembly of every mechanism of the tests; models it cannot treat (the
   Bricard 6R, redundant door hinges) and Newton mode have none. */
static void test_detection(void **state)
{
    (void)state;
    lm_mech m;
    for (int cut = 0; cut < 3; ++cut) {
        assert_int_equal(build_fourbar(cut, &m), MBS_OK);
        assert_string_equal(mbs_model_cut_assembly(m.model, m.joint[3]), "JointRRR");
        lm_mech_free(&m);
        assert_int_equal(build_slider(cut, &m), MBS_OK);
        assert_string_equal(mbs_model_cut_assembly(m.model, m.joint[3]), "JointRRP");
        lm_mech_free(&m);
    }
    for (int k = 0; k < LM_ASM_COUNT; ++k) {
        assert_int_equal(lm_build_assembly((lm_asm_kind)k, &m), MBS_OK);
        assert_string_equal(mbs_model_cut_assembly(m.model, m.cut_id[0]), lm_assembly_name((lm_asm_kind)k));
        lm_mech_free(&m);
    }
    assert_int_equal(lm_build_engine6(&m), MBS_OK); /* six coupled loops */
    for (int k = 0; k < 6; ++k) assert_string_equal(mbs_model_cut_assembly(m.model, m.unit[k][2]), "JointRRP");
    lm_mech_free(&m);
    assert_int_equal(lm_build_bricard(&m), MBS_OK);
    assert_null(mbs_model_cut_assembly(m.model, m.joint[5]));
    lm_mech_free(&m);
    const double off[3] = {0, 0, 0};
    assert_int_equal(lm_build_door(2, 0, off, &m), MBS_OK);
    assert_null(mbs_model_cut_assembly(m.model, m.joint[1]));
    lm_mech_free(&m);
    lm_set_closure(MBS_CLOSURE_NEWTON);
    assert_int_equal(build_fourbar(0, &m), MBS_OK);
    lm_set_closure(MBS_CLOSURE_ANALYTIC);
    assert_null(mbs_model_cut_assembly(m.model, m.joint[3]));
    mbs_data *d = mbs_data_create(m.model);
    assert_int_equal(mbs_cut_joint_closure(d, m.joint[3]), MBS_CLOSURE_NEWTON);
    assert_int_equal(mbs_cut_joint_closure(d, m.joint[0]), MBS_ERR_ARG); /* a tree joint */
    assert_int_equal(mbs_cut_joint_closure(d, 99), MBS_ERR_ARG);
    assert_int_equal(mbs_cut_joint_closure(NULL, 0), MBS_ERR_ARG);
    assert_null(mbs_model_cut_assembly(NULL, 0));
    assert_null(mbs_model_cut_assembly(m.model, -1));
    assert_int_equal(mbs_loop_newton_iterations(NULL), 0);
    mbs_data_destroy(d);
    lm_mech_free(&m);
    mbs_builder *b = mbs_builder_create();
    assert_int_equal(mbs_builder_set_closure(b, (mbs_closure)7), MBS_ERR_ARG);
    assert_non_null(strstr(mbs_builder_error(b), "closure"));
    assert_int_equal(mbs_builder_set_closure(NULL, MBS_CLOSURE_NEWTON), MBS_ERR_ARG);
    mbs_builder_destroy(b);
}

/* ---------------------------------------------------------------- planar assemblies */

/* JointRRR (four-bar, each of its three cuts) and JointRRP (slider-crank, each of its three
   cuts): both branches (elbow up and down; slider on either side), from a start 0.02 rad /
   m off the closed state with the crank 0.05 further. */
static void test_planar_vs_newton(void **state)
{
    (void)state;
    char what[64];
    for (int cut = 0; cut < 3; ++cut) {
        lm_fourbar fb = lm_default_fourbar();
        fb.cut = cut;
        for (int sigma = -1; sigma <= 1; sigma += 2) {
            pair p;
            pair_make(&p, build_fourbar, cut);
            double th[3] = {0.4, 0, 0}, w[3], al[3];
            assert_int_equal(lm_fourbar_position(&fb, th[0], sigma, &th[1], &th[2]), 0);
            lm_fourbar_rates(&fb, th, 3.0, 0.0, w, al);
            th[0] += 0.05, th[1] += 0.02, th[2] -= 0.02, w[1] += 1.0;
            lm_fourbar_set(&fb, &p.ma, p.da, th, w);
            snprintf(what, sizeof what, "RRR cut %d branch %+d", cut, sigma);
            compare_from(&p, 1e-10, 1e-12, what);
            double t2[3], w2[3], th3, th4;
            lm_fourbar_state(&fb, &p.ma, p.da, t2, w2); /* the closed form's branch */
            lm_fourbar_position(&fb, t2[0], sigma, &th3, &th4);
            assert_true(fabs(t2[1] - th3) <= 1e-12 || fabs(fabs(t2[1] - th3) - 2 * PI) <= 1e-12);
            pair_free(&p);
        }
    }
    for (int cut = 0; cut < 3; ++cut) {
        lm_slider_crank sc = lm_default_slider_crank();
        sc.cut = cut;
        for (int side = -1; side <= 1; side += 2) {
            pair p;
            pair_make(&p, build_slider, cut);
            double x[3], phi[3], s[3], sd[3];
            lm_slider_crank_kin(&sc, 0.7, 4.0, 0.0, x, phi);
            s[0] = 0.75, s[1] = side > 0 ? phi[0] + 0.02 : PI - phi[0] + 0.02;
            s[2] = side > 0 ? x[0] + 0.01 : x[0] - 2.0 * sqrt(sc.l * sc.l - pow(sc.r * sin(0.7) - sc.e, 2)) - 0.01;
            sd[0] = 4.0, sd[1] = 1.0, sd[2] = -0.3;
            lm_slider_crank_set(&sc, &p.ma, p.da, s, sd);
            snprintf(what, sizeof what, "RRP cut %d slider %s", cut, side > 0 ? "right" : "left");
            compare_from(&p, 1e-10, 1e-12, what);
            lm_slider_crank_state(&sc, &p.ma, p.da, s, sd);
            assert_true(side > 0 ? s[2] > 0.0 : s[2] < 0.0);
            pair_free(&p);
        }
    }
}

/* ---------------------------------------------------------------- spatial assemblies */

/* The two roots of one assembly kind: a start near the closed configuration at crank 0.3
   (dependent coordinates moved by 0.01), and one moved by dep1 that reaches the other root;
   the roots differ (JointRPP, linear in its slides, has one). The spherical rod: see
   test_spherical_rod. */
static void one_kind(lm_asm_kind kind, double dep1, double tq)
{
    double root[2][32];
    char what[64];
    for (int br = 0; br < 2; ++br) {
        pair p;
        pair_make(&p, build_asm, kind);
        lm_assembly_guess(kind, &p.ma, 0.3, 2.0, br ? dep1 : 0.01, p.da);
        mbs_data_v(p.da)[mbs_model_joint_vadr(p.ma.model, p.ma.joint[1])] = 0.4; /* dependent */
        snprintf(what, sizeof what, "%s branch %d", lm_assembly_name(kind), br);
        compare_from(&p, tq, 1e-12, what);
        assert_true(p.nq <= 32);
        memcpy(root[br], mbs_data_q(p.da), (size_t)p.nq * sizeof(double));
        if (br == 1 && kind != LM_ASM_RPP) assert_true(absdiff(root[0], root[1], p.nq) > 0.05);
        if (br == 1 && kind == LM_ASM_RPP) assert_true(absdiff(root[0], root[1], p.nq) <= 1e-14);
        pair_free(&p);
    }
}

/* JointSSR/SSP (distance joint), JointUSR/USP (rod on a universal joint), JointUPS and
   JointRPP (Scotch yoke), both roots each. */
static void test_spatial_vs_newton(void **state)
{
    (void)state;
    one_kind(LM_ASM_SSR, -1.1, 1e-10);  /* rocker at 0 or about -1.08 */
    one_kind(LM_ASM_SSP, -0.6, 1e-10);  /* slider at 0 or about -0.6 */
    one_kind(LM_ASM_USR, -1.1, 1e-10);
    one_kind(LM_ASM_USP, -0.6, 1e-10);
    one_kind(LM_ASM_UPS, 2.5, 1e-10);   /* the universal flipped over */
    one_kind(LM_ASM_RPP, 0.0, 1e-10);   /* one root: both starts meet it */
}

/* Two spherical joints around a body (JointSSR with a rod body): the rod's spin about
   itself stays an independent coordinate. On the quaternion chart the closed form turns the
   rod by one exp(delta) perpendicular to the spin axis, while Newton composes one such turn
   per iteration, which differ in second order of the correction (path dependence of the
   chart): from the far start (crank 0.3 away) positions differ by 1e-2; what "holding the
   spin" means is checked exactly instead (the spin component of the rod's turn is 0 to
   1e-14); from 1e-8 off, 1e-12; rates, accelerations and multipliers 1e-10. */
static void test_spherical_rod(void **state)
{
    (void)state;
    pair p;
    pair_make(&p, build_asm, LM_ASM_SSROD);
    lm_assembly_guess(LM_ASM_SSROD, &p.ma, 0.3, 2.0, 0.01, p.da);
    double q0[32], dv[32];
    memcpy(q0, mbs_data_q(p.da), (size_t)p.nq * sizeof(double));
    assert_int_equal(mbs_assemble(p.da), MBS_OK);
    assert_int_equal(mbs_difference_q(p.ma.model, q0, mbs_data_q(p.da), dv), MBS_OK);
    const int v2 = mbs_model_joint_vadr(p.ma.model, p.ma.joint[2]);
    print_message("turn of the rod: (%.3e, %.3e, %.3e), spin component %.1e\n", dv[v2], dv[v2 + 1],
                  dv[v2 + 2], dv[v2]);
    assert_true(fabs(dv[v2]) <= 1e-14 && fabs(dv[v2 + 1]) + fabs(dv[v2 + 2]) > 1e-3);
    lm_assembly_guess(LM_ASM_SSROD, &p.ma, 0.3, 2.0, 0.01, p.da);
    compare_from(&p, 2e-2, 1e-12, "SSR rod on a spherical joint");
    pair_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detection),
        cmocka_unit_test(test_planar_vs_newton),
        cmocka_unit_test(test_spatial_vs_newton),
        cmocka_unit_test(test_spherical_rod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
