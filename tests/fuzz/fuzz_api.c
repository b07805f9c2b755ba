/* libFuzzer harness: random API call sequences. The input builds a model (bodies, joints of
 * every type, cut joints, springs, start values, held coordinates, drives, gravity) from its
 * bytes, then runs dynamics, queries, assembly and steps on states it also chooses (or the
 * model's start values); an input ending in EXTRA_MARK also adds, from its last bytes,
 * closed-form loop closure, a curve contact, an event, a rotor and a line force with two
 * masses. It checks the contract, not only "no crash":
 * every non-OK status is documented and has a message; after an OK call every output is
 * finite; after a failed step time, q, v and lambda are bitwise as before. */
#include "fuzz_common.h"

#define NB 6

static void build(fz *f, mbs_builder *b)
{
    const int nb = 1 + (int)(fz_byte(f) % NB);
    for (int i = 1; i <= nb; ++i) {
        mbs_body_def bd = mbs_default_body_def();
        bd.mass = fz_byte(f) < 20 ? fz_real(f, 2.0) : 0.5 + fz_byte(f) / 64.0;
        for (int k = 0; k < 3; ++k) bd.com[k] = fz_real(f, 0.3);
        if (fz_byte(f) < 30)
            for (int k = 0; k < 9; ++k) bd.inertia[k] = fz_real(f, 0.1);
        fz_check_status(mbs_add_body(b, &bd) < 0 ? -1 : 0, mbs_builder_error(b), "add_body");
    }
    const int nj = (int)(fz_byte(f) % (NB + 3));
    for (int j = 0; j < nj; ++j) {
        mbs_joint_def jd = mbs_default_joint_def((mbs_joint_type)(fz_byte(f) % 9));
        jd.parent = (int)(fz_byte(f) % (NB + 1)), jd.child = (int)(fz_byte(f) % (NB + 1));
        jd.rotation = fz_byte(f) & 1 ? MBS_ROT_CARDAN : MBS_ROT_QUATERNION;
        jd.cut = fz_byte(f) < 40;
        for (int k = 0; k < 3; ++k)
            jd.frame_parent.pos[k] = fz_real(f, 0.5), jd.axis[k] = fz_real(f, 1.0), jd.axis2[k] = fz_real(f, 1.0);
        jd.length = fz_real(f, 1.0);
        const int id = mbs_add_joint(b, &jd);
        fz_check_status(id < 0 ? id : 0, mbs_builder_error(b), "add_joint");
    }
    if (fz_byte(f) < 60) {
        mbs_spring_damper_def sd = mbs_default_spring_damper_def();
        sd.body_a = (int)(fz_byte(f) % (NB + 1)), sd.body_b = (int)(fz_byte(f) % (NB + 1));
        sd.stiffness = fz_real(f, 50.0), sd.damping = fz_real(f, 2.0), sd.rest_length = fz_real(f, 0.5);
        const int id = mbs_add_spring_damper(b, &sd);
        fz_check_status(id < 0 ? id : 0, mbs_builder_error(b), "add_spring_damper");
    }
    if (fz_byte(f) < 80) { /* start values, held coordinates and a drive on some joint */
        const int j = (int)(fz_byte(f) % (NB + 3)) - 1, nq = (int)(fz_byte(f) % 8), nv = (int)(fz_byte(f) % 7);
        double q[7], v[6];
        unsigned char h[6];
        for (int k = 0; k < 7; ++k) q[k] = fz_real(f, 1.0);
        for (int k = 0; k < 6; ++k) v[k] = fz_real(f, 2.0), h[k] = fz_byte(f) & 1;
        fz_check_status(mbs_set_joint_start(b, j, fz_byte(f) & 1 ? q : NULL, nq, v, nv),
                        mbs_builder_error(b), "set_joint_start");
        fz_check_status(mbs_set_joint_hold(b, j, h, nv), mbs_builder_error(b), "set_joint_hold");
        const int id = mbs_add_joint_force(b, j, (int)(fz_byte(f) % 7), fz_real(f, 5.0));
        fz_check_status(id < 0 ? id : 0, mbs_builder_error(b), "add_joint_force");
    }
    if (fz_byte(f) < 40) {
        const double g[3] = {fz_real(f, 10.0), fz_real(f, 10.0), fz_real(f, 10.0)};
        fz_check_status(mbs_builder_set_gravity(b, g), mbs_builder_error(b), "set_gravity");
    }
}

/* An event on the data's first coordinate (q[0] - c, or time - c without coordinates); its
   handler kicks v[0]. */
static double event_g(mbs_data *d, void *user)
{
    const double c = *(const double *)user;
    return mbs_model_nq(mbs_data_model(d)) > 0 ? mbs_data_q(d)[0] - c : mbs_data_time(d) - c;
}
static int event_h(mbs_data *d, void *user)
{
    (void)user;
    if (mbs_model_nv(mbs_data_model(d)) > 0) mbs_data_v(d)[0] *= -0.5;
    return 0;
}

/* The extras of an input ending in EXTRA_MARK (its last EXTRA_BYTES, read apart from the
   rest so that an input without them means what it meant): closed-form loop closure, a
   curve-curve contact, an event, a rotor and a line force with two masses, each when its
   flag bit is set. */
#define EXTRA_MARK 0xA7
#define EXTRA_BYTES 24
static void build_extras(fz *f, mbs_builder *b, double *event_c)
{
    const unsigned flags = fz_byte(f);
    if (flags & 1) fz_check_status(mbs_builder_set_closure(b, MBS_CLOSURE_ANALYTIC), mbs_builder_error(b), "set_closure");
    if (flags & 2) {
        mbs_curve_joint_def cj = mbs_default_curve_joint_def();
        cj.parent = (int)(fz_byte(f) % (NB + 1)), cj.child = (int)(fz_byte(f) % (NB + 1));
        cj.curve_parent.kind = (mbs_curve_kind)(fz_byte(f) % 3), cj.curve_child.kind = (mbs_curve_kind)(fz_byte(f) % 3);
        cj.curve_parent.a = fz_real(f, 0.5), cj.curve_parent.b = fz_real(f, 0.5), cj.curve_child.a = fz_real(f, 0.5);
        cj.curve_child.b = fz_real(f, 0.5), cj.rolling = fz_byte(f) & 1, cj.frame_parent.pos[1] = fz_real(f, 0.5);
        const int id = mbs_add_curve_joint(b, &cj);
        fz_check_status(id < 0 ? id : 0, mbs_builder_error(b), "add_curve_joint");
    }
    if (flags & 4) {
        *event_c = fz_real(f, 1.0);
        const int id = mbs_add_event(b, "fuzz", event_g, flags & 8 ? event_h : NULL, event_c);
        fz_check_status(id < 0 ? id : 0, mbs_builder_error(b), "add_event");
    }
    if (flags & 16) {
        mbs_rotor_def r = mbs_default_rotor_def();
        r.joint = (int)(fz_byte(f) % (NB + 3)) - 1, r.dof = (int)(fz_byte(f) % 3);
        r.inertia = fz_real(f, 0.1), r.ratio = fz_real(f, 20.0), r.housing = (int)(fz_byte(f) % (NB + 1));
        const int id = mbs_add_rotor(b, &r);
        fz_check_status(id < 0 ? id : 0, mbs_builder_error(b), "add_rotor");
    }
    if (flags & 32) {
        mbs_line_force_two_masses_def t = mbs_default_line_force_two_masses_def();
        t.body_a = (int)(fz_byte(f) % (NB + 1)), t.body_b = (int)(fz_byte(f) % (NB + 1));
        t.stiffness = fz_real(f, 50.0), t.rest_length = fz_real(f, 0.5), t.mass_a = fz_real(f, 1.0);
        t.distance_a = fz_real(f, 0.3), t.mass_b = fz_real(f, 1.0), t.point_b[0] = fz_real(f, 0.5);
        const int id = mbs_add_line_force_two_masses(b, &t);
        fz_check_status(id < 0 ? id : 0, mbs_builder_error(b), "add_line_force_two_masses");
    }
}

/* One step: a failure leaves t, q, v, lambda bitwise as they were. */
static void step(fz *f, mbs_data *d, mbs_stepper *s, const mbs_model *m)
{
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m), nc = mbs_model_ncon(m);
    double *q0 = malloc(sizeof(double) * (size_t)(nq + nv + nc + 1));
    memcpy(q0, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(q0 + nq, mbs_data_v(d), sizeof(double) * (size_t)nv);
    memcpy(q0 + nq + nv, mbs_data_lambda(d), sizeof(double) * (size_t)nc);
    const double t0 = mbs_data_time(d);
    const int st = mbs_stepper_step(s, fz_byte(f) < 10 ? fz_real(f, 1.0) : 1e-3 * (1 + fz_byte(f) % 8));
    fz_check_status(st, mbs_data_error(d), "stepper_step");
    if (st != MBS_OK) {
        fz_require(mbs_data_time(d) == t0, "failed step", "time changed");
        fz_require(!memcmp(q0, mbs_data_q(d), sizeof(double) * (size_t)nq), "failed step", "q changed");
        fz_require(!memcmp(q0 + nq, mbs_data_v(d), sizeof(double) * (size_t)nv), "failed step", "v changed");
        fz_require(!memcmp(q0 + nq + nv, mbs_data_lambda(d), sizeof(double) * (size_t)nc), "failed step", "lambda changed");
    } else {
        fz_require(fz_finite(mbs_data_q(d), nq) && fz_finite(mbs_data_v(d), nv), "step", "non-finite state after OK");
    }
    free(q0);
}

/* An analysis moving q (equilibrium, or position solving with a random target) with a random
   mask (entries 0, 1 or 2: 2 must be refused): q and v bitwise as they were on failure,
   finite after OK. */
static int analysis(fz *f, mbs_data *d, const mbs_model *m, double *buf, int op, int body)
{
    const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
    unsigned char mask[64];
    const int masked = fz_byte(f) & 1;
    for (int i = 0; i < nv && i < 64; ++i) mask[i] = (unsigned char)(fz_byte(f) % 3 == 2 ? fz_byte(f) % 3 : 0);
    memcpy(buf, mbs_data_q(d), sizeof(double) * (size_t)nq);
    memcpy(buf + nq, mbs_data_v(d), sizeof(double) * (size_t)nv);
    mbs_position_target t = {body, {fz_real(f, 0.2), 0.0, 0.0}, {fz_real(f, 1.0), fz_real(f, 1.0), fz_real(f, 1.0)}};
    const unsigned char *fixed = masked && nv <= 64 ? mask : NULL;
    const int st = op == 10 ? mbs_equilibrium(d, fixed) : mbs_solve_positions(d, &t, 1, fixed);
    if (st != MBS_OK) {
        fz_require(!memcmp(buf, mbs_data_q(d), sizeof(double) * (size_t)nq), "failed analysis", "q changed");
        fz_require(!memcmp(buf + nq, mbs_data_v(d), sizeof(double) * (size_t)nv), "failed analysis", "v changed");
    } else {
        fz_require(fz_finite(mbs_data_q(d), nq) && fz_finite(mbs_data_v(d), nv), "analysis", "non-finite q");
    }
    return st;
}

/* The actuated inverse dynamics of qacc with random indices (some out of range or repeated):
   tau_out finite after OK, zero off the actuated ones. */
static int actuated(fz *f, mbs_data *d, const mbs_model *m, double *buf)
{
    const int nv = mbs_model_nv(m), nact = (int)(fz_byte(f) % (unsigned)(nv + 2));
    int act[66];
    for (int i = 0; i < nact && i < 66; ++i) act[i] = (int)(fz_byte(f) % (unsigned)(nv + 1));
    const int st = mbs_inverse_dynamics_actuated(d, mbs_data_qacc(d), act, nact < 66 ? nact : 66, buf);
    if (st == MBS_OK) fz_require(fz_finite(buf, nv), "id_actuated", "tau");
    return st;
}

/* One call chosen by the input, with its outputs checked. */
static void call(fz *f, mbs_data *d, mbs_stepper *s, const mbs_model *m, double *buf)
{
    const int nv = mbs_model_nv(m), nq = mbs_model_nq(m), nb = mbs_model_nbody(m);
    const int op = (int)(fz_byte(f) % 13), body = (int)(fz_byte(f) % (nb + 1));
    const double pt[3] = {fz_real(f, 0.2), fz_real(f, 0.2), fz_real(f, 0.2)};
    int st;
    switch (op) {
    case 0: st = mbs_forward_dynamics(d); if (!st) fz_require(fz_finite(mbs_data_qacc(d), nv), "fd", "qacc"); break;
    case 1: st = mbs_inverse_dynamics(d, mbs_data_qacc(d), buf); if (!st) fz_require(fz_finite(buf, nv), "id", "tau"); break;
    case 2: st = mbs_mass_matrix(d, buf); if (!st) fz_require(fz_finite(buf, nv * nv), "M", "M"); break;
    case 3: st = mbs_assemble(d); if (!st) fz_require(fz_finite(mbs_data_q(d), nq), "assemble", "q"); break;
    case 4: st = mbs_point_jacobian(d, body, pt, buf); if (!st) fz_require(fz_finite(buf, 6 * nv), "J", "J"); break;
    case 5: { double T, V; st = mbs_energy(d, &T, &V); if (!st) fz_require(isfinite(T) && isfinite(V), "energy", ""); break; }
    case 6: { double p[3], R[9]; st = mbs_body_pose(d, body, p, R); if (!st) fz_require(fz_finite(p, 3) && fz_finite(R, 9), "pose", ""); break; }
    case 7: { double l[3], a[3]; st = mbs_body_velocity(d, body, l, a); if (!st) fz_require(fz_finite(l, 3) && fz_finite(a, 3), "velocity", ""); break; }
    case 8: st = mbs_integrate_q(m, mbs_data_q(d), mbs_data_v(d), fz_real(f, 1.0), buf); if (!st) fz_require(fz_finite(buf, nq), "integrate_q", ""); break;
    case 9: st = actuated(f, d, m, buf); break;
    case 10: case 11: st = analysis(f, d, m, buf, op, body); break;
    default: step(f, d, s, m); return;
    }
    fz_check_status(st, op == 8 ? "integrate_q" : mbs_data_error(d), "call");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int extras = size > EXTRA_BYTES && data[size - 1] == EXTRA_MARK;
    fz f = {data, extras ? size - EXTRA_BYTES : size}, x = {data + f.n, EXTRA_BYTES - 1};
    double event_c = 0.0;
    mbs_builder *b = mbs_builder_create();
    build(&f, b);
    if (extras) build_extras(&x, b, &event_c);
    mbs_model *m = NULL;
    const int st = mbs_compile(b, &m);
    fz_check_status(st, mbs_builder_error(b), "compile");
    if (st == MBS_OK) {
        mbs_data *d = mbs_data_create(m);
        const int nq = mbs_model_nq(m), nv = mbs_model_nv(m);
        if (fz_byte(&f) & 1) { /* else the model's start values */
            for (int i = 0; i < nq; ++i) mbs_data_q(d)[i] = fz_real(&f, 1.0);
            for (int i = 0; i < nv; ++i) mbs_data_v(d)[i] = fz_real(&f, 2.0), mbs_data_tau(d)[i] = fz_real(&f, 2.0);
        }
        mbs_stepper_def def = mbs_default_stepper_def(fz_byte(&f) & 1 ? MBS_STEP_EULER : MBS_STEP_RK4);
        mbs_stepper *s = mbs_stepper_create(d, &def);
        double *buf = malloc(sizeof(double) * (size_t)(6 * nv + nv * nv + nq + 16));
        for (int k = 0; s && k < 12 && f.n > 0; ++k) call(&f, d, s, m, buf);
        free(buf);
        mbs_stepper_destroy(s);
        mbs_data_destroy(d);
        mbs_model_destroy(m);
    }
    mbs_builder_destroy(b);
    return 0;
}
